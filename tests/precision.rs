//! `--precision`: rounds until every cell's interval is as narrow as asked, through the
//! real binary and real SQLite (and PostgreSQL for bad input that must start nothing).

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;
use std::time::{Duration, Instant};

/// A fast matrix of two cells: sqlite in ram and on disk, short repeats.
const FAST: &[&str] = &["-e", "sqlite", "-p", "ram,disk", "-w", "insert-commit", "-T", "0.2s", "--warmup", "0s"];

fn outcome(r: &Value) -> &Value {
    &r["precision_outcome"]
}

fn cells(r: &Value) -> &Vec<Value> {
    outcome(r)["cells"].as_array().unwrap()
}

fn repeats_in_file(r: &Value, id: &str) -> usize {
    let c = r["cells"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap();
    c["repeats"].as_array().unwrap().len()
}

#[test]
fn a_generous_precision_is_reached_and_recorded() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    // Not disk: an fsync on this shared virtual disk swung one run's repeats ±66% in 40.
    let mut args = vec!["run", "--precision", "40%", "--out", out.to_str().unwrap()];
    args.extend(["-e", "sqlite", "-p", "ram,nosync", "-w", "insert-commit", "-T", "0.2s", "--warmup", "0s"]);
    let o = sb.cmd(&args).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    let opts = &r["options"];
    assert_eq!((opts["precision"].as_f64(), opts["min_repeat"].as_u64()), (Some(0.40), Some(6)));
    assert_eq!((opts["max_repeat"].as_u64(), opts["max_time_s"].as_f64()), (Some(50), Some(600.0)));
    let o = outcome(&r);
    assert_eq!(o["reason"], "reached", "{o}");
    assert_eq!(o["level"], 0.95);
    let rounds = o["rounds"].as_u64().unwrap();
    assert!(rounds >= 6, "{o}");
    assert_eq!(opts["repeat"].as_u64(), Some(rounds), "repeat holds the rounds run");
    for c in cells(&r) {
        let id = c["id"].as_str().unwrap();
        assert_eq!(c["reached"], true, "{c}");
        assert!(c["precision"].as_f64().unwrap() <= 0.40, "{c}");
        assert!(c["confidence"].as_f64().unwrap() >= 0.95, "{c}");
        let n = c["repeats"].as_u64().unwrap();
        assert!((6..=rounds).contains(&n), "{c}");
        assert_eq!(repeats_in_file(&r, id) as u64, n, "{id}");
    }
    // One cell got there last, in the last round.
    assert!(cells(&r).iter().any(|c| c["repeats"].as_u64() == Some(rounds)));
    assert!(stderr.contains("round 1: 2 of 2 cells short of ±40% at 95%: sqlite/ram/insert-commit/c1 "), "{stderr}");
    assert!(stderr.contains(&format!("round {rounds}: no cell left short of ±40% at 95%")), "{stderr}");
    let summary = format!("precision ±40% at 95%: 2 of 2 cells reached it in {rounds} rounds; every cell reached it.");
    assert!(stdout.contains(&summary), "{stdout}");
    assert!(stdout.contains("(repeated until ±40%)"), "{stdout}");
    // The report says the same.
    let report = sb.cmd(&["report", out.to_str().unwrap()]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&report.stdout), stdout);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn an_unreachable_precision_stops_at_max_repeat_and_names_the_cells() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["run", "--precision", "0.01%", "--max-repeat", "7", "--out", out.to_str().unwrap()];
    args.extend(FAST);
    let o = sb.cmd(&args).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "falling short is reported, not a failure: {stderr}");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    assert_eq!(outcome(&r)["reason"], "max-repeat");
    assert_eq!(outcome(&r)["rounds"], 7);
    for c in cells(&r) {
        let id = c["id"].as_str().unwrap();
        assert_eq!((c["repeats"].as_u64(), &c["reached"]), (Some(7), &Value::Bool(false)), "{c}");
        assert_eq!(repeats_in_file(&r, id), 7);
        // Seven repeats give the interval x(2)..x(6), at 87.5%; min–max of 7 is 98.4%.
        let (p, l) = (c["precision"].as_f64().unwrap(), c["confidence"].as_f64().unwrap());
        assert!(p > 0.0001 && (l - 0.984375).abs() < 1e-9, "{c}");
        let line = format!("{id}: short of ±0.01%: ±");
        assert!(stdout.contains(&line) && stdout.contains("at 98.4% after 7 repeats"), "{stdout}");
    }
    assert!(stdout.contains("0 of 2 cells reached it in 7 rounds; stopped at --max-repeat."), "{stdout}");
    assert!(stderr.contains("round 7: no cell left short"), "{stderr}");
}

