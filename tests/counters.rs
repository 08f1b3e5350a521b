//! The counters workload on every engine, by the real binary: a write row and a read row
//! per engine, every increment tracked read back and summed at all seven granularities,
//! every read's buckets checked, both SQL schemas, --url servers, and bad options refused
//! before any server starts.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// The read data set of 10 keys over the default 30 days of hourly reads, worked out by
/// hand: per key 720 tracks (one an hour) in 720 minute, 720 hour, 30 day, 5 week (from
/// Monday 2023-12-11), 2 month, 2 quarter and 2 year buckets.
const DATA_SET: &str =
    "data set: 7200 tracks × 10 counters read back in 14810 buckets of 7 granularities: every sum = tracks × increment";

/// Run `dbrace run ARGS` quietly into a results file; assert it succeeded; its stdout and results.
fn run(sb: &Sandbox, name: &str, args: &[&str]) -> (String, Value) {
    let out = sb.out(name);
    let r = sb.cmd(&["run", "-q", "--out", out.to_str().unwrap()]).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(r.status.success(), "{args:?}: {}\n{stdout}", String::from_utf8_lossy(&r.stderr));
    (stdout, read_json(&out))
}

/// Every cell verified: writes read back as tracked, reads returned their buckets.
fn check_cells(r: &Value, engines: &[&str], per_client: Option<u64>) {
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2 * engines.len(), "{r}");
    for e in engines {
        for w in ["counters-write", "counters-read"] {
            let c = cells.iter().find(|c| c["engine"] == *e && c["workload"] == w);
            let c = c.unwrap_or_else(|| panic!("no {e} {w} cell in {r}"));
            let rep = &c["repeats"][0];
            let id = c["id"].as_str().unwrap();
            let detail = rep["verify"]["detail"].as_str().unwrap();
            assert_eq!(rep["status"], "ok", "{id}: {rep}");
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{id}: {detail}");
            assert_eq!(rep["errors"], 0, "{id}: {rep}");
            if let Some(n) = per_client {
                assert_eq!(rep["transactions"].as_u64().unwrap(), n * c["clients"].as_u64().unwrap(), "{id}");
            }
            let committed = rep["transactions"].as_u64().unwrap() + rep["warmup_transactions"].as_u64().unwrap();
            if w == "counters-write" {
                // Every track committed, warm-up included, is in every granularity's sums.
                let head = format!("{committed} tracks × 10 counters read back in ");
                assert!(detail.starts_with(&head), "{id}: {detail}");
                assert!(detail.ends_with("every sum = tracks × increment"), "{id}: {detail}");
            } else {
                assert_eq!(detail, format!("{committed} reads returned their range's buckets, 0 did not; {DATA_SET}"));
            }
        }
    }
}

/// A row in the printed table for each engine and half.
fn check_table(stdout: &str, engines: &[&str]) {
    for e in engines {
        for w in ["counters-write", "counters-read"] {
            let rows = stdout.lines().filter(|l| l.contains(&format!(" {e} ")) && l.contains(&format!(" {w} ")));
            assert_eq!(rows.count(), 1, "{e} {w} in:\n{stdout}");
        }
    }
}

#[test]
fn every_engine_writes_and_reads_back_every_counter() {
    let sb = Sandbox::new();
    let all = ["sqlite", "memory", "postgres", "mysql", "redis"];
    let common = ["-p", "nosync", "-w", "counters", "-t", "200", "-r", "1", "--warmup", "0.05s"];
    let (stdout, r) =
        run(&sb, "json.json", &[&["-e", &all.join(",")][..], &common, &["--counters-keys", "10"]].concat());
    check_table(&stdout, &all);
    check_cells(&r, &all, Some(200));
    let o = &r["options"]["counters"];
    assert_eq!((o["keys"].as_u64(), o["values"].as_u64()), (Some(10), Some(10)), "{o}");
    assert_eq!(
        (o["range"].as_str(), o["schema"].as_str(), o["spread_s"].as_u64()),
        (Some("1d:hour"), Some("json"), Some(2_592_000))
    );

    // A row per counter on the SQL engines.
    let sql = ["sqlite", "postgres", "mysql"];
    let list = sql.join(",");
    let rows = [&["-e", &list][..], &common, &["--counters-keys", "10", "--counters-schema", "rows"]].concat();
    let (stdout, r) = run(&sb, "rows.json", &rows);
    check_table(&stdout, &sql);
    check_cells(&r, &sql, Some(200));
    assert_eq!(r["options"]["counters"]["schema"], "rows");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(&["postgres", "mariadbd", "mysqld", "redis-server"]));
}

