//! The numbers themselves: counted transactions, durations, timelines, retries, settings.

mod common;

use common::{QUICK, Sandbox, read_json};

fn run_json(sb: &Sandbox, args: &[&str]) -> serde_json::Value {
    let out = sb.out("m.json");
    sb.cmd(&[&["run", "-q", "--out", out.to_str().unwrap()], args].concat()).assert().success();
    read_json(&out)
}

#[test]
fn counting_transactions_measures_exactly_their_time() {
    let sb = Sandbox::new();
    let r = run_json(&sb, &["-e", "memory", "-t", "1", "--warmup", "0s", "-r", "1"]);
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(rep["transactions"], 1);
    // One in-process insert takes microseconds; a duration rounded to the coordinator's
    // 20 ms tick would say otherwise.
    assert!(rep["duration_s"].as_f64().unwrap() < 0.01, "{rep}");

    let r = run_json(&sb, &["-e", "sqlite", "-p", "ram", "-w", "tpcb", "-t", "2000", "--warmup", "0s", "-r", "1"]);
    let rep = &r["cells"][0]["repeats"][0];
    let (n, secs) = (rep["transactions"].as_f64().unwrap(), rep["duration_s"].as_f64().unwrap());
    assert_eq!(n, 2000.0);
    assert!((rep["tps"].as_f64().unwrap() - n / secs).abs() < 1e-6 * n / secs);
    // The measured time is the transactions' time plus the loop around them, not more.
    let busy = n * rep["latency_ms"]["avg"].as_f64().unwrap() / 1000.0;
    assert!(secs < busy * 1.5 + 0.002, "duration {secs} s for {busy} s of transactions");
}

#[test]
fn the_timeline_accounts_for_every_transaction() {
    let sb = Sandbox::new();
    let r = run_json(&sb, &["-e", "memory", "--duration", "2.5s", "--warmup", "0s", "-r", "1"]);
    let rep = &r["cells"][0]["repeats"][0];
    let timeline: Vec<u64> = rep["timeline"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(timeline.len(), 3, "{timeline:?}");
    assert!(timeline.iter().all(|n| *n > 0), "{timeline:?}");
    assert_eq!(timeline.iter().sum::<u64>(), rep["transactions"].as_u64().unwrap());
}

#[test]
fn concurrent_sqlite_writers_retry_and_count_it() {
    let sb = Sandbox::new();
    let r = run_json(
        &sb,
        &["-e", "sqlite", "-p", "ram", "-w", "insert-commit", "-c", "4", "--duration", "0.5s", "-r", "1"],
    );
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(rep["status"], "ok", "{rep}");
    assert!(rep["retries"].as_u64().unwrap() > 0, "4 writers on one SQLite file never hit SQLITE_BUSY? {rep}");
    assert!(rep["verify"]["ok"].as_bool().unwrap());
}

#[test]
fn a_set_value_replaces_the_profiles_own() {
    let sb = Sandbox::new();
    let r = run_json(
        &sb,
        &["-e", "sqlite", "-p", "disk", "-w", "insert-commit", "--set", "synchronous=OFF", "--set", "page_size=8192"],
    );
    let s = &r["cells"][0]["repeats"][0]["settings"];
    assert_eq!((s["synchronous"].as_str(), s["page_size"].as_str()), (Some("0"), Some("8192")), "{s}");
}

#[test]
fn a_writer_locked_out_for_good_cannot_hang_the_run() {
    // With locking_mode=exclusive the first writer never lets go: the other must give up
    // (or be stopped at the deadline) instead of retrying forever.
    let sb = Sandbox::new();
    let out = sb.out("x.json");
    let start = std::time::Instant::now();
    let res = sb
        .cmd(&[
            "run",
            "-e",
            "sqlite",
            "-p",
            "ram",
            "-w",
            "insert-commit",
            "-c",
            "2",
            "-r",
            "1",
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--set", "locking_mode=exclusive"])
        .args(QUICK)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
    assert!(res.status.code().is_some(), "killed by the timeout: {res:?}");
    assert!(read_json(&out)["cells"][0]["repeats"][0]["retries"].as_u64().unwrap() > 0);
    assert!(sb.leftovers().is_empty());
}

#[test]
fn engines_lists_engines_and_probed_locations() {
    let sb = Sandbox::new();
    let out = sb.cmd(&["engines", "--json"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let names: Vec<_> = v["engines"].as_array().unwrap().iter().map(|e| e["engine"].as_str().unwrap()).collect();
    assert_eq!(names, ["sqlite", "memory", "postgres", "mysql", "redis", "mongo"]);
    // scripts/test installs PostgreSQL, so its binaries are found; as root it says who runs it.
    let pg = &v["engines"][2];
    assert_eq!(pg["usable"], true, "{pg}");
    assert!(pg["version"].as_str().unwrap().contains("/bin"), "{pg}");
    assert!(v["engines"][0]["version"].as_str().unwrap().starts_with("3."));
    assert_eq!(v["locations"][1]["fs_type"], "tmpfs");
    for l in v["locations"].as_array().unwrap() {
        assert!(l["fsync"]["median_us"].as_f64().unwrap() > 0.0);
    }
    let text = sb.cmd(&["engines"]).assert().success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert!(text.contains("synchronous") && text.contains("fsync"), "{text}");
    assert!(sb.leftovers().is_empty());
}
