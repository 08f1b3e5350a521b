//! Open loop (`--rate`, `--latency-limit`): the real binary against real SQLite and a real
//! throwaway PostgreSQL. Arrivals are Poisson, so counts are checked against the Poisson
//! spread of the rate asked for, not against fixed figures.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The one repeat of cell `id`.
fn repeat<'a>(r: &'a Value, id: &str) -> &'a Value {
    let c = r["cells"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no cell {id}"));
    let rep = &c["repeats"][0];
    assert_eq!(rep["status"], "ok", "{id}: {rep}");
    rep
}

/// Below capacity, each cell commits what the schedule offered: a sum of Poisson
/// processes is Poisson, so over the measured time d the count has mean and variance
/// rate × d. Two clients each get half the rate (a client given the whole rate would
/// double the count, far outside the band).
#[test]
fn rate_below_capacity_is_met_on_sqlite_and_postgres() {
    let sb = Sandbox::new();
    let out = sb.out("rate.json");
    let rate = 200.0;
    let args = ["run", "-q", "-e", "sqlite,postgres", "-p", "nosync", "-w", "tpcb", "-c", "2", "--rate", "200"];
    sb.cmd(&args)
        .args(["--duration", "3s", "--warmup", "0.3s", "-r", "1", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(f(&r["options"]["rate"]), rate);
    assert!(r["options"].get("latency_limit_ms").is_none());
    for id in ["sqlite/nosync/tpcb/c2", "postgres/nosync/tpcb/c2"] {
        let rep = repeat(&r, id);
        let (n, d) = (u(&rep["transactions"]) as f64, f(&rep["duration_s"]));
        let expected = rate * d;
        // Five standard deviations, plus one for the last transaction straddling the stop.
        let band = 5.0 * expected.sqrt() + 1.0;
        assert!((n - expected).abs() <= band, "{id}: {n} transactions in {d} s, expected {expected} ± {band}");
        assert!(u(&rep["errors"]) == 0, "{id}: {rep}");
        let s = &rep["schedule"];
        let (avg, max) = (f(&s["lag_avg_ms"]), f(&s["lag_max_ms"]));
        // Under capacity the schedule is kept: lag is wake-up delay, far below the 10 ms
        // mean gap of a client (generous: the machine is shared).
        assert!(0.0 < avg && avg <= max && avg < 10.0, "{id}: lag avg {avg}, max {max}");
        assert_eq!((u(&s["skipped"]), u(&s["late"])), (0, 0), "{id}");
        // Latency counts from the scheduled start, so it includes the lag.
        assert!(f(&rep["latency_ms"]["avg"]) >= avg, "{id}: {rep}");
    }
}

/// Far above capacity the schedule runs away: the n-th transaction was due at n/rate but
/// starts at n/capacity, so lag and latency grow with the run's time, reaching nearly its
/// whole length, where a closed loop would report a transaction's own few microseconds.
#[test]
fn rate_above_capacity_shows_as_growing_latency_and_lag() {
    let sb = Sandbox::new();
    let out = sb.out("over.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "nosync", "-w", "tpcb", "--rate", "1e7", "--duration", "2s"];
    sb.cmd(&args).args(["--warmup", "0s", "-r", "1", "-o", out.to_str().unwrap()]).assert().success();
    let r = read_json(&out);
    let rep = repeat(&r, "sqlite/nosync/tpcb/c1");
    let t_ms = f(&rep["duration_s"]) * 1e3;
    assert!(f(&rep["tps"]) < 1e6, "{rep}");
    let lat = &rep["latency_ms"];
    let s = &rep["schedule"];
    // Latency about uniform from 0 to the run's length: median near half, max near all.
    assert!(f(&lat["p50"]) > 0.25 * t_ms, "median latency {} of a {t_ms} ms run", lat["p50"]);
    assert!(f(&lat["max"]) > 0.75 * t_ms && f(&lat["max"]) > 1.5 * f(&lat["p50"]), "{lat}");
    assert!(f(&s["lag_max_ms"]) > 0.75 * t_ms && f(&s["lag_avg_ms"]) > 0.25 * t_ms, "{s}");
}

/// Far above capacity with a limit: slots already later than the limit are skipped, so no
/// transaction starts later than it, and those that run start just inside it and finish
/// past it (late). The figures reach every report format, the same from the results file.
#[test]
fn latency_limit_counts_skipped_and_late_in_every_format() {
    let sb = Sandbox::new();
    let out = sb.out("limit.json");
    let args = ["run", "-e", "sqlite", "-p", "nosync", "-w", "tpcb", "-c", "2", "--rate", "1e6"];
    let o = sb
        .cmd(&args)
        .args(["--latency-limit", "1", "--duration", "1s", "--warmup", "0.1s", "-r", "1", "-f", "json", "-q"])
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    assert_eq!(f(&r["options"]["latency_limit_ms"]), 1.0);
    let rep = repeat(&r, "sqlite/nosync/tpcb/c2");
    let s = &rep["schedule"];
    assert!(u(&s["skipped"]) > 0 && u(&s["late"]) > 0, "{s}");
    assert!(u(&s["late"]) <= u(&rep["transactions"]), "{rep}");
    assert!(f(&s["lag_max_ms"]) <= 1.0, "a transaction started past the 1 ms limit: {s}");

    // The JSON summary on stdout and `dbrace report --format json` agree, field for field.
    let printed: Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = sb.cmd(&["report", out.to_str().unwrap(), "-f", "json"]).output().unwrap();
    let reported: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(printed, reported);
    let row = &reported[0]["schedule"];
    assert_eq!(u(&row["skipped"]), u(&s["skipped"]));
    assert_eq!(u(&row["late"]), u(&s["late"]));
    assert_eq!(f(&row["lag_max_ms"]), f(&s["lag_max_ms"]));
    let slots = u(&rep["transactions"]) + u(&rep["errors"]) + u(&s["skipped"]);
    assert!((f(&row["skipped_pct"]) - 100.0 * u(&s["skipped"]) as f64 / slots as f64).abs() < 1e-9, "{row}");

    let text = sb.cmd(&["report", out.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("sqlite/nosync/tpcb/c2: schedule lag avg"), "{text}");
    assert!(text.contains(&format!("skipped {} (", u(&s["skipped"]))), "{text}");
    assert!(text.contains(&format!("above the 1 ms latency limit {}/", u(&s["late"]))), "{text}");
    let md = sb.cmd(&["report", out.to_str().unwrap(), "-f", "markdown"]).output().unwrap();
    assert!(String::from_utf8_lossy(&md.stdout).contains("- open loop: "));
    let csv = sb.cmd(&["report", out.to_str().unwrap(), "-f", "csv"]).output().unwrap();
    let csv = String::from_utf8_lossy(&csv.stdout);
    let (head, row) = (csv.lines().next().unwrap(), csv.lines().nth(1).unwrap());
    let col = head.split(',').position(|h| h == "skipped").expect("a skipped column");
    assert_eq!(row.split(',').nth(col).unwrap(), u(&s["skipped"]).to_string());
}

/// Without --rate nothing of the open loop appears: no schedule in the file or summaries.
#[test]
fn closed_loop_reports_no_schedule() {
    let sb = Sandbox::new();
    let out = sb.out("closed.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "nosync", "-w", "insert-commit", "-t", "50", "-r", "1"];
    let o = sb.cmd(&args).args(["--warmup", "0s", "-f", "csv", "-o", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("lag_"));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("schedule") && !text.contains("\"rate\""), "{text}");
    let o = sb.cmd(&["report", out.to_str().unwrap(), "-f", "json"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("schedule"));
}
