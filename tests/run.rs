//! `dbrace run` end to end: the real binary, real SQLite, real files.

mod common;

use common::{QUICK, Sandbox, read_json};
use serde_json::Value;

fn cells(v: &Value) -> &Vec<Value> {
    v["cells"].as_array().unwrap()
}

fn cell<'a>(v: &'a Value, id: &str) -> &'a Value {
    cells(v).iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no cell {id}"))
}

#[test]
fn small_matrix_writes_every_field_and_verifies() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["run", "--engine", "sqlite,memory", "--profile", "disk,ram,nosync,async,unlogged"];
    args.extend(["--workload", "insert-commit", "--repeat", "2", "--format", "json", "--out", out.to_str().unwrap()]);
    args.extend(QUICK);
    let assert = sb.cmd(&args).assert().success();
    let r = read_json(&out);

    assert_eq!(r["schema"], 1);
    assert_eq!(r["status"], "complete");
    assert!(r["finished_at"].is_string());
    assert!(r["host"]["cpus"].as_u64().unwrap() >= 1);
    assert!(r["host"]["memory_bytes"].as_u64().unwrap() > 0);
    assert!(!r["host"]["kernel"].as_str().unwrap().is_empty());
    let locs = r["locations"].as_array().unwrap();
    assert_eq!(locs.len(), 2);
    assert_eq!(locs[1]["kind"], "ram");
    assert_eq!(locs[1]["fs_type"], "tmpfs");
    assert_ne!(locs[0]["fs_type"], "tmpfs");
    for l in locs {
        assert!(l["fsync"]["median_us"].as_f64().unwrap() > 0.0, "{l}");
        assert!(l["free_bytes"].as_u64().unwrap() > 0);
    }
    assert_eq!(r["options"]["repeat"], 2);

    // memory collapses to its one mode; sqlite gets every profile.
    let ids: Vec<_> = cells(&r).iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 6, "{ids:?}");
    for c in cells(&r) {
        let reps = c["repeats"].as_array().unwrap();
        assert_eq!(reps.len(), 2, "{}", c["id"]);
        for rep in reps {
            assert_eq!(rep["status"], "ok", "{rep}");
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{rep}");
            assert!(rep["transactions"].as_u64().unwrap() > 0);
            assert!(rep["tps"].as_f64().unwrap() > 0.0);
            assert!(rep["duration_s"].as_f64().unwrap() >= 0.3);
            let lat = &rep["latency_ms"];
            let (p50, p95, p99, max) = (
                lat["p50"].as_f64().unwrap(),
                lat["p95"].as_f64().unwrap(),
                lat["p99"].as_f64().unwrap(),
                lat["max"].as_f64().unwrap(),
            );
            assert!(0.0 < p50 && p50 <= p95 && p95 <= p99 && p99 <= max, "{lat}");
            assert!(!rep["histogram"].as_str().unwrap().is_empty());
            assert!(rep["client_cpu_s"].as_f64().unwrap() > 0.0);
            let timeline: u64 = rep["timeline"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
            assert_eq!(timeline, rep["transactions"].as_u64().unwrap());
            assert!(!rep["engine_version"].as_str().unwrap().is_empty());
            assert!(!rep["started_at"].as_str().unwrap().is_empty());
        }
    }

    // Settings read back as each profile says.
    let settings = |id: &str| cell(&r, id)["repeats"][0]["settings"].clone();
    for (id, sync) in [("disk", "2"), ("ram", "2"), ("async", "1"), ("nosync", "0")] {
        let s = settings(&format!("sqlite/{id}/insert-commit/c1"));
        assert_eq!(s["synchronous"], sync, "{id}: {s}");
        assert_eq!(s["journal_mode"], "wal", "{id}: {s}");
    }
    assert_ne!(settings("sqlite/unlogged/insert-commit/c1")["journal_mode"], "wal");
    assert_eq!(cell(&r, "sqlite/ram/insert-commit/c1")["profile"]["location"], "ram");
    assert_eq!(cell(&r, "sqlite/nosync/insert-commit/c1")["profile"]["durability"], "off");

    // The summary on stdout: one row per cell, the baseline marked, ratios for the rest.
    let rows: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let disk = rows.iter().find(|x| x["id"] == "sqlite/disk/insert-commit/c1").unwrap();
    assert_eq!(disk["baseline"], "sqlite/disk/insert-commit/c1");
    let mem = rows.iter().find(|x| x["id"] == "memory/unlogged/insert-commit/c1").unwrap();
    assert_eq!(mem["baseline"], "sqlite/disk/insert-commit/c1", "memory is compared to the first engine's baseline");
    assert!(mem["vs_baseline"]["lo"].as_f64().is_some());
    // Each interval says the level it has: min–max of 2 holds the median half the time, and
    // 2 against 2 cannot reach 95%, so nothing is claimed.
    assert_eq!(disk["tps"]["confidence"], 0.5, "{disk}");
    assert_eq!(mem["vs_baseline"]["verdict"], "too-few-repeats", "{mem}");
    assert!(mem["vs_baseline"]["confidence"].as_f64().unwrap() < 0.95, "{mem}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn pgbench_workloads_verify_with_concurrent_clients() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let args = [
        "run",
        "-q",
        "--engine",
        "sqlite",
        "--profile",
        "ram,unlogged",
        "--workload",
        "tpcb,simple-update,select-only",
        "--clients",
        "1,2",
        "--transactions",
        "200",
        "--warmup",
        "0s",
        "--repeat",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    sb.cmd(&args).assert().success();
    let r = read_json(&out);
    assert_eq!(cells(&r).len(), 12);
    for c in cells(&r) {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        let clients = c["clients"].as_u64().unwrap();
        assert_eq!(rep["transactions"].as_u64().unwrap(), 200 * clients, "{}", c["id"]);
    }
    let detail = cell(&r, "sqlite/ram/tpcb/c2")["repeats"][0]["verify"]["detail"].as_str().unwrap().to_string();
    assert!(detail.contains("history 400 rows for 400 commits"), "{detail}");
}

#[test]
fn default_matrix_has_the_documented_cells() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    sb.cmd(&["run", "-q", "--duration", "0.1s", "--warmup", "0s", "--repeat", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let mut ids: Vec<_> = cells(&r).iter().map(|c| c["id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    // The suite's machine has PostgreSQL's server binaries (scripts/test installs them),
    // so the default run includes postgres.
    let mut want = vec!["memory/unlogged/insert-commit/c1".to_string()];
    for e in ["sqlite", "postgres"] {
        for p in ["disk", "ram", "async", "nosync", "unlogged"] {
            want.push(format!("{e}/{p}/insert-commit/c1"));
        }
    }
    want.sort();
    assert_eq!(ids, want, "no postgres cells? install its server binaries: apt-get install postgresql");
    assert_eq!(r["options"]["baseline"], "disk");
    assert_eq!(r["options"]["confidence"], 0.95);
}

#[test]
fn urls_alone_run_only_the_servers_they_name() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["run", "--url", "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test"];
    args.extend(["--url", "redis://127.0.0.1:6379/0"]);
    args.extend(["--repeat", "1", "--duration", "0.2s", "--warmup", "0s", "--out", out.to_str().unwrap()]);
    // Not quiet: the skip notes would be on stderr, and there must be none.
    let o = sb.cmd(&args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("skipping"), "default profiles adapt to a --url without notes: {err}");
    let r = read_json(&out);
    let ids: Vec<&str> = cells(&r).iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "postgres/disk/insert-commit/c1",
            "postgres/async/insert-commit/c1",
            "postgres/unlogged/insert-commit/c1",
            "redis/disk/insert-commit/c1"
        ],
        "no sqlite or memory cells beside the servers the URLs name"
    );
    for c in cells(&r) {
        assert!(c["repeats"][0]["transactions"].as_u64().unwrap() > 0, "{}", c["id"]);
    }
    assert_eq!(r["options"]["baseline"], "disk");
    assert!(!std::fs::read_to_string(&out).unwrap().contains("not-a-real-secret"));
}

#[test]
fn report_reproduces_the_run_table() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    for format in ["markdown", "table", "csv"] {
        let run = sb
            .cmd(&[
                "run",
                "--engine",
                "sqlite",
                "--profile",
                "disk,nosync",
                "--workload",
                "insert-commit",
                "--format",
                format,
                "--out",
                out.to_str().unwrap(),
            ])
            .args(QUICK)
            .assert()
            .success();
        let report = sb.cmd(&["report", out.to_str().unwrap(), "--format", format]).assert().success();
        assert_eq!(
            String::from_utf8_lossy(&run.get_output().stdout),
            String::from_utf8_lossy(&report.get_output().stdout),
            "{format}"
        );
    }
    let md = sb.cmd(&["report", out.to_str().unwrap(), "--format", "markdown"]).assert().success();
    let md = String::from_utf8_lossy(&md.get_output().stdout).to_string();
    assert!(md.starts_with("| engine | profile | workload |"), "{md}");
    assert!(md.contains("| sqlite | nosync | insert-commit | 1 |"), "{md}");
    assert!(md.contains("| baseline |"), "{md}");
}
