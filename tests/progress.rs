//! `--progress` lines and `--log-interval` slices: the real binary against real SQLite, the
//! in-process store and a real throwaway PostgreSQL, closed loop and `--rate`. Lines are
//! checked for their cadence and against the repeat's own figures; slices must add up to
//! the repeat exactly (counts, errors and the histogram's count).

mod common;

use common::{Sandbox, read_json};
use dbrace::results::decode_histogram;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// One parsed progress line.
#[derive(Debug)]
struct Line {
    warm_up: bool,
    elapsed: f64,
    tps: f64,
    avg_ms: f64,
    p95_ms: f64,
    errors: u64,
}

fn bad(line: &str) -> ! {
    panic!("unreadable progress line: {line}")
}

/// The progress lines of `label` ("CELL #R") in `stderr`.
fn lines(stderr: &str, label: &str) -> Vec<Line> {
    let head = format!("progress: {label} ");
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&head))
        .map(|rest| {
            let (warm_up, rest) = match rest.strip_prefix("warm-up ") {
                Some(r) => (true, r),
                None => (false, rest),
            };
            let (elapsed, rest) = rest.split_once(" s: ").unwrap_or_else(|| bad(rest));
            let (tps, rest) = rest.split_once(" tps, lat avg ").unwrap_or_else(|| bad(rest));
            let (avg, rest) = rest.split_once(" ms, p95 ").unwrap_or_else(|| bad(rest));
            let (p95, rest) = rest.split_once(" ms, ").unwrap_or_else(|| bad(rest));
            let errors = rest.split_once(' ').unwrap_or_else(|| bad(rest)).0;
            let num = |s: &str| s.parse::<f64>().unwrap_or_else(|_| bad(rest));
            Line {
                warm_up,
                elapsed: num(elapsed),
                tps: num(tps),
                avg_ms: num(avg),
                p95_ms: num(p95),
                errors: errors.parse().unwrap_or_else(|_| bad(rest)),
            }
        })
        .collect()
}

/// Run `args` (quiet, one repeat) and return the results and stderr.
fn run(sb: &Sandbox, name: &str, args: &[&str]) -> (Value, String) {
    let out = sb.out(name);
    let o = sb.cmd(&["run", "-q", "-r", "1", "-o", out.to_str().unwrap()]).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?} failed: {stderr}");
    (read_json(&out), stderr)
}

