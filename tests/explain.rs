//! Why a cell is as fast as it is, on cases whose answer is known: a durable commit on
//! disk waits for its fsync, one without fsync or on tmpfs does not; a select on cached
//! tables reads no disk; a buffer pool smaller than the data set reads pages for every
//! transaction. Real servers, the real binary, the counters read around each phase.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// `dbrace run ARGS` into a results file, then its JSON rows by cell id.
fn rows(sb: &Sandbox, name: &str, args: &[&str]) -> (Value, Vec<Value>) {
    let out = sb.out(name);
    sb.cmd(&["run", "-q", "-r", "1", "--warmup", "0.5s", "-T", "3", "--out", out.to_str().unwrap()])
        .args(args)
        .assert()
        .success();
    let report = sb.cmd(&["report", out.to_str().unwrap(), "--format", "json"]).assert().success();
    let rows: Vec<Value> = serde_json::from_slice(&report.get_output().stdout).unwrap();
    (read_json(&out), rows)
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no row {id} in {rows:?}"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_durable_postgres_commit_waits_for_its_fsync_and_the_others_do_not() {
    let sb = Sandbox::new();
    let (results, rows) =
        rows(&sb, "pg.json", &["-e", "postgres", "-p", "disk,nosync,ram", "-w", "insert-commit", "-c", "1"]);
    let disk = row(&rows, "postgres/disk/insert-commit/c1");
    let cost = &disk["cost"];
    // One WAL sync per commit, timed by the server, and the disk flushed as often.
    assert!((0.8..1.2).contains(&num(&cost["fsyncs"])), "{cost}");
    assert!(num(&cost["flushes"]) >= 0.8, "{cost}");
    assert!(num(&cost["fsync_us"]) > 0.0 && num(&cost["log_bytes"]) > 100.0, "{cost}");
    assert!(num(&cost["server_cpu_us"]) > 0.0 && num(&cost["client_cpu_us"]) > 0.0, "{cost}");
    assert_eq!(disk["bound"]["fsync_from"], "timed by the server");
    // A hypervisor that steals the CPUs makes every CPU time longer (its exits cost more):
    // the bound is judged on a quiet repeat; a disturbed one still shows a large sync share.
    let cells = results["cells"].as_array().unwrap();
    let disk_cell = cells.iter().find(|c| c["profile"]["name"] == "disk").unwrap();
    let steal = num(&disk_cell["repeats"][0]["noise"]["steal"]);
    if steal < 0.05 {
        assert_eq!(disk["bound"]["bound"], "storage", "{disk}");
    } else {
        assert!(num(&disk["bound"]["shares"]["storage"]) > 0.2, "steal {steal}: {disk}");
    }

    let nosync = row(&rows, "postgres/nosync/insert-commit/c1");
    assert_eq!(num(&nosync["cost"]["fsyncs"]), 0.0, "{nosync}");
    let ram = row(&rows, "postgres/ram/insert-commit/c1");
    // tmpfs: the WAL is synced, at no cost, and no disk is under it.
    assert!(num(&ram["cost"]["fsyncs"]) >= 0.8, "{ram}");
    assert!(ram["cost"].get("flushes").is_none(), "{ram}");
    for r in [nosync, ram] {
        assert_ne!(r["bound"]["bound"], "storage", "{r}");
        assert!(num(&r["bound"]["shares"]["storage"]) < 0.05, "{r}");
    }
    // The storage share predicts the cells without it, each prediction checked against
    // the ratio measured: the prediction is 1 / (1 - share), the measured ratio theirs.
    let share = num(&disk["bound"]["shares"]["storage"]);
    let predicted = disk["predictions"].as_array().unwrap_or_else(|| panic!("no predictions: {disk}"));
    assert_eq!(predicted.len(), 2, "{disk}");
    for p in predicted {
        assert!((num(&p["predicted"]) - 1.0 / (1.0 - share)).abs() < 1e-6, "{p}");
        let cell = row(&rows, p["cell"].as_str().unwrap());
        let measured = num(&cell["tps"]["median"]) / num(&disk["tps"]["median"]);
        assert!((num(&p["measured"]) - measured).abs() < 1e-6 && p["agrees"].is_boolean(), "{p}");
    }
    // The server's own names are kept in the results file, per repeat.
    let rep = &results["cells"][0]["repeats"][0]["counters"];
    assert!(rep["server"]["wal.wal_sync"].is_number() && rep["device"]["flushes"].is_number(), "{rep}");

    // The table names the bound by default; --columns adds the costs; CSV has them.
    let out = sb.out("pg.json");
    let table = sb.cmd(&["report", out.to_str().unwrap(), "--columns", "bound,fsyncs,server-cpu"]).assert().success();
    let text = String::from_utf8_lossy(&table.get_output().stdout).to_string();
    // A cell whose predictions missed is said to be unexplained rather than given a bound.
    let missed = predicted.iter().any(|p| p["agrees"] == false);
    let said = if missed { " unexplained ┆" } else { " storage ┆" };
    assert!(text.contains("fsyncs/tx") && text.contains("server µs/tx") && text.contains(said), "{text}");
    let csv = sb.cmd(&["report", out.to_str().unwrap(), "--format", "csv"]).assert().success();
    let csv = String::from_utf8_lossy(&csv.get_output().stdout).to_string();
    assert!(csv.lines().next().unwrap().contains("fsyncs_per_tx") && csv.contains(",storage,"), "{csv}");
    let lines = text.lines().filter(|l| l.starts_with("predicted: postgres/disk/insert-commit/c1 storage "));
    assert_eq!(lines.count(), 1, "{text}");
}

