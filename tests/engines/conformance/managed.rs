//! The shared tests of throwaway servers: every profile, settings read back, TCP, and
//! nothing left behind after a normal end, Ctrl-C, SIGTERM, SIGKILL or a killed server.

use super::EngineUnderTest;
use crate::common::{Sandbox, read_json, servers_under, signal};
use std::time::{Duration, Instant};

pub fn every_profile_runs_verifies_and_reads_back(e: &EngineUnderTest) {
    (e.require_binaries)();
    let p = &e.profiles;
    let sb = Sandbox::new();
    let out = sb.out(&format!("{}.json", e.name));
    sb.cmd(&["run", "-q", "-e", e.name, "-p", p.profiles, "-w", p.workloads])
        .args(["-c", "2", "-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), p.cells);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 100);
        (p.each_repeat)(rep);
    }
    (p.read_back)(&r, &sb);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(e.server_process), "{:?}", servers_under(e.server_process, sb.disk.path()));
}

pub fn set_values_reach_the_server(e: &EngineUnderTest) {
    (e.require_binaries)();
    let sb = Sandbox::new();
    let out = sb.out(&format!("{}.json", e.name));
    sb.cmd(&["run", "-q", "-e", e.name])
        .args(e.settings.run.split_whitespace())
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    (e.settings.read_back)(read_json(&out)["cells"].as_array().unwrap());
    // Refused at start, unknown, or quietly adjusted by the server (read back: not what was set).
    for (set, needle) in e.settings.refused {
        let o = sb.cmd(&["run", "-q", "-e", e.name, "-p", "ram", "--set", set]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(needle) && err.contains("--set"), "{set}: {err}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(e.server_process));
}

pub fn tcp_transport(e: &EngineUnderTest) {
    (e.require_binaries)();
    let sb = Sandbox::new();
    let out = sb.out("tcp.json");
    let run = sb
        .cmd(&["run", "-e", e.name, "-p", "ram", "--transport", "tcp"])
        .args(e.tcp.run.split_whitespace())
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let rep = serde_json::from_str::<serde_json::Value>(&text).unwrap()["cells"][0]["repeats"][0].clone();
    let via = rep["settings"]["transport"].as_str().unwrap().to_string();
    assert!(via.starts_with("tcp 127.0.0.1:") && !via.ends_with(&format!(":{}", e.tcp.system_port)), "{via}");
    // The client really authenticated with the server's random password, and the run verified.
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    let o = run.get_output();
    assert_eq!(o.status.code(), Some(0));
    for shown in [text.as_str(), &String::from_utf8_lossy(&o.stdout), &String::from_utf8_lossy(&o.stderr)] {
        for word in e.tcp.secret_words {
            assert!(!shown.contains(word), "{word} in {shown}");
        }
    }
}

/// Each repeat's counters: the server's own under its engine's names, its processes' CPU,
/// nothing unread, and what the engine's table checks; none at all with --no-counters.
pub fn counters_say_what_each_commit_cost(e: &EngineUnderTest) {
    (e.require_binaries)();
    let sb = Sandbox::new();
    let out = sb.out("counters.json");
    sb.cmd(&["run", "-q", "-e", e.name, "-p", e.counters.profiles, "-w", "insert-commit", "-c", "1"])
        .args(["-T", "2", "--warmup", "0.5s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), e.counters.profiles.split(',').count());
    for c in cells {
        let (rep, profile) = (&c["repeats"][0], c["profile"]["name"].as_str().unwrap());
        assert_eq!(rep["status"], "ok", "{profile}: {rep}");
        let (k, n) = (&rep["counters"], rep["transactions"].as_u64().unwrap());
        assert!(n >= 50, "{profile}: {n} transactions");
        assert!(k["server"].as_object().is_some_and(|s| !s.is_empty()), "{profile}: {k}");
        // Read before the clients connected and after they left: the warm-up's too.
        let covered = k["server_transactions"].as_u64().unwrap_or_else(|| panic!("{profile}: {k}"));
        assert!(covered >= n + rep["warmup_transactions"].as_u64().unwrap(), "{profile}: {rep}");
        assert!(k["unread"].is_null(), "{profile}: {k}");
        assert!(k["processes"]["cpu_s"].as_f64().is_some_and(|s| s > 0.0), "{profile}: {k}");
        (e.counters.check)(profile, k);
    }
    let out = sb.out("none.json");
    let first = e.counters.profiles.split(',').next().unwrap();
    sb.cmd(&["run", "-q", "-e", e.name, "-p", first, "-w", "insert-commit", "-t", "20", "--warmup", "0s", "-r", "1"])
        .args(["--no-counters", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = &read_json(&out)["cells"][0]["repeats"][0];
    assert_eq!(rep["status"], "ok", "{rep}");
    assert!(rep.get("counters").is_none(), "--no-counters: {rep}");
}

/// `figures.NAME` of a repeat's counters per transaction they cover; None where it is
/// absent.
pub fn per_transaction(counters: &serde_json::Value, name: &str) -> Option<f64> {
    let covered = counters["server_transactions"].as_f64()?;
    counters["figures"][name].as_f64().map(|v| v / covered)
}

pub fn interrupted_and_killed_runs(e: &EngineUnderTest) {
    (e.require_binaries)();
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let sb = Sandbox::new();
        let out = sb.out(&format!("{}.json", e.name));
        let mut child =
            sb.spawn_run(&out, &["-e", e.name, "-p", "disk,ram", "-w", e.workload, "-T", "0.5s", "-r", "20"]);
        let start = Instant::now();
        while sb.no_servers(e.server_process) {
            assert!(start.elapsed() < Duration::from_secs(30), "no server started");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        signal(child.id() as i32, sig);
        let status = child.wait().unwrap();
        if sig != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + sig));
            assert!(sent.elapsed() < e.stops_within, "signal {sig}: took {:?} to stop", sent.elapsed());
        }
        // The parent-death signal takes the server down even after SIGKILL.
        let start = Instant::now();
        while !sb.no_servers(e.server_process) {
            assert!(start.elapsed() < Duration::from_secs(10), "server left running after signal {sig}");
            std::thread::sleep(Duration::from_millis(20));
        }
        if sig == libc::SIGKILL {
            sb.clean_reaps_a_killed_run();
        } else if e.results_before_interrupt || out.exists() {
            assert_eq!(read_json(&out)["status"], "interrupted");
        }
        assert!(sb.leftovers().is_empty(), "signal {sig} left {:?}", sb.leftovers());
    }
}

pub fn a_server_killed_mid_run(e: &EngineUnderTest) {
    (e.require_binaries)();
    let sb = Sandbox::new();
    let out = sb.out(&format!("{}.json", e.name));
    let args = ["-e", e.name, "-p", "disk,ram", "-w", "insert-commit", "-T", e.mid_run_duration, "-r", "1"];
    let child = sb.spawn_run(&out, &args);
    sb.wait_past_preflight(&out);
    let start = Instant::now();
    let pid = loop {
        if let Some((pid, _)) = servers_under(e.server_process, sb.disk.path()).first() {
            break *pid;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no disk server");
        std::thread::sleep(Duration::from_millis(20));
    };
    signal(pid, libc::SIGKILL);
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(1), "a failed cell makes the run fail");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells[0]["repeats"][0]["status"], "failed", "{}", cells[0]);
    assert!(!cells[0]["repeats"][0]["error"].as_str().unwrap().is_empty());
    assert_eq!(cells[1]["repeats"][0]["status"], "ok", "{}", cells[1]);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(e.server_process));
}

/// `--rate` and `--latency-limit` mistakes are refused before any server starts.
pub fn rate_mistakes_start_no_server(e: &EngineUnderTest) {
    (e.require_binaries)();
    let sb = Sandbox::new();
    let run = ["run", "-e", e.name, "-w", e.workload];
    let with = |extra: &[&'static str]| [&run[..], extra].concat();
    let refused = |args: &[&str], needles: &[&str]| {
        let out = sb.cmd(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
        }
    };
    refused(&with(&["--rate", "0"]), &["rate must be greater than 0"]);
    refused(&with(&["--rate", "-5"]), &["rate must be greater than 0", "--rate 500"]);
    refused(&with(&["--rate", "lots"]), &["rate must be a number"]);
    refused(&with(&["--latency-limit", "5"]), &["--latency-limit needs --rate", "add --rate TPS"]);
    refused(&with(&["--rate", "100", "--latency-limit", "0"]), &["latency limit must be greater than 0"]);
    refused(&with(&["--rate", "100", "--latency-limit", "-2"]), &["latency limit must be greater than 0"]);
    assert!(sb.no_servers(e.server_process));
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
