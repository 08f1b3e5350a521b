//! What only the mongo engine does, against SecantusDB (stand_in.rs): every workload
//! verified on a `--url` server, insert-commit's insert of many documents
//! (`--rows-per-commit`), SCRAM-SHA-1 when asked, a server killed mid-run, Ctrl-C,
//! `dbrace engines`, and the managed path: a loud refusal without mongod, and a managed
//! run through a stand-in mongod (stand-in/mongod) that starts SecantusDB.

use super::stand_in::{PasswordStandIn, StandIn};
use crate::common::{Sandbox, read_json, signal};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn statuses(r: &serde_json::Value) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for c in r["cells"].as_array().unwrap() {
        for rep in c["repeats"].as_array().unwrap() {
            out.push((c["id"].as_str().unwrap().to_string(), rep["status"].to_string(), rep["verify"]["ok"] == true));
        }
    }
    out
}

#[test]
fn every_workload_runs_and_verifies_on_a_url_server() {
    let s = StandIn::start();
    let sb = Sandbox::new();
    let out = sb.out("all.json");
    let ws = "insert-commit,counters,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f";
    // Four clients as fibers of one worker thread (--threads 1).
    sb.cmd(&["run", "-q", "-e", "mongo", "--url", &s.url(), "-p", "disk", "-w", ws, "-c", "4", "-j", "1", "-t", "40"])
        .args(["--warmup", "0s", "-r", "1", "--records", "300", "--counters-keys", "4", "--counters-spread", "1d"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let st = statuses(&r);
    assert_eq!(st.len(), 9, "{st:?}");
    for (id, status, verified) in &st {
        assert!(status == "\"ok\"" && *verified, "{id}: {status} {}", r);
    }
    for c in r["cells"].as_array().unwrap() {
        assert_eq!(c["repeats"][0]["threads"], 1, "{}", c["id"]);
    }
    let counters = &r["cells"].as_array().unwrap().iter().find(|c| c["id"] == "mongo/disk/counters-write/c4").unwrap()
        ["repeats"][0]["verify"]["detail"];
    assert!(counters.as_str().unwrap().contains("160 tracks"), "{counters}");
    // The other pattern of tracks: one update per bucket, the same sums.
    let out = sb.out("per-bucket.json");
    sb.cmd(&["run", "-q", "-e", "mongo", "--url", &s.url(), "-p", "async", "-w", "counters-write"])
        .args(["--counters-writes", "per-bucket", "--counters-keys", "3", "-t", "30", "--warmup", "0s", "-r", "1"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(r["options"]["counters"]["writes"], "per-bucket", "{}", r["options"]);
    assert!(r["cells"][0]["repeats"][0]["verify"]["ok"].as_bool().unwrap(), "{r}");
    assert_eq!(StandIn::dbrace_databases(&s.url()), "[]", "the run's databases are dropped");
}

#[test]
fn rows_per_commit_inserts_n_documents_at_once() {
    let s = StandIn::start();
    let sb = Sandbox::new();
    let out = sb.out("rows.json");
    sb.cmd(&["run", "-q", "-e", "mongo", "--url", &s.url(), "-p", "disk", "-w", "insert-commit"])
        .args(["--rows-per-commit", "10", "-c", "2", "-t", "30", "--warmup", "0s", "-r", "1"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(r["options"]["rows_per_commit"], 10, "{}", r["options"]);
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!((&rep["status"], &rep["transactions"]), (&"ok".into(), &60.into()), "{rep}");
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{rep}");
    assert_eq!(rep["verify"]["detail"], "600 rows, 60 committed transactions × 10 rows", "{rep}");
}

#[test]
fn scram_sha_1_logs_in_when_asked_and_sha_256_by_default() {
    let s = PasswordStandIn::start("carol", super::SECRET);
    let sb = Sandbox::new();
    for mech in ["SCRAM-SHA-1", "SCRAM-SHA-256"] {
        let url = format!("mongodb://carol:{}@127.0.0.1:{}/?authMechanism={mech}", super::SECRET, s.server.port);
        let o = sb
            .cmd(&["run", "-q", "-e", "mongo", "--url", &url, "-p", "async", "-w", "insert-commit"])
            .args(["-t", "20", "--warmup", "0s", "-r", "1"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{mech}: {err}");
        assert!(!err.contains(super::SECRET) && !String::from_utf8_lossy(&o.stdout).contains(super::SECRET));
    }
}

#[test]
fn a_server_killed_mid_run_fails_its_cell_and_the_run_ends() {
    let s = StandIn::start();
    let sb = Sandbox::new();
    let out = sb.out("killed.json");
    let mut run = sb.spawn_run(
        &out,
        &[
            "-e",
            "mongo",
            "--url",
            &s.url(),
            "-p",
            "disk",
            "-w",
            "insert-commit,ycsb-c",
            "-T",
            "4s",
            "--warmup",
            "0s",
            "-r",
            "1",
            "--records",
            "100",
        ],
    );
    std::thread::sleep(Duration::from_millis(2500));
    drop(s);
    let start = Instant::now();
    let status = loop {
        if let Some(st) = run.try_wait().unwrap() {
            break st;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the run hangs on a dead server");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(!status.success());
    // The first cell fails; the second finds no server and the run says so.
    let r = read_json(&out);
    let st = statuses(&r);
    assert_eq!(st[0].1, "\"failed\"", "{st:?}");
    assert_eq!(r["cells"].as_array().unwrap().len(), 2, "{r}");
}

#[test]
fn ctrl_c_ends_a_url_run_and_drops_its_database() {
    let s = StandIn::start();
    let sb = Sandbox::new();
    let out = sb.out("int.json");
    let mut run = sb.spawn_run(
        &out,
        &[
            "-e",
            "mongo",
            "--url",
            &s.url(),
            "-p",
            "async",
            "-w",
            "insert-commit",
            "-T",
            "60s",
            "--warmup",
            "0s",
            "-r",
            "1",
        ],
    );
    // Past the preflight: the run's database exists.
    let start = Instant::now();
    while StandIn::dbrace_databases(&s.url()) == "[]" {
        assert!(start.elapsed() < Duration::from_secs(30), "the run never made its database");
        std::thread::sleep(Duration::from_millis(200));
    }
    signal(run.id() as i32, libc::SIGINT);
    let start = Instant::now();
    loop {
        if run.try_wait().unwrap().is_some() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "SIGINT did not end the run");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(StandIn::dbrace_databases(&s.url()), "[]", "the interrupted run left its database");
}

#[test]
fn engines_lists_mongo_and_a_managed_run_without_mongod_says_how_to_install_it() {
    let sb = Sandbox::new();
    let o = sb.cmd(&["engines"]).env("PATH", "/usr/bin:/bin").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().any(|l| l.contains("mongo") && l.contains("mongod not found")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  ycsb-e") && l.contains("mongo")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  tpcb") && !l.contains("mongo")), "{text}");
    let o = sb
        .cmd(&["run", "-q", "-e", "mongo", "-w", "insert-commit", "-T", "0.1s"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("mongod not found") && err.contains("--mongo-bin"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// The stand-in mongod's directory.
fn stand_in_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/engines/mongo/stand-in")
}

/// The stand-in's counters: its operation counters and its process's CPU, and none of
/// WiredTiger's, so no figures, which it says.
#[test]
fn a_managed_stand_in_counts_its_inserts_and_has_no_figures() {
    super::stand_in::python();
    let sb = Sandbox::new();
    let out = sb.out("counters.json");
    let bin = stand_in_bin();
    sb.cmd(&["run", "-q", "-e", "mongo", "--mongo-bin", bin.to_str().unwrap(), "--transport", "tcp", "-p", "disk"])
        .args(["-w", "insert-commit", "-c", "1", "-T", "2", "--warmup", "0.5s", "-r", "1"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = &read_json(&out)["cells"][0]["repeats"][0];
    assert_eq!(rep["status"], "ok", "{rep}");
    let (k, n) = (&rep["counters"], rep["transactions"].as_f64().unwrap());
    let inserts = k["server"]["opcounters.insert"].as_f64().unwrap_or_else(|| panic!("{k}"));
    // Read before the clients connected and after they left: every insert, the warm-up's too.
    let covered = k["server_transactions"].as_f64().unwrap_or_else(|| panic!("{k}"));
    assert!(n >= 20.0 && covered >= n && inserts == covered, "{inserts} inserts for {covered} transactions: {k}");
    assert!(k["server"]["opcounters.command"].as_f64().is_some_and(|c| c >= 1.0), "the reader's own: {k}");
    assert!(k["figures"].as_object().is_some_and(|f| f.is_empty()), "{k}");
    let unread = k["unread"].to_string();
    assert!(unread.contains("serverStatus has no wiredTiger.log, wiredTiger.cache"), "{k}");
    assert!(k["processes"]["cpu_s"].as_f64().is_some_and(|s| s > 0.0), "{k}");
}

#[test]
fn a_managed_run_through_the_stand_in_starts_reads_back_and_stops_its_server() {
    super::stand_in::python();
    let sb = Sandbox::new();
    let out = sb.out("managed.json");
    let bin = stand_in_bin();
    sb.cmd(&["run", "-q", "-e", "mongo", "--mongo-bin", bin.to_str().unwrap(), "--transport", "tcp"])
        .args([
            "-p",
            "disk,async",
            "-w",
            "insert-commit,ycsb-f",
            "-t",
            "30",
            "--warmup",
            "0s",
            "-r",
            "1",
            "--records",
            "100",
        ])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    for (id, status, verified) in statuses(&r) {
        assert!(status == "\"ok\"" && verified, "{id}: {status}");
    }
    let rep = &r["cells"][0]["repeats"][0];
    // The version the server reports (SecantusDB claims a MongoDB one); the binary's own beside it.
    assert_eq!(rep["settings"]["binary_version"], "0.0.0-secantus-stand-in", "{}", rep["settings"]);
    assert_eq!(rep["settings"]["server_process"], "secantus", "{}", rep["settings"]);
    assert!(rep["settings"]["transport"].as_str().unwrap().starts_with("tcp 127.0.0.1:"));
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    // What the stand-in cannot do is refused by the server's start, not faked.
    let o = sb
        .cmd(&[
            "run",
            "-q",
            "-e",
            "mongo",
            "--mongo-bin",
            bin.to_str().unwrap(),
            "--transport",
            "tcp",
            "-p",
            "nosync",
            "-w",
            "insert-commit",
            "-t",
            "5",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("journalCommitInterval"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
