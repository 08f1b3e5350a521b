//! sysbench's OLTP workloads on every SQL engine: loaded, driven, verified (row counts,
//! ids 1..N, full c and pad, oltp-ro leaving k as loaded), with every select checked by
//! the client for the rows it must return; and their options refused when out of range.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// Run the three oltp workloads with 1 and 2 clients, 40 transactions each, on 2 tables
/// of `rows` rows; check every cell and return the results.
fn run_all(sb: &Sandbox, engine_args: &[&str], rows: &str) -> Value {
    let out = sb.out(&format!("oltp-{rows}.json"));
    sb.cmd(&["run", "-q", "-w", "oltp-rw,oltp-ro,oltp-wo", "-c", "1,2", "-t", "40", "--warmup", "0s", "-r", "1"])
        .args(engine_args)
        .args(["--tables", "2", "--table-size", rows, "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(r["options"]["tables"], 2);
    assert_eq!(r["options"]["table_size"].to_string(), rows);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "{r}");
    for c in cells {
        let rep = &c["repeats"][0];
        let id = c["id"].as_str().unwrap();
        assert_eq!(rep["status"], "ok", "{id}: {rep}");
        // Every select returned the rows the table holds (a wrong count is a failed
        // transaction): no errors, and exactly the transactions asked for.
        assert_eq!(rep["errors"], 0, "{id}: {rep}");
        assert_eq!(rep["transactions"].as_u64().unwrap(), 40 * c["clients"].as_u64().unwrap(), "{id}");
        if c["clients"] == 1 {
            assert_eq!(rep["retries"], 0, "{id}: a lone client has nothing to conflict with");
        }
        let detail = rep["verify"]["detail"].as_str().unwrap();
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{id}: {detail}");
        assert!(detail.starts_with(&format!("2 table(s) × {rows} rows, ids 1..{rows}, c and pad full")), "{detail}");
        if c["workload"] == "oltp-ro" {
            assert!(detail.ends_with("sum(k) as loaded"), "{id}: {detail}");
        } else {
            assert!(detail.contains("since the load"), "{id}: {detail}");
        }
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    r
}

#[test]
fn sqlite_runs_and_verifies_every_mix() {
    let sb = Sandbox::new();
    run_all(&sb, &["-e", "sqlite", "-p", "nosync"], "1000");
}

/// Tables smaller than a range (100 ids): ranges near the end return fewer rows.
#[test]
fn sqlite_tables_smaller_than_a_range() {
    let sb = Sandbox::new();
    run_all(&sb, &["-e", "sqlite", "-p", "unlogged"], "50");
}

#[test]
fn postgres_runs_and_verifies_every_mix() {
    let found = std::fs::read_dir("/usr/lib/postgresql").map(|mut d| d.next().is_some()).unwrap_or(false);
    assert!(
        found,
        "PostgreSQL server binaries missing: run scripts/test, which installs them (apt-get install postgresql)"
    );
    let sb = Sandbox::new();
    // Deadlocks between two clients on sysbench's hot rows are found after
    // deadlock_timeout (1 s by default): shorter keeps the test quick.
    let r = run_all(&sb, &["-e", "postgres", "-p", "ram", "--set", "deadlock_timeout=20ms"], "10000");
    let rep = &r["cells"][0]["repeats"][0];
    assert!(rep["settings"]["data_directory"].as_str().unwrap().starts_with(sb.ram.path().to_str().unwrap()));
}

#[test]
fn sizes_out_of_range_are_refused() {
    let sb = Sandbox::new();
    for (args, needle) in [
        (["--tables", "0"], "tables must be at least 1"),
        (["--tables", "20000"], "tables must be at most 10000"),
        (["--table-size", "0"], "table-size must be at least 1"),
        (["--table-size", "-3"], "table-size must be at least 1"),
        (["--table-size", "3000000000"], "table-size must be at most 2000000000"),
        (["--table-size", "many"], "whole number"),
    ] {
        let out = sb.cmd(&["run", "-w", "oltp-rw"]).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in: {err}");
    }
    // A data set that cannot fit its location: named with its options, before loading.
    let huge = ["run", "-e", "sqlite", "-p", "ram", "-w", "oltp-ro", "--tables", "10000", "--table-size", "2000000000"];
    let out = sb.cmd(&huge).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("oltp-ro with --tables 10000 --table-size 2000000000 needs about"), "{err}");
}