/// Every cell's one repeat: ok, its lines on the asked cadence and plausible against its
/// own figures, and its slices adding up to it.
fn check(r: &Value, stderr: &str, every: f64, slice: f64, warm_up_lines: usize) {
    let duration = f(&r["options"]["duration_s"]);
    assert_eq!(f(&r["options"]["log_interval_s"]), slice);
    let cells = r["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        let id = c["id"].as_str().unwrap();
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{id}: {rep}");
        let ls = lines(stderr, &format!("{id} #1"));
        let (warm, measured): (Vec<&Line>, Vec<&Line>) = ls.iter().partition(|l| l.warm_up);
        assert_eq!(warm.len(), warm_up_lines, "{id}: {ls:?}\n{stderr}");
        assert!(warm.iter().all(|l| l.tps > 0.0 && l.elapsed < f(&r["options"]["warmup_s"])), "{id}: {warm:?}");
        // One line per `every` of the measured time; the one due at its end is printed
        // before the stop. A tick late by a whole period (a loaded machine) merges two.
        let want = (duration / every).round() as usize;
        assert!(
            measured.len() + 1 >= want && measured.len() <= want,
            "{id}: {} lines, want {want}: {ls:?}",
            measured.len()
        );
        for (k, l) in measured.iter().enumerate() {
            assert!(l.elapsed >= every * (k + 1) as f64 - 0.05, "{id}: line {k} at {} s", l.elapsed);
            assert!(l.tps > 0.0 && l.avg_ms > 0.0 && l.p95_ms > 0.0, "{id}: {l:?}");
            assert!(l.p95_ms <= f(&rep["latency_ms"]["max"]) * 1.05 + 0.01, "{id}: {l:?} vs {}", rep["latency_ms"]);
            assert_eq!(l.errors, 0, "{id}");
        }
        for (a, b) in measured.iter().zip(measured.iter().skip(1)) {
            let gap = b.elapsed - a.elapsed;
            assert!(gap > every * 0.7 && gap < every * 2.2, "{id}: lines {} s apart: {ls:?}", gap);
        }
        // Equal windows over the whole measured time: their mean rate is the repeat's.
        let mean = measured.iter().map(|l| l.tps).sum::<f64>() / measured.len() as f64;
        let tps = f(&rep["tps"]);
        assert!((mean / tps - 1.0).abs() < 0.25, "{id}: lines average {mean} tps, the repeat {tps}: {ls:?}");

        let slices = rep["intervals"].as_array().unwrap_or_else(|| panic!("{id}: no intervals: {rep}"));
        let want = (f(&rep["duration_s"]) / slice - 1e-9).ceil() as usize;
        assert!(slices.len() == want || slices.len() == want + 1, "{id}: {} slices for {want}", slices.len());
        let mut merged = dbrace::results::new_histogram();
        let (mut txns, mut errors) = (0, 0);
        for (k, s) in slices.iter().enumerate() {
            assert!((f(&s["start_s"]) - k as f64 * slice).abs() < 1e-9, "{id}: {s}");
            let h = decode_histogram(s["histogram"].as_str().unwrap()).unwrap();
            assert_eq!(h.len(), u(&s["transactions"]), "{id}: slice {k}");
            merged.add(&h).unwrap();
            txns += u(&s["transactions"]);
            errors += u(&s["errors"]);
        }
        assert!(slices.iter().take(want - 1).all(|s| u(&s["transactions"]) > 0), "{id}: an empty slice: {slices:?}");
        assert_eq!(txns, u(&rep["transactions"]), "{id}");
        assert_eq!(errors, u(&rep["errors"]), "{id}");
        let whole = decode_histogram(rep["histogram"].as_str().unwrap()).unwrap();
        assert_eq!(merged.len(), whole.len(), "{id}");
        assert_eq!((merged.min(), merged.max()), (whole.min(), whole.max()), "{id}");
        assert!(f(&rep["connect_s"]) > 0.0, "{id}: {rep}");
    }
}

#[test]
fn sqlite_and_memory_print_lines_on_cadence_and_slices_add_up() {
    let sb = Sandbox::new();
    let args = ["-e", "sqlite,memory", "-p", "nosync", "-w", "tpcb,insert-commit", "-c", "2", "--duration", "2s"];
    let (r, stderr) = run(&sb, "sqlite.json", &[&args[..], &["--warmup", "1.2s", "--progress", "0.5"]].concat());
    // No --log-interval: no slices, and the file is as before.
    for c in r["cells"].as_array().unwrap() {
        assert!(c["repeats"][0].get("intervals").is_none(), "{c}");
    }
    assert!(r["options"].get("log_interval_s").is_none());
    let html = sb.out("sqlite.html");
    sb.cmd(&["report", sb.out("sqlite.json").to_str().unwrap(), "--html", html.to_str().unwrap()]).assert().success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("in each second") && !page.contains("timeline-latency"), "a run without slices changed");
    // Warm-up lines at 0.5 and 1.0 s, marked; none for the 0.2 s the measurement cut off.
    let sqlite = lines(&stderr, "sqlite/nosync/tpcb/c2 #1");
    assert_eq!(sqlite.iter().filter(|l| l.warm_up).count(), 2, "{stderr}");
    assert!(sqlite.iter().filter(|l| !l.warm_up).count() >= 3, "{stderr}");

    let more = ["--warmup", "1.2s", "--progress", "0.5", "--log-interval", "0.25"];
    let (r, stderr) = run(&sb, "sqlite-slices.json", &[&args[..], &more].concat());
    check(&r, &stderr, 0.5, 0.25, 2);
}