#[test]
fn a_select_on_cached_tables_reads_no_disk() {
    let sb = Sandbox::new();
    let (_, rows) = rows(&sb, "ro.json", &["-e", "postgres", "-p", "disk", "-w", "select-only", "-c", "1"]);
    let r = row(&rows, "postgres/disk/select-only/c1");
    assert_ne!(r["bound"]["bound"], "disk reads", "{r}");
    assert!(num(&r["cost"]["cache_hit_ratio"]) > 0.99, "{r}");
    assert!(num(&r["cost"]["fsyncs"]) < 0.05, "{r}");
}

#[test]
fn a_buffer_pool_smaller_than_the_data_reads_pages_for_every_transaction() {
    let sb = Sandbox::new();
    let (_, rows) = rows(
        &sb,
        "pool.json",
        &[
            "-e",
            "mysql",
            "-p",
            "disk",
            "-w",
            "oltp-ro",
            "-c",
            "1",
            "--table-size",
            "200000",
            "--sweep",
            "innodb_buffer_pool_size=6M,256M",
        ],
    );
    let small = row(&rows, "mysql/disk+innodb_buffer_pool_size=6M/oltp-ro/c1");
    let big = row(&rows, "mysql/disk+innodb_buffer_pool_size=256M/oltp-ro/c1");
    assert!(num(&small["cost"]["cache_misses"]) > 1.0, "{small}");
    assert!(num(&small["cost"]["cache_hit_ratio"]) < 0.99, "{small}");
    assert!(num(&small["cost"]["disk_read_bytes"]) > 16_000.0, "{small}");
    assert!(num(&big["cost"]["cache_misses"]) < 0.01, "{big}");
    assert!(num(&small["bound"]["shares"]["disk_reads"]) > num(&big["bound"]["shares"]["disk_reads"]), "{small} {big}");
    // The small pool's disk-reads share predicts the large pool's speed-up, and is checked.
    let predictions = small["predictions"].as_array().unwrap_or_else(|| panic!("no predictions: {small}"));
    let p = predictions.iter().find(|p| p["share"] == "disk reads").unwrap_or_else(|| panic!("{small}"));
    assert_eq!(p["cell"], big["id"]);
    assert!(num(&p["predicted"]) > 1.1 && num(&p["measured"]) > 1.0, "{p}");
}

#[test]
fn no_counters_reads_nothing_and_the_table_is_as_before() {
    let sb = Sandbox::new();
    let out = sb.out("none.json");
    let run = sb
        .cmd(&["run", "-e", "sqlite", "-p", "disk", "-w", "insert-commit", "-T", "0.3", "-r", "1", "--no-counters"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    assert!(!text.contains("bound"), "{text}");
    let r = read_json(&out);
    assert!(r["cells"][0]["repeats"][0].get("counters").is_none(), "{r}");
    // With them, SQLite on disk: no server, its flushes from the disk under the location.
    let (_, rows) = rows(&sb, "sqlite.json", &["-e", "sqlite", "-p", "disk", "-w", "insert-commit"]);
    let c = &row(&rows, "sqlite/disk/insert-commit/c1")["cost"];
    assert!(num(&c["flushes"]) >= 0.5 && c.get("server_cpu_us").is_none(), "{c}");
}

/// fsync made a no-op under the servers (libeatmydata, as a disk that lies about its
/// flushes would): a profile that claims power-loss durability is warned about, naming the
/// cell and its numbers; one that claims less is not.
#[test]
fn a_commit_that_claims_power_loss_durability_without_a_flush_is_warned_about() {
    const EAT: &str = "/usr/lib/x86_64-linux-gnu/libeatmydata.so";
    assert!(std::path::Path::new(EAT).exists(), "{EAT} is missing: apt-get install eatmydata");
    let sb = Sandbox::new();
    let run = sb
        .cmd(&["run", "-e", "postgres,sqlite", "-p", "disk,nosync", "-w", "insert-commit", "-T", "1", "-r", "1"])
        .env("LD_PRELOAD", EAT)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    let warned = |id: &str| text.lines().any(|l| l.starts_with(id) && l.contains("survives a power loss, but"));
    assert!(warned("postgres/disk/insert-commit/c1:"), "{text}");
    assert!(text.contains("flushes per commit for the server's"), "{text}");
    assert!(warned("sqlite/disk/insert-commit/c1:"), "{text}");
    assert!(!warned("postgres/nosync/") && !warned("sqlite/nosync/"), "{text}");

    // Without it, the disk's flushes follow the server's fsyncs and nothing is said.
    let (_, rows) = rows(&sb, "synced.json", &["-e", "postgres", "-p", "disk", "-w", "insert-commit"]);
    let r = row(&rows, "postgres/disk/insert-commit/c1");
    assert!(num(&r["cost"]["flushes"]) >= 0.8, "{r}");
    let out = sb.out("synced.json");
    let table = sb.cmd(&["report", out.to_str().unwrap()]).assert().success();
    assert!(!String::from_utf8_lossy(&table.get_output().stdout).contains("survives a power loss, but"));
}
