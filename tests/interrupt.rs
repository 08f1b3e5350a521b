//! Ctrl-C, SIGTERM and SIGKILL during a run: finished cells are kept, data files go.

mod common;

use common::{Sandbox, read_json};
use std::time::{Duration, Instant};

/// A long matrix, unless `args` says otherwise.
const LONG: &[&str] =
    &["-e", "sqlite", "-p", "disk,ram", "-w", "insert-commit,tpcb", "-T", "0.5s", "--warmup", "0s", "-r", "50"];

/// Wait until `cond` holds, at most 30 s.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(30), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn finished_repeats(out: &std::path::Path) -> usize {
    let Ok(text) = std::fs::read_to_string(out) else {
        return 0;
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return 0;
    };
    v["cells"].as_array().map_or(0, |c| c.iter().map(|c| c["repeats"].as_array().map_or(0, Vec::len)).sum())
}

fn interrupted_by(signal: i32, code: i32) {
    interrupted_run(LONG, signal, code);
}

/// Run `args`, send `signal` once two repeats are kept; the exit code, the finished
/// repeats kept, no data left behind. The results file, read back.
fn interrupted_run(args: &[&str], signal: i32, code: i32) -> serde_json::Value {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut child = sb.spawn_run(&out, args);
    wait_for("two finished repeats", || finished_repeats(&out) >= 2);
    // Signal while a cell is in flight, so teardown is exercised.
    wait_for("a data directory", || !sb.leftovers().is_empty());
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(code));
    let r = read_json(&out);
    assert_eq!(r["status"], "interrupted");
    let kept = finished_repeats(&out);
    assert!(kept >= 2, "kept {kept} repeats");
    for c in r["cells"].as_array().unwrap() {
        for rep in c["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{rep}");
        }
    }
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
    // The kept results still render.
    sb.cmd(&["report", out.to_str().unwrap()]).assert().success();
    r
}

#[test]
fn ctrl_c_during_a_budgeted_run_keeps_every_finished_repeat() {
    // An A/A pair never settles: the rounds would go on for the whole budget.
    let args = ["-e", "sqlite", "-p", "disk,again=disk", "-T", "0.3s", "--warmup", "0s", "--budget", "5m"];
    let r = interrupted_run(&args, libc::SIGINT, 130);
    assert_eq!(r["options"]["budget_s"], 300.0);
    assert_eq!(r["budget_outcome"]["reason"], "interrupted", "{}", r["budget_outcome"]);
}

#[test]
fn ctrl_c_keeps_finished_cells_and_removes_data() {
    interrupted_by(libc::SIGINT, 130);
}

#[test]
fn sigterm_keeps_finished_cells_and_removes_data() {
    interrupted_by(libc::SIGTERM, 143);
}

#[test]
fn data_left_by_sigkill_is_reaped_by_the_next_run() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut child = sb.spawn_run(&out, LONG);
    wait_for("a data directory", || !sb.leftovers().is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!sb.leftovers().is_empty(), "SIGKILL skips cleanup, so something must be left to reap");
    let next = sb
        .cmd(&["run", "--engine", "memory", "--duration", "0.05s", "--warmup", "0s", "--repeat", "1"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&next.get_output().stderr).contains("left by a killed run"));
    assert!(sb.leftovers().is_empty(), "not reaped: {:?}", sb.leftovers());
}

#[test]
fn ctrl_c_during_a_large_load_stops_promptly() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut child = sb.spawn_run(&out, &["-e", "sqlite", "-p", "ram", "-w", "tpcb", "--scale", "40"]);
    wait_for("the load to start", || !sb.leftovers().is_empty());
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(sent.elapsed() < Duration::from_secs(5), "took {:?} to stop", sent.elapsed());
    assert_eq!(read_json(&out)["status"], "interrupted");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}