#[test]
fn an_unreachable_precision_stops_before_max_time() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["run", "-q", "--precision", "0.01%", "--max-time", "3s", "--out", out.to_str().unwrap()];
    args.extend(FAST);
    let start = Instant::now();
    let o = sb.cmd(&args).output().unwrap();
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    assert_eq!(outcome(&r)["reason"], "max-time", "{}", outcome(&r));
    let rounds = outcome(&r)["rounds"].as_u64().unwrap();
    assert!((1..50).contains(&rounds), "{rounds}");
    // The rounds end within 3 s (no round is started that is predicted to end later);
    // the fsync probe, preflight and reporting come on top.
    let started = humantime::parse_rfc3339(r["started_at"].as_str().unwrap()).unwrap();
    let finished = humantime::parse_rfc3339(r["finished_at"].as_str().unwrap()).unwrap();
    let rounds_took = finished.duration_since(started).unwrap();
    assert!(rounds_took <= Duration::from_secs(6), "{rounds_took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(stdout.contains("stopped by --max-time."), "{stdout}");
    assert!(stdout.contains("sqlite/disk/insert-commit/c1: short of ±0.01%"), "{stdout}");
}

#[test]
fn ctrl_c_keeps_the_finished_rounds() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["--precision", "0.01%"];
    args.extend(FAST);
    let mut child = sb.spawn_run(&out, &args);
    let start = Instant::now();
    let finished = || {
        std::fs::read_to_string(&out).ok().and_then(|t| serde_json::from_str::<Value>(&t).ok()).map_or(0, |v| {
            v["cells"].as_array().map_or(0, |c| c.iter().map(|c| c["repeats"].as_array().map_or(0, Vec::len)).sum())
        })
    };
    while finished() < 5 {
        assert!(start.elapsed() < Duration::from_secs(60), "no repeats finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let r = read_json(&out);
    assert_eq!(r["status"], "interrupted");
    let o = outcome(&r);
    assert_eq!(o["reason"], "interrupted");
    let rounds = o["rounds"].as_u64().unwrap();
    assert!(rounds >= 2, "{o}");
    for c in cells(&r) {
        let n = c["repeats"].as_u64().unwrap();
        // Every finished round is kept, and the interrupted one's finished repeats.
        assert!(n == rounds || n == rounds + 1, "{c}");
        assert_eq!(repeats_in_file(&r, c["id"].as_str().unwrap()) as u64, n);
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    let report = sb.cmd(&["report", out.to_str().unwrap()]).assert().success();
    let text = String::from_utf8_lossy(&report.get_output().stdout).to_string();
    assert!(text.contains(&format!("0 of 2 cells reached it in {rounds} rounds; interrupted.")), "{text}");
}

#[test]
fn bad_precision_input_exits_2_before_any_server_starts() {
    let sb = Sandbox::new();
    let out = sb.out("never.json");
    let pg = ["run", "-e", "postgres", "-p", "disk", "-w", "tpcb", "--out", out.to_str().unwrap()];
    for (args, needles) in [
        (&["--precision", "0"][..], &["--precision", "above 0%", "e.g. --precision 3%"][..]),
        (&["--precision", "150%"], &["--precision", "below 100%"]),
        (&["--precision", "sharp"], &["--precision", "not a percentage"]),
        (&["--precision", "3%", "--max-time", "0"], &["--max-time", "greater than zero"]),
        (&["--precision", "3%", "--min-repeat", "0"], &["--min-repeat", "at least 1"]),
        (&["--precision", "3%", "--min-repeat", "9", "--max-repeat", "8"], &["--min-repeat 9", "--max-repeat 8"]),
        (&["--precision", "3%", "--max-repeat", "5"], &["--max-repeat 5 can never reach 95%", "--max-repeat 6"]),
        (&["--precision", "3%", "--repeat", "5"], &["--repeat 5 and --precision", "drop --repeat"]),
        (&["--max-time", "1m"], &["--max-time bounds a --precision run", "add --precision"]),
        (&["--min-repeat", "8"], &["--min-repeat bounds a --precision run"]),
        (&["--max-repeat", "8"], &["--max-repeat bounds a --precision run"]),
    ] {
        let o = sb.cmd(&[&pg[..], args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
        }
        assert!(!out.exists(), "{args:?}: wrote results");
        assert!(sb.no_servers(&["postgres"]), "{args:?}: started a server");
    }
}

#[test]
fn a_dry_run_says_what_precision_will_do_and_a_config_file_can_ask_for_it() {
    let sb = Sandbox::new();
    let mut args = vec!["run", "--dry-run", "--precision", "3%", "--max-time", "2m", "--max-repeat", "20"];
    args.extend(FAST);
    let o = sb.cmd(&args).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.starts_with(
            "would measure 2 cells in interleaved rounds until each is within ±3% at 95%: 6 to 20 repeats a cell, no round started that would end after 2 min; a round ≈ "
        ),
        "{text}"
    );
    assert!(text.contains("\n  sqlite/disk/insert-commit/c1  ≈ ") && text.contains(" s a repeat\n"), "{text}");
    let toml = text.split_once("as a --config file:\n").unwrap().1;
    assert!(toml.contains("precision = \"3%\"") && toml.contains("max-repeat = \"20\""), "{toml}");
    let cfg = sb.out("precise.toml");
    std::fs::write(&cfg, toml).unwrap();
    let again = sb.cmd(&["run", "--config", cfg.to_str().unwrap(), "--dry-run"]).output().unwrap();
    let again = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.lines().next(), text.lines().next(), "{again}");
    // A file's bounds without --precision are refused as on the command line.
    std::fs::write(&cfg, "max_time = \"1m\"\n").unwrap();
    let o = sb.cmd(&["run", "--config", cfg.to_str().unwrap(), "--dry-run"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-time bounds a --precision run"));
}
