//! insert-commit's `--rows-per-commit N`: swept on SQLite and PostgreSQL, given on Redis and
//! the memory store, each verified (rows = committed transactions × N) and reported per row
//! and per commit; and a run without it writes and prints what it always did.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

fn cells(v: &Value) -> &Vec<Value> {
    v["cells"].as_array().unwrap()
}

/// The rows and committed transactions a verify detail names, and the N it multiplies by
/// (none for one row per commit): "5000 rows, 500 committed transactions × 10 rows".
fn counted(detail: &str) -> (u64, u64, Option<u64>) {
    let words: Vec<&str> = detail.split_whitespace().collect();
    let n = |i: usize| words[i].trim_end_matches(',').parse::<u64>().unwrap_or_else(|_| panic!("{detail}"));
    assert_eq!((words[1], words[3], words[4]), ("rows,", "committed", "transactions"), "{detail}");
    let per = (words.len() > 5).then(|| {
        assert_eq!((words[5], words[7]), ("×", "rows"), "{detail}");
        n(6)
    });
    (n(0), n(2), per)
}

/// Every repeat of every insert-commit cell measured and verified, its rows = committed × the cell's N,
/// which its id's `+rows-per-commit=N` gives (or `run`, without one); returns the cells' N.
fn check_verified(r: &Value, run: u64) -> Vec<u64> {
    let mut ns = Vec::new();
    for c in cells(r).iter().filter(|c| c["workload"] == "insert-commit") {
        let id = c["id"].as_str().unwrap();
        let n = id.split("+rows-per-commit=").nth(1).map_or(run, |v| v.split('/').next().unwrap().parse().unwrap());
        let mut committed = 0;
        for rep in c["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{id}: {rep}");
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{id}: {rep}");
            // Verify counts every commit on the data set: warm-ups and, on a kept one, the
            // repeats' before.
            let own = rep["transactions"].as_u64().unwrap() + rep["warmup_transactions"].as_u64().unwrap_or(0);
            committed = if rep["kept"] == true { committed + own } else { own };
            let (rows, verified, per) = counted(rep["verify"]["detail"].as_str().unwrap());
            assert_eq!((verified, per), (committed, (n > 1).then_some(n)), "{id}: {rep}");
            assert_eq!(rows, committed * n, "{id}");
        }
        ns.push(n);
    }
    ns
}