/// Two clients on a clock paced by time, in the volatile profile (MariaDB's MEMORY tables,
/// which take no JSON column and index by hash unless told), 25 counters and daily reads.
#[test]
fn concurrent_clients_on_a_timed_clock_and_volatile_tables() {
    let sb = Sandbox::new();
    let engines = ["sqlite", "mysql", "redis"];
    let args = ["-e", "sqlite,mysql,redis", "-p", "unlogged", "-w", "counters", "-c", "2", "-T", "0.3s"];
    let opts = ["--warmup", "0.05s", "-r", "1", "--counters-keys", "3", "--counters-values", "25"];
    let range = ["--counters-range", "7d:day", "--counters-spread", "60d"];
    let (stdout, r) = run(&sb, "timed.json", &[&args[..], &opts, &range].concat());
    check_table(&stdout, &engines);
    for c in r["cells"].as_array().unwrap() {
        let rep = &c["repeats"][0];
        let detail = rep["verify"]["detail"].as_str().unwrap();
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert_eq!(rep["errors"], 0, "{}: {rep}", c["id"]);
        assert!(detail.contains("× 25 counters") && detail.contains("every sum = tracks × increment"), "{detail}");
        if c["workload"] == "counters-read" {
            // One track a day over 60 days, for 3 keys: per key 60 minute, 60 hour, 60 day,
            // 10 week (Mondays 2023-12-11 to 2024-02-12), 3 month, 2 quarter, 2 year buckets.
            assert!(
                detail.contains("0 did not; data set: 180 tracks × 25 counters read back in 591 buckets"),
                "{detail}"
            );
        }
    }
    assert!(sb.no_servers(&["mariadbd", "mysqld", "redis-server"]));
}

/// The machine's own servers (scripts/test sets them up): each repeat in a database or key
/// prefix of its own, dropped after.
#[test]
fn url_targets() {
    let sb = Sandbox::new();
    let urls = [
        "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test",
        "mysql://dbrace_test:not-a-real-secret@127.0.0.1:3306/",
        "redis://127.0.0.1:6379/0",
    ];
    for port in [5432, 3306, 6379] {
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(), "no server on :{port}: run scripts/test");
    }
    let engines = ["postgres", "mysql", "redis"];
    let mut args = vec!["-e", "postgres,mysql,redis", "-p", "disk", "-w", "counters", "-t", "30", "-r", "1"];
    args.extend(["--warmup", "0s", "--counters-keys", "10"]);
    for u in urls {
        args.extend(["--url", u]);
    }
    let (stdout, r) = run(&sb, "url.json", &args);
    assert!(!stdout.contains("not-a-real-secret"));
    check_table(&stdout, &engines);
    check_cells(&r, &engines, Some(30));
}

/// Refused with one line naming the problem, exit 2, and no server reached: the run's
/// server is a `--url` where nothing listens, which preflight would report first.
#[test]
fn bad_options_are_refused_before_any_server_starts() {
    let sb = Sandbox::new();
    let base = ["run", "-e", "postgres", "--url", "postgres://dbrace@127.0.0.1:1/none"];
    for (args, needle) in [
        (&["-w", "counters"][..], "cannot connect"),
        (&["--counters-values", "0"], "counters-values must be at least 1"),
        (&["--counters-values", "51"], "counters-values must be at most 50"),
        (&["--counters-keys", "ten"], "counters-keys must be a whole number"),
        (&["--counters-spread", "1y"], "unknown unit 'y' in counters-spread '1y'; use s, m, h, d or w"),
        (&["--counters-spread", "-3d"], "counters-spread '-3d' is not a span of time"),
        (&["--counters-range", "1h:day"], "shorter than one day bucket (1d)"),
        (&["--counters-range", "1d:fortnight"], "unknown granularity 'fortnight'"),
        (&["--counters-schema", "xml"], "invalid value 'xml'"),
        (&["-w", "counters", "--counters-keys", "1000000"], "use fewer --counters-keys"),
        (&["-w", "counters-read", "--counters-range", "30d:minute"], "reads up to 43201 buckets at a time"),
    ] {
        let out = sb.cmd(&base).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in: {err}");
    }
    // Options only the read data set cannot take do not stop a write-only run.
    let out = sb.out("write.json");
    let ok =
        ["run", "-q", "-e", "memory", "-w", "counters-write", "-t", "5", "-r", "1", "--counters-range", "30d:minute"];
    sb.cmd(&ok).args(["--out", out.to_str().unwrap()]).assert().success();
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