#[test]
fn postgres_prints_lines_and_keeps_slices() {
    let found = std::fs::read_dir("/usr/lib/postgresql").map(|mut d| d.next().is_some()).unwrap_or(false);
    assert!(
        found,
        "PostgreSQL server binaries missing: run scripts/test, which installs them (apt-get install postgresql)"
    );
    let sb = Sandbox::new();
    let args = ["-e", "postgres", "-p", "nosync", "-w", "tpcb", "-c", "2", "--duration", "3s", "--warmup", "0.2s"];
    let (r, stderr) = run(&sb, "pg.json", &[&args[..], &["--progress", "1", "--log-interval", "0.5"]].concat());
    check(&r, &stderr, 1.0, 0.5, 0);
    // The report re-rendered from the file draws the slices and says what setup cost.
    let html = sb.out("pg.html");
    sb.cmd(&["report", sb.out("pg.json").to_str().unwrap(), "--html", html.to_str().unwrap()]).assert().success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("in each 0.5 s slice"), "the timeline is not drawn from slices");
    let at = page.find(r#"data-chart="timeline-latency" data-marks="1""#);
    assert!(at.is_some(), "no latency-over-time panel with the repeat's line");
    assert!(page.contains("Setup per cell") && page.contains("<td>postgres/nosync/tpcb/c2</td>"));
}

/// Open loop: the lines' rate is the schedule's (Poisson: 400/s over 0.5 s windows is
/// 200 ± 14 a window), not the engine's capacity.
#[test]
fn under_rate_lines_show_the_scheduled_rate() {
    let sb = Sandbox::new();
    let args = ["-e", "sqlite", "-p", "nosync", "-w", "tpcb", "-c", "2", "--rate", "400", "--duration", "3s"];
    let more = ["--warmup", "0.2s", "--progress", "0.5", "--log-interval", "1"];
    let (r, stderr) = run(&sb, "rate.json", &[&args[..], &more].concat());
    check(&r, &stderr, 0.5, 1.0, 0);
    let ls = lines(&stderr, "sqlite/nosync/tpcb/c2 #1");
    let mean = ls.iter().map(|l| l.tps).sum::<f64>() / ls.len() as f64;
    assert!((mean - 400.0).abs() < 60.0, "lines average {mean} tps at --rate 400: {ls:?}");
}

/// A refused option: exit 2, one line naming it, no results file (nothing started).
fn refused(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let out = sb.out("refused.json");
    let o = sb.cmd(&["run", "-e", "sqlite", "-o", out.to_str().unwrap()]).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{args:?}: no '{n}' in {stderr}");
    }
    assert!(!out.exists(), "{args:?} wrote results");
}

#[test]
fn zero_and_too_long_intervals_are_bad_input() {
    let sb = Sandbox::new();
    refused(&sb, &["--progress", "0"], &["--progress", "at least 0.1 s"]);
    refused(&sb, &["--log-interval", "0"], &["--log-interval", "greater than 0"]);
    refused(&sb, &["--log-interval", "5s", "--duration", "2s"], &["--log-interval 5s", "--duration 2s", "at most 2s"]);
    // The default duration is 0.3 s.
    refused(&sb, &["--log-interval", "0.5"], &["--log-interval 500ms", "--duration 300ms"]);
    let toml = sb.out("bad.toml");
    std::fs::write(&toml, "duration = \"2s\"\nprogress = \"0\"\n").unwrap();
    refused(&sb, &["--config", toml.to_str().unwrap()], &["bad.toml:2", "--progress"]);

    let o = sb.cmd(&["run", "-e", "sqlite", "--dry-run", "--progress", "2", "--log-interval", "0.2"]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("progress = \"2\"") && text.contains("log-interval = \"0.2\""), "{text}");
    // Counting transactions, the measured time is not known beforehand: any interval goes.
    let o = sb.cmd(&["run", "-e", "sqlite", "--dry-run", "-t", "100", "--log-interval", "1h"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
