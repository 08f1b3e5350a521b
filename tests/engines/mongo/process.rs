//! A managed mongod's life through the stand-in (stand-in/mongod, SecantusDB behind
//! mongod's command line): started and waited for until it answers `hello`, stopped with
//! SIGINT, ended with dbrace on Ctrl-C and SIGTERM, taken down by the parent-death signal
//! after SIGKILL, and — when it outlives a killed dbrace — ended by the next run or
//! `dbrace clean`, its data directory removed. As the conformance suite's
//! `interrupted_and_killed_runs` does for the other engines, on TCP (the stand-in has no
//! unix socket).

use crate::common::{Sandbox, read_json, servers_under, signal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The stand-in's processes: its shell (named after the script) and SecantusDB's python.
const PROCESSES: &[&str] = &["mongod", "python"];

/// The stand-in mongod's directory, as `--mongo-bin`.
fn bin() -> String {
    super::stand_in::python();
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/engines/mongo/stand-in").display().to_string()
}

/// `run` through the stand-in, on TCP.
fn managed(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["-e", "mongo", "--mongo-bin", &bin(), "--transport", "tcp"].map(String::from).to_vec();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn wait_for(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out after {limit:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pids of the stand-in's processes in the sandbox's locations.
fn servers(sb: &Sandbox) -> Vec<i32> {
    [sb.disk.path(), sb.ram.path()].iter().flat_map(|d| servers_under(PROCESSES, d)).map(|(pid, _)| pid).collect()
}

fn alive(pid: i32) -> bool {
    // A zombie no longer runs: its parent (init, once dbrace is gone) has yet to reap it.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !matches!(s.rsplit_once(')').map(|(_, r)| r.trim_start().as_bytes()[0]), Some(b'Z' | b'X')))
}

/// What the stand-ins of a run wrote to `log` (MONGOD_STAND_IN_LOG), a line each.
fn events(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_string).collect()
}

fn count(events: &[String], what: &str) -> usize {
    events.iter().filter(|e| *e == what).count()
}

#[test]
fn a_slow_start_is_waited_for_and_every_server_stops_on_sigint() {
    let sb = Sandbox::new();
    let out = sb.out("slow.json");
    let log = sb.out("events.log");
    let args = managed(&["-p", "disk,async", "-w", "insert-commit", "-t", "20", "--warmup", "0s", "-r", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sb.cmd(&[&["run", "-q", "--out", out.to_str().unwrap()], &args[..]].concat())
        // Not listening for 1.5 s: a client connecting before then is refused, and dbrace
        // must keep asking until hello is answered.
        .env("MONGOD_STAND_IN_DELAY", "1.5")
        .env("MONGOD_STAND_IN_LOG", &log)
        .timeout(Duration::from_secs(300))
        .assert()
        .success();
    let r = read_json(&out);
    for c in r["cells"].as_array().unwrap() {
        for rep in c["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
            assert_eq!(rep["settings"]["server_process"], "secantus", "{}", rep["settings"]);
        }
    }
    // One server per cell, started in the preflight and kept for both repeats: each
    // stopped by SIGINT, cleanly (exit 0), none by SIGTERM or the group's SIGKILL (which
    // would leave no "exit" line).
    let ev = events(&log);
    let starts = count(&ev, "start");
    assert_eq!(starts, 2, "{ev:?}");
    assert_eq!(count(&ev, "INT"), starts, "{ev:?}");
    assert_eq!(count(&ev, "exit 0"), starts, "{ev:?}");
    assert_eq!(count(&ev, "TERM"), 0, "{ev:?}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(servers(&sb).is_empty(), "{:?}", servers(&sb));
}

#[test]
fn ctrl_c_sigterm_and_sigkill_of_dbrace_end_its_server_and_leave_nothing() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let sb = Sandbox::new();
        let out = sb.out("int.json");
        let args = managed(&["-p", "disk,ram", "-w", "insert-commit", "-T", "0.5s", "-r", "20"]);
        let mut child = sb.spawn_run(&out, &args.iter().map(String::as_str).collect::<Vec<_>>());
        wait_for("a server", Duration::from_secs(60), || !servers(&sb).is_empty());
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        signal(child.id() as i32, sig);
        let status = child.wait().unwrap();
        if sig != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + sig));
            // SecantusDB takes 2–3 s to shut down here; dbrace waits 10 s at most for it.
            assert!(sent.elapsed() < Duration::from_secs(15), "signal {sig}: took {:?}", sent.elapsed());
        }
        // After SIGKILL, the parent-death signal (SIGTERM) takes the server down.
        wait_for(&format!("the server to go after signal {sig}"), Duration::from_secs(15), || servers(&sb).is_empty());
        if sig == libc::SIGKILL {
            sb.clean_reaps_a_killed_run();
        } else if out.exists() {
            assert_eq!(read_json(&out)["status"], "interrupted");
        }
        assert!(sb.leftovers().is_empty(), "signal {sig} left {:?}", sb.leftovers());
    }
}

#[test]
fn a_server_that_outlives_a_killed_run_is_ended_by_the_next_run_or_by_clean() {
    for reaper in ["run", "clean"] {
        let sb = Sandbox::new();
        let out = sb.out("killed.json");
        let log = sb.out("events.log");
        let args = managed(&["-p", "disk", "-w", "insert-commit", "-T", "60s", "--warmup", "0s", "-r", "1"]);
        let mut run = sb.spawn(
            &[&["run", "-q", "--out", out.to_str().unwrap()], &args.iter().map(String::as_str).collect::<Vec<_>>()[..]]
                .concat(),
        );
        let mut child = run
            .env("MONGOD_STAND_IN_LOG", &log)
            .env("MONGOD_STAND_IN_DEAF", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Past the preflight's server (its results file is written then), into the measured one.
        sb.wait_past_preflight(&out);
        wait_for("the measured server", Duration::from_secs(60), || count(&events(&log), "start") == 2);
        wait_for("its processes", Duration::from_secs(10), || servers(&sb).len() == 2);
        let pids = servers(&sb);
        child.kill().unwrap();
        child.wait().unwrap();
        wait_for("the parent-death signal", Duration::from_secs(10), || count(&events(&log), "TERM") == 1);
        std::thread::sleep(Duration::from_millis(500));
        assert!(pids.iter().all(|&p| alive(p)), "the server did not outlive dbrace: {pids:?} {:?}", events(&log));
        assert!(!sb.leftovers().is_empty());
        let said = match reaper {
            "clean" => {
                let o = sb.cmd(&["clean"]).assert().success();
                String::from_utf8_lossy(&o.get_output().stdout).to_string()
            }
            _ => {
                let o = sb.cmd(&["run", "-e", "memory", "-T", "0.05s", "--warmup", "0s", "-r", "1"]).assert().success();
                String::from_utf8_lossy(&o.get_output().stderr).to_string()
            }
        };
        assert!(said.contains("removed 1 leftover") || said.contains("left by a killed run"), "{reaper}: {said}");
        wait_for(&format!("{reaper} to end the server"), Duration::from_secs(10), || pids.iter().all(|&p| !alive(p)));
        assert!(servers(&sb).is_empty(), "{reaper}: {:?}", servers(&sb));
        assert!(sb.leftovers().is_empty(), "{reaper} left {:?}", sb.leftovers());
        // Killed with its group (SIGKILL): the shell never saw its server exit.
        assert_eq!(events(&log).iter().filter(|e| e.starts_with("exit")).count(), 1, "{:?}", events(&log));
    }
}
