//! `--max-tries`: 4 clients updating one row at SERIALIZABLE on a real PostgreSQL hit
//! serialization failures; with one try they are failed transactions, with ten they are
//! retried, as pgbench 15 counts them.

mod common;

use common::Sandbox;

const SCRIPT: &str = concat!("script:", env!("CARGO_MANIFEST_DIR"), "/tests/scripts/serializable-branch.sql");

/// One 2 s repeat of the script with `--max-tries tries`: stdout and the repeat.
fn run(sb: &Sandbox, tries: &str) -> (String, serde_json::Value) {
    let out = sb.out(&format!("tries-{tries}.json"));
    // A thread per client: clients sharing one hold their open transactions across each
    // other's turns, which makes ten conflicts in a row far less rare.
    let args = ["run", "-q", "-e", "postgres", "-p", "ram-nosync", "-w", SCRIPT, "-c", "4", "-j", "4", "-T", "2s"];
    let o = sb
        .cmd(&args)
        .args(["-r", "1", "--log-interval", "0.5s", "--max-tries", tries, "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
    let v = common::read_json(&out);
    assert_eq!(v["options"]["max_tries"].as_u64(), tries.parse().ok());
    (stdout, v["cells"][0]["repeats"][0].clone())
}

fn count(r: &serde_json::Value, k: &str) -> u64 {
    r[k].as_u64().unwrap_or(0)
}

#[test]
fn one_try_counts_serialization_failures_as_failed_and_ten_retry_them() {
    let sb = Sandbox::new();
    let (stdout, one) = run(&sb, "1");
    assert!(count(&one, "transactions") > 0, "{one}");
    let failed = count(&one, "failed");
    assert!(failed > 10, "contention on one row fails transactions: {one}");
    assert_eq!((count(&one, "retried"), count(&one, "retries")), (0, 0), "one try is no retry: {one}");
    assert_eq!(count(&one, "errors"), failed, "the only failures are the out-of-tries ones: {one}");
    let sliced: u64 = one["intervals"].as_array().unwrap().iter().map(|i| count(i, "failed")).sum();
    assert_eq!(sliced, failed, "the slices add up to the repeat");
    assert!(stdout.contains(&format!("failed transactions ({failed} out of tries)")), "{stdout}");

    let (stdout, ten) = run(&sb, "10");
    let (retried, retries) = (count(&ten, "retried"), count(&ten, "retries"));
    assert!(retried > 10 && retries >= retried, "{ten}");
    // Retrying helps: a smaller share of transactions fails than with one try, and most
    // retried ones commit. (How much smaller depends on the machine's load: a client
    // descheduled inside its transaction makes the others' tries fail in a row.)
    let share =
        |r: &serde_json::Value| count(r, "failed") as f64 / (count(r, "transactions") + count(r, "failed")) as f64;
    assert!(share(&ten) < share(&one), "one try: {one}\nten tries: {ten}");
    assert!(count(&ten, "failed") < retried, "{ten}");
    let sliced: u64 = ten["intervals"].as_array().unwrap().iter().map(|i| count(i, "retries")).sum();
    assert_eq!(sliced, retries, "the slices add up to the repeat");
    assert!(stdout.contains(&format!("{retried} transactions retried ({retries} retries)")), "{stdout}");
}

#[test]
fn unlimited_tries_need_a_duration() {
    let sb = Sandbox::new();
    let o = sb.cmd(&["run", "-e", "sqlite", "--max-tries", "0", "--transactions", "10"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--max-tries 0") && err.contains("--duration"), "{err}");
    let o = sb.cmd(&["run", "-e", "sqlite", "--max-tries", "-1"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-tries 10"));
}
