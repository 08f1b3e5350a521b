//! YCSB's core workloads A–F on every engine: loaded, driven, and verified by counting
//! the records on the engine (loaded + inserted), with the inserts cross-checked against
//! the per-operation counts the clients report; bad options refused before any server.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

const ALL: &str = "ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f";

/// The operations each workload reports, as YCSB names them.
fn operations(workload: &str) -> &'static [&'static str] {
    match workload {
        "ycsb-a" | "ycsb-b" => &["READ", "UPDATE"],
        "ycsb-c" => &["READ"],
        "ycsb-d" => &["READ", "INSERT"],
        "ycsb-e" => &["INSERT", "SCAN"],
        "ycsb-f" => &["READ", "READ-MODIFY-WRITE"],
        w => panic!("not a ycsb workload: {w}"),
    }
}

/// The numbers in a verify detail, in order.
fn numbers(detail: &str) -> Vec<u64> {
    detail.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect()
}

/// Run `workloads` with 2 clients × `ops` operations each on `records` records; check
/// every cell and return the results.
fn run(sb: &Sandbox, engine_args: &[&str], workloads: &str, records: u64, ops: u64) -> Value {
    let out = sb.out(&format!("ycsb-{records}.json"));
    sb.cmd(&["run", "-q", "-w", workloads, "-c", "2", "-t", &ops.to_string(), "--warmup", "0s", "-r", "1"])
        .args(engine_args)
        .args(["--records", &records.to_string(), "--report-per-statement", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(r["options"]["records"], records);
    let cells = r["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        let (id, w) = (c["id"].as_str().unwrap(), c["workload"].as_str().unwrap());
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{id}: {rep}");
        // Every read found its record, every scan at least its first: no errors.
        assert_eq!(rep["errors"], 0, "{id}: {rep}");
        assert_eq!(rep["transactions"], 2 * ops, "{id}");
        let detail = rep["verify"]["detail"].as_str().unwrap();
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{id}: {detail}");
        // "N records = R loaded + I inserted; <count on the engine>…"
        let n = numbers(detail);
        let (want, loaded, inserted) = (n[0], n[1], n[2]);
        assert_eq!((want, loaded), (records + inserted, records), "{id}: {detail}");
        if detail.contains("count(*)") {
            assert_eq!(n[3], want, "{id}: {detail}");
        } else {
            assert_eq!((n[3], n[4]), (want, want), "{id}: record hashes and index keys: {detail}");
        }
        // Per-operation counts: only the workload's operations, adding up to the
        // transactions; the inserts the engine holds are the ones the clients report.
        let stats = rep["statements"].as_array().unwrap_or_else(|| panic!("{id}: no per-operation latency"));
        let names: Vec<&str> = stats.iter().map(|s| s["command"].as_str().unwrap()).collect();
        assert_eq!(names, operations(w), "{id}");
        let executed =
            |op: &str| stats.iter().find(|s| s["command"] == op).map_or(0, |s| s["executions"].as_u64().unwrap());
        assert_eq!(stats.iter().map(|s| s["executions"].as_u64().unwrap()).sum::<u64>(), 2 * ops, "{id}");
        assert_eq!(rep["warmup_transactions"], 0, "{id}");
        assert_eq!(executed("INSERT"), inserted, "{id}: {detail}");
        if names.contains(&"INSERT") {
            // 5% of the operations: far from none and from all.
            assert!(inserted >= 1 && inserted * 5 < 2 * ops, "{id}: {inserted} inserts in {} operations", 2 * ops);
        }
        for s in stats {
            assert!(s["executions"].as_u64().unwrap() > 0 && s["avg_ms"].as_f64().unwrap() > 0.0, "{id}: {s}");
        }
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    r
}

#[test]
fn every_workload_on_sqlite_and_memory() {
    let sb = Sandbox::new();
    let r = run(&sb, &["-e", "sqlite,memory", "-p", "nosync"], ALL, 500, 200);
    assert_eq!(r["cells"].as_array().unwrap().len(), 12);
}

/// Fewer records than a scan's longest length: scans near the end of the key order read
/// fewer records, and every read still finds its record.
#[test]
fn tiny_tables_and_every_distribution() {
    let sb = Sandbox::new();
    for dist in ["uniform", "latest", "zipfian"] {
        let out = sb.out(&format!("{dist}.json"));
        sb.cmd(&["run", "-q", "-e", "sqlite,memory", "-p", "unlogged", "-w", "ycsb-d,ycsb-e", "--distribution", dist])
            .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "1", "--records", "5"])
            .args(["--out", out.to_str().unwrap()])
            .assert()
            .success();
        let r = read_json(&out);
        assert_eq!(r["options"]["distribution"], dist);
        for c in r["cells"].as_array().unwrap() {
            let rep = &c["repeats"][0];
            assert_eq!((&rep["status"], &rep["errors"]), (&"ok".into(), &0.into()), "{dist} {}: {rep}", c["id"]);
        }
    }
}

fn require(path_any: &[&str], what: &str) {
    assert!(
        path_any.iter().any(|p| std::path::Path::new(p).exists()),
        "{what} missing: run scripts/test, which installs it"
    );
}

#[test]
fn a_and_e_on_postgres() {
    require(&["/usr/lib/postgresql"], "PostgreSQL");
    let sb = Sandbox::new();
    run(&sb, &["-e", "postgres", "-p", "ram"], "ycsb-a,ycsb-e", 300, 100);
    assert!(sb.no_servers(&["postgres"]));
}

/// `unlogged` puts usertable in a MEMORY table, which holds no TEXT columns.
#[test]
fn a_and_e_on_mysql() {
    require(&["/usr/sbin/mariadbd", "/usr/sbin/mysqld", "/usr/bin/mariadbd"], "MariaDB or MySQL server");
    let sb = Sandbox::new();
    let r = run(&sb, &["-e", "mysql", "-p", "ram,unlogged"], "ycsb-a,ycsb-e", 300, 100);
    assert_eq!(r["cells"].as_array().unwrap().len(), 4);
    assert!(sb.no_servers(&["mariadbd", "mysqld"]));
}

#[test]
fn a_and_e_on_redis() {
    require(&["/usr/bin/redis-server", "/usr/local/bin/redis-server"], "redis-server");
    let sb = Sandbox::new();
    run(&sb, &["-e", "redis", "-p", "ram"], "ycsb-a,ycsb-e", 300, 100);
    assert!(sb.no_servers(&["redis-server"]));
}

#[test]
fn bad_options_are_refused_before_any_server_starts() {
    let sb = Sandbox::new();
    for (args, needle) in [
        (["--distribution", "bogus"], "unknown distribution 'bogus'; use zipfian, uniform or latest"),
        (["--records", "0"], "records must be at least 1"),
        (["--records", "-1"], "records must be at least 1"),
        (["--records", "3000000000"], "records must be at most 2000000000"),
    ] {
        let start = std::time::Instant::now();
        let out = sb.cmd(&["run", "-e", "postgres,mysql,redis", "-w", "ycsb-a"]).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in: {err}");
        assert!(start.elapsed().as_secs() < 5, "{args:?}: refused only after {:?}", start.elapsed());
        assert!(sb.no_servers(&["postgres", "mariadbd", "mysqld", "redis-server"]), "{args:?}");
        assert!(sb.leftovers().is_empty());
    }
    // A record count whose data cannot fit its location: named with its option.
    let out =
        sb.cmd(&["run", "-e", "sqlite", "-p", "ram", "-w", "ycsb-c", "--records", "2000000000"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ycsb-c with --records 2000000000 needs about"), "{err}");
}