#[test]
fn a_sweep_on_sqlite_and_postgres_verifies_and_reports_rows_per_second() {
    let sb = Sandbox::new();
    let out = sb.out("sweep.json");
    let run = sb
        .cmd(&["run", "-q", "-e", "sqlite,postgres", "-p", "disk", "-w", "insert-commit"])
        .args(["--sweep", "rows-per-commit=1,10,100", "-r", "3", "--duration", "0.5s", "--warmup", "0.05s"])
        .args(["--format", "json", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    // The run's own value is the default: not written, as before the option existed.
    assert!(r["options"].get("rows_per_commit").is_none(), "{}", r["options"]);
    let ids: Vec<&str> = cells(&r).iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 6, "{ids:?}");
    assert_eq!(check_verified(&r, 1), [1, 10, 100, 1, 10, 100], "{ids:?}");

    // The summary: tps per commit as ever, and rows per second beside it.
    let rows: Value = serde_json::from_slice(&run.get_output().stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let rows_per_s = |engine: &str, n: u64| {
        let id = format!("{engine}/disk+rows-per-commit={n}/insert-commit/c1");
        let row = rows.iter().find(|x| x["id"] == id).unwrap_or_else(|| panic!("no row {id}"));
        assert_eq!(row["rows_per_commit"], n, "{row}");
        let (tps, per_row) = (&row["tps"], &row["rows_per_s"]);
        for k in ["median", "mean", "lo", "hi"] {
            let (t, p) = (tps[k].as_f64().unwrap(), per_row[k].as_f64().unwrap());
            assert!((p - t * n as f64).abs() <= 1e-9 * p, "{id} {k}: {p} rows/s against {t} tps");
        }
        assert_eq!(per_row["confidence"], tps["confidence"], "{row}");
        per_row["median"].as_f64().unwrap()
    };
    for engine in ["sqlite", "postgres"] {
        let per = [1, 10, 100].map(|n| rows_per_s(engine, n));
        // Each commit is synced on disk: a hundred rows share one sync, one row has it alone.
        assert!(per[2] > 2.0 * per[0], "{engine}: {per:?} rows/s at 1, 10 and 100 rows per commit");
        eprintln!("{engine} disk rows/s at 1, 10, 100 rows per commit: {per:?}");
    }

    // The table keeps its columns and says rows/s under it; the CSV has them as columns.
    let report = |format: &str| {
        let o = sb.cmd(&["report", out.to_str().unwrap(), "--format", format]).assert().success();
        String::from_utf8_lossy(&o.get_output().stdout).into_owned()
    };
    let table = report("table");
    let line = table
        .lines()
        .find(|l| l.starts_with("postgres/disk+rows-per-commit=100/insert-commit/c1: "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains(" rows/s (") && line.contains(") at 100 rows per commit; per row "), "{line}");
    // The costs per row from the counters: a hundredth of a commit's fsync each.
    let fsyncs: f64 = line.split("per row ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
    assert!((0.005..0.02).contains(&fsyncs), "{line}");
    assert!(table.contains("sqlite/disk+rows-per-commit=1/insert-commit/c1: "), "{table}");
    assert_eq!(table.lines().filter(|l| l.contains(" rows/s (")).count(), 6, "{table}");
    let md = report("markdown");
    assert!(md.starts_with("| engine | profile | workload | clients | tps | avg ms |"), "{md}");
    let line = md.lines().find(|l| l.starts_with("- sqlite/disk+rows-per-commit=10/insert-commit/c1: "));
    assert!(line.is_some_and(|l| l.ends_with(" at 10 rows per commit")), "{md}");
    let csv = report("csv");
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name}: {head:?}"));
    let (n, median, tps) = (col("rows_per_commit"), col("rows_per_s_median"), col("tps_median"));
    for record in csv.lines().skip(1) {
        let f: Vec<&str> = record.split(',').collect();
        let (n, rows, tps): (f64, f64, f64) =
            (f[n].parse().unwrap(), f[median].parse().unwrap(), f[tps].parse().unwrap());
        assert!((rows - tps * n).abs() <= 1e-9 * rows, "{record}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn redis_and_the_memory_store_insert_n_keys_per_commit() {
    let sb = Sandbox::new();
    let out = sb.out("kv.json");
    sb.cmd(&["run", "-q", "-e", "redis,memory", "-p", "disk", "-w", "insert-commit", "--rows-per-commit", "10"])
        .args(["-c", "2", "-t", "50", "-r", "2", "--warmup", "0s", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    assert_eq!(r["options"]["rows_per_commit"], 10, "{}", r["options"]);
    assert_eq!(check_verified(&r, 10), [10, 10]);
    for c in cells(&r) {
        // Two clients × 50 transactions × 10 keys, twice on the kept data set.
        let last = c["repeats"].as_array().unwrap().last().unwrap();
        let want = if last["kept"] == true { "2000 rows, 200" } else { "1000 rows, 100" };
        assert!(last["verify"]["detail"].as_str().unwrap().starts_with(want), "{}: {last}", c["id"]);
    }
    let table = sb.cmd(&["report", out.to_str().unwrap()]).assert().success();
    let table = String::from_utf8_lossy(&table.get_output().stdout).into_owned();
    for id in ["redis/disk/insert-commit/c2", "memory/unlogged/insert-commit/c2"] {
        let line = table.lines().find(|l| l.starts_with(&format!("{id}: "))).unwrap_or_else(|| panic!("{table}"));
        assert!(line.contains(" rows/s (") && line.contains(" at 10 rows per commit"), "{line}");
    }
}

#[test]
fn without_the_option_files_and_reports_are_as_before() {
    let sb = Sandbox::new();
    let out = sb.out("plain.json");
    sb.cmd(&["run", "-q", "-e", "sqlite", "-p", "nosync", "-w", "insert-commit,tpcb", "-t", "20", "-r", "1"])
        .args(["--warmup", "0s", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("rows_per_commit"), "{text}");
    assert_eq!(check_verified(&read_json(&out), 1), [1]);
    for format in ["table", "csv", "json"] {
        let o = sb.cmd(&["report", out.to_str().unwrap(), "--format", format]).assert().success();
        let o = String::from_utf8_lossy(&o.get_output().stdout).into_owned();
        assert!(!o.contains("rows/s") && !o.contains("rows_per"), "{format}: {o}");
    }
    // And with it, tpcb's row says nothing of rows: the option is insert-commit's.
    let out = sb.out("ten.json");
    sb.cmd(&["run", "-q", "-e", "sqlite", "-p", "nosync", "-w", "insert-commit,tpcb", "-t", "20", "-r", "1"])
        .args(["--rows-per-commit", "10", "--warmup", "0s", "--format", "json", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let o = sb.cmd(&["report", out.to_str().unwrap(), "--format", "json"]).assert().success();
    let rows: Value = serde_json::from_slice(&o.get_output().stdout).unwrap();
    let by = |w: &str| rows.as_array().unwrap().iter().find(|x| x["workload"] == w).unwrap().clone();
    assert_eq!(by("insert-commit")["rows_per_commit"], 10);
    assert!(by("tpcb").get("rows_per_commit").is_none() && by("tpcb").get("rows_per_s").is_none());
}
