//! `--threads`: many clients on a few worker threads, each multiplexing its clients on an
//! event loop, against real throwaway servers. Every transaction is still counted and
//! timed on its own, `--rate` keeps its schedule, a throwaway server makes room for the
//! clients, a server that takes fewer says so, and a signal ends such a run at once.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;
use std::time::{Duration, Instant};

/// `dbrace run ARGS` (one repeat) to its end: its exit code, stderr and the repeat.
fn run(sb: &Sandbox, name: &str, args: &[&str]) -> (Option<i32>, String, Value) {
    let out = sb.out(name);
    let o = sb
        .cmd(&[&["run", "-q", "-r", "1", "--warmup", "0.1s"], args, &["--out", out.to_str().unwrap()]].concat())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let repeat = if out.exists() { read_json(&out)["cells"][0]["repeats"][0].clone() } else { Value::Null };
    (o.status.code(), err, repeat)
}

fn count(r: &Value, k: &str) -> u64 {
    r[k].as_u64().unwrap_or_else(|| panic!("no {k} in {r}"))
}

#[test]
fn sixty_clients_on_two_threads_count_every_transaction_on_every_server_engine() {
    let sb = Sandbox::new();
    for (engine, workload) in [("postgres", "tpcb"), ("mysql", "tpcb"), ("redis", "insert-commit")] {
        let args = ["-e", engine, "-p", "ram", "-w", workload, "-c", "60", "-j", "2", "-t", "40"];
        let (code, err, r) = run(&sb, &format!("{engine}.json"), &args);
        assert_eq!(code, Some(0), "{engine}: {err}");
        assert_eq!(r["status"], "ok", "{engine}: {r}");
        assert_eq!(r["verify"]["ok"], true, "{engine}: {r}");
        assert_eq!(count(&r, "threads"), 2, "{engine}");
        // 40 per client, each one timed and placed in its second.
        assert_eq!(count(&r, "transactions"), 60 * 40, "{engine}: {r}");
        let timeline: u64 = r["timeline"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).sum();
        assert_eq!(timeline, 60 * 40, "{engine}: {r}");
        assert!(r["latency_ms"]["p99"].as_f64().unwrap() > 0.0, "{engine}: {r}");
        assert!(r["client_cpu_s"].as_f64().unwrap() > 0.0, "{engine}: {r}");
    }
}

#[test]
fn a_throwaway_server_makes_room_for_the_clients_and_a_smaller_one_says_so() {
    let sb = Sandbox::new();
    // 120 clients are past PostgreSQL's default of 100 connections: the server gets 130.
    let args = ["-e", "postgres", "-p", "ram", "-w", "select-only", "-c", "120", "-T", "0.5s"];
    let (code, err, r) = run(&sb, "room.json", &args);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["settings"]["max_connections"], "130", "{r}");
    assert!(r["connect_s"].as_f64().unwrap() > 0.0, "{r}");
    // --set wins: 30 clients cannot all connect to a server of 20.
    let small = [&args[..6], &["-c", "30", "-T", "0.5s", "--set", "max_connections=20"]].concat();
    let (code, _, r) = run(&sb, "small.json", &small);
    assert_eq!(code, Some(1), "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(error.contains("too many clients") && error.contains("takes no more connections"), "{error}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn the_open_loop_keeps_its_rate_with_forty_clients_on_one_thread() {
    let sb = Sandbox::new();
    let args = ["-e", "postgres", "-p", "ram", "-w", "select-only", "-c", "40", "-j", "1"];
    let (code, err, r) = run(&sb, "rate.json", &[&args[..], &["--rate", "2000", "-T", "2s"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(count(&r, "threads"), 1);
    let tps = r["tps"].as_f64().unwrap();
    assert!((1700.0..2300.0).contains(&tps), "2000 tps scheduled, {tps} run: {r}");
    // Waiting for an arrival parks a fiber: transactions start, on average, well within a
    // client's mean time between arrivals (20 ms) of their schedule.
    assert_eq!(r["schedule"]["skipped"], 0, "{r}");
    assert!(r["schedule"]["lag_avg_ms"].as_f64().unwrap() < 20.0, "{r}");
}

#[test]
fn the_measured_phase_ends_on_time_when_client_0_gives_up_early() {
    let sb = Sandbox::new();
    let script = concat!("script:", env!("CARGO_MANIFEST_DIR"), "/tests/scripts/client-0-fails.sql");
    for threads in ["2", "4"] {
        let args = ["-e", "postgres", "-p", "ram", "-w", script, "--script-data", "none", "-c", "4", "-j", threads];
        let t = Instant::now();
        let (code, err, r) = run(&sb, &format!("early-{threads}.json"), &[&args[..], &["-T", "3s"]].concat());
        // Client 0 coordinates: out of its loop, it must go on ending the phase for the others.
        assert!(t.elapsed() < Duration::from_secs(30), "-j {threads}: took {:?}", t.elapsed());
        assert_eq!(code, Some(1), "-j {threads}: {err}");
        assert!(r["error"].as_str().unwrap().contains("gave up"), "-j {threads}: {r}");
        assert!(count(&r, "transactions") > 0, "the other clients went on: {r}");
    }
}

#[test]
fn embedded_engines_keep_a_thread_per_client() {
    let sb = Sandbox::new();
    let (code, err, r) = run(&sb, "sqlite.json", &["-e", "sqlite", "-p", "ram", "-c", "3", "-j", "1", "-T", "0.3s"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(count(&r, "threads"), 3, "{r}");
}

#[test]
fn sigterm_ends_a_run_of_many_clients_per_thread_within_two_seconds() {
    let sb = Sandbox::new();
    let out = sb.out("term.json");
    let args = ["-e", "postgres", "-p", "ram", "-w", "select-only", "-c", "50", "-j", "2", "-T", "60s", "-r", "1"];
    let mut child = sb.spawn_run(&out, &args);
    sb.wait_past_preflight(&out);
    // In the measured phase: the fibers are busy with their server.
    std::thread::sleep(Duration::from_secs(3));
    let t = Instant::now();
    common::signal(child.id() as i32, libc::SIGTERM);
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "took {:?}", t.elapsed());
    assert_eq!(status.code(), Some(143));
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(&["postgres"]), "a server is left");
}
