//! `--reconnect` across a real restart of the server: the test's own PostgreSQL is shut
//! down (fast: every connection dropped) and started again on the same data and port
//! while a run measures; the run reconnects, counts it, and shows the dip in its slices.
//! Six clients on two threads: clients that share a thread reconnect in turn.

use super::own_server::{self, OwnServer};
use crate::common::{Sandbox, read_json, whole_slices};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the run's six clients are connected to the server on `port` (its own database
/// is `dbrace_…`).
fn clients_connected(port: u16) -> bool {
    let sql = "select count(*) from pg_stat_activity where backend_type = 'client backend' and datname like 'dbrace%'";
    let o = Command::new("psql")
        .args(["-XAt", &own_server::url(port, own_server::PASSWORD), "-c", sql])
        .env_remove("PGHOST")
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).trim().parse::<u32>().is_ok_and(|n| n >= 6)
}

#[test]
fn a_run_with_reconnect_rides_out_a_restart_of_the_server() {
    let sb = Sandbox::new();
    let mut server = OwnServer::start();
    let out = sb.out("restart.json");
    let url = server.url(own_server::PASSWORD);
    let args = ["run", "-q", "-e", "postgres", "--url", &url, "-p", "disk", "-w", "select-only", "-c", "6", "-j", "2"];
    let more = ["-T", "5s", "--warmup", "0.2s", "-r", "1", "--reconnect", "--log-interval", "0.25s"];
    let mut run = sb
        .spawn(&[&args[..], &more[..], &["--out", out.to_str().unwrap()]].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waited = Instant::now();
    while !clients_connected(server.port) {
        assert!(waited.elapsed() < Duration::from_secs(60), "the run's clients never connected");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Inside the measured phase, with seconds of it still to come.
    std::thread::sleep(Duration::from_millis(1500));
    // Down for a second, four slices: however fast the restart, the dip is plain to see.
    server.restart(Duration::from_secs(1));
    let (mut stdout, mut stderr) = (String::new(), String::new());
    run.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    run.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(run.wait().unwrap().code(), Some(0), "{stdout}{stderr}");

    let r = &read_json(&out)["cells"][0]["repeats"][0];
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["verify"]["ok"], true, "{r}");
    assert!(r["reconnects"].as_u64().unwrap() >= 6, "every client reconnected: {r}");
    assert_eq!(r["threads"], 2, "{r}");
    assert!(r["reconnect_s"].as_f64().unwrap() > 0.0, "{r}");
    let (slices, median) = whole_slices(r);
    let dip = slices.iter().position(|&n| n < median / 4).unwrap_or_else(|| panic!("no dip: {slices:?}"));
    assert!(slices[dip..].iter().any(|&n| n > median / 2), "throughput came back after the restart: {slices:?}");
}
