//! `dbrace exec` says how much of a command's time the database was: the server's CPU
//! and waits over each run, and the most any profile could gain, checked against the
//! ratio the same exec measured. Real servers, real psql, the real binary.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// A command that makes `n` INSERT+COMMITs through one psql session.
fn inserts(sb: &Sandbox, n: u32) -> String {
    let sql = sb.out("inserts.sql");
    let body: String = (1..=n).map(|i| format!("INSERT INTO t VALUES ({i});\n")).collect();
    std::fs::write(&sql, body).unwrap();
    format!("psql -qX -v ON_ERROR_STOP=1 -c 'CREATE TABLE IF NOT EXISTS t (x int)' -f {}", sql.display())
}

/// Exec `script` under disk and ram-nosync; its report and results file.
fn exec(sb: &Sandbox, script: &str) -> (String, Value) {
    let out = sb.out("exec.json");
    let args = ["exec", "-q", "-p", "disk,ram-nosync", "-r", "3", "--out", out.to_str().unwrap()];
    let a = sb.cmd(&args).args(["--", "sh", "-c", script]).assert().success();
    (String::from_utf8_lossy(&a.get_output().stdout).into_owned(), read_json(&out))
}

/// The baseline's (disk's) share in the summary.
fn disk_share(file: &Value) -> &Value {
    &file["summary"]["profiles"][0]["database"]
}

#[test]
fn a_suite_that_commits_is_mostly_the_database_and_its_bound_holds() {
    let sb = Sandbox::new();
    let (report, file) = exec(&sb, &inserts(&sb, 500));
    for p in file["profiles"].as_array().unwrap() {
        let runs = p["runs"].as_array().unwrap();
        for run in runs {
            assert!(run["server"]["figures"]["commits"].as_f64().unwrap() >= 500.0, "{run}");
        }
        // The CPU is counted in clock ticks: a short run may round to none, four runs not.
        let cpu: f64 = runs.iter().map(|r| r["server"]["processes"]["cpu_s"].as_f64().unwrap()).sum();
        assert!(cpu > 0.0, "{p}");
    }
    let share = disk_share(&file);
    let (part, bound) = (share["share"].as_f64().unwrap(), share["at_most"].as_f64().unwrap());
    assert!(part > 0.3 && part < 1.0, "{share}");
    assert!((bound - 1.0 / (1.0 - part)).abs() < 1e-9);
    // Disk's flushes are its waits; ram-nosync flushes nothing.
    assert!(share["storage_wait_s"].as_f64().unwrap() > 0.0 && share["fsyncs"].as_f64().unwrap() >= 500.0);
    assert_eq!(file["summary"]["profiles"][1]["database"]["storage_wait_s"], 0.0);
    assert!(report.contains(&format!("no profile can make this command more than {bound:.2}× faster")), "{report}");
    assert!(report.contains("ram-nosync: measured ") && report.contains("within that bound"), "{report}");
    assert!(report.contains("  Database:            busy "), "{report}");
}

#[test]
fn a_suite_that_barely_touches_the_database_is_told_no_profile_can_help() {
    let sb = Sandbox::new();
    let (report, file) = exec(&sb, "sleep 0.5; psql -qXAtc 'select 1' >/dev/null");
    let share = disk_share(&file);
    assert!(share["share"].as_f64().unwrap() < 0.1, "{share}");
    let bound = share["at_most"].as_f64().unwrap();
    assert!((1.0..1.12).contains(&bound), "{share}");
    assert!(report.contains(&format!("more than {bound:.3}× faster")), "{report}");
}
