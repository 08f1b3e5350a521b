//! What an acknowledged commit survives, end to end: the real binary against real servers
//! records it per repeat from the settings read back, and every format says it.

mod common;

use common::{QUICK, Sandbox, read_json};
use serde_json::Value;
use std::path::Path;

/// `dbrace run ARGS --format json --out OUT` (quick); the summary rows and the file.
fn run(sb: &Sandbox, out: &Path, args: &[&str]) -> (Vec<Value>, Value) {
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["-w", "insert-commit", "--repeat", "1", "--format", "json", "--out", out.to_str().unwrap()]);
    all.extend(QUICK);
    let done = sb.cmd(&all).assert().success();
    let rows: Value = serde_json::from_slice(&done.get_output().stdout).unwrap();
    (rows.as_array().unwrap().clone(), read_json(out))
}

/// Each row's `ENGINE PROFILE` and its `survives` (null where absent).
fn survives(rows: &[Value]) -> Vec<(String, Value)> {
    rows.iter()
        .map(|r| {
            (format!("{} {}", r["engine"].as_str().unwrap(), r["profile"].as_str().unwrap()), r["survives"].clone())
        })
        .collect()
}

/// Every `(cell, survives)` of `want` is among `got`.
fn holds(got: &[(String, Value)], want: &[(&str, &str)]) {
    for (cell, value) in want {
        assert!(got.contains(&(cell.to_string(), Value::from(*value))), "{cell} = {value}: {got:?}");
    }
}

/// The legend line under a table: the one that begins `durability`.
fn legend(table: &str) -> Option<String> {
    table.lines().find(|l| l.trim_start_matches("- ").starts_with("durability")).map(str::to_string)
}

fn report(sb: &Sandbox, file: &Path, format: &str) -> String {
    let done = sb.cmd(&["report", file.to_str().unwrap(), "--format", format]).assert().success();
    String::from_utf8(done.get_output().stdout.clone()).unwrap()
}

#[test]
fn postgres_and_sqlite_rows_and_legend_say_what_each_profile_survives() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let (rows, file) = run(&sb, &out, &["-e", "postgres,sqlite", "-p", "disk,nosync,async,unlogged"]);
    let want = [
        ("postgres disk", "power-loss"),
        ("postgres nosync", "nothing"),
        ("postgres async", "nothing"),
        ("postgres unlogged", "nothing"),
        ("sqlite disk", "power-loss"),
        ("sqlite nosync", "server-crash"),
        ("sqlite async", "server-crash"),
        ("sqlite unlogged", "nothing"),
    ];
    let got = survives(&rows);
    holds(&got, &want);
    assert_eq!(got.len(), want.len(), "{got:?}");
    // Recorded per repeat at measurement time, beside the settings it was read from.
    for c in file["cells"].as_array().unwrap() {
        for r in c["repeats"].as_array().unwrap() {
            assert!(r["survives"].is_string() && r["settings"].is_object(), "{}: {r}", c["id"]);
        }
    }

    let table = report(&sb, &out, "table");
    let line = legend(&table).unwrap_or_else(|| panic!("no durability line:\n{table}"));
    for (cell, value) in want {
        let said = format!("{cell} = {}", value.replace('-', " "));
        assert!(line.contains(&said), "{said}: {line}");
    }
    assert_eq!(legend(&report(&sb, &out, "markdown")).as_deref(), Some(format!("- {line}").as_str()));
    let csv = report(&sb, &out, "csv");
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|h| *h == "survives").expect("a survives column");
    let pg_disk = csv.lines().find(|l| l.starts_with("postgres/disk/")).unwrap();
    assert_eq!(pg_disk.split(',').nth(col), Some("power-loss"), "{csv}");

    let html = sb.out("r.html");
    sb.cmd(&["report", out.to_str().unwrap(), "--html", html.to_str().unwrap()]).assert().success();
    let page = std::fs::read_to_string(&html).unwrap();
    let summary = &page[page.find(r#"id="summary""#).unwrap()..page.find(r#"id="tps""#).unwrap_or(page.len())];
    assert!(summary.contains(r#"id="durability""#) && summary.contains("sqlite nosync = server crash"), "{summary}");
}

#[test]
fn mariadb_and_redis_follow_their_settings() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let (rows, _) = run(&sb, &out, &["-e", "mysql,redis", "-p", "disk,ram,async,nosync"]);
    let got = survives(&rows);
    holds(
        &got,
        &[
            ("mysql disk", "power-loss"),
            ("mysql ram", "server-crash"),
            ("mysql async", "server-crash"),
            ("mysql nosync", "nothing"),
            ("redis disk", "power-loss"),
            ("redis ram", "server-crash"),
            // everysec may postpone the AOF write behind a running fsync and reply anyway.
            ("redis async", "nothing"),
            ("redis nosync", "server-crash"),
        ],
    );
}

#[test]
fn a_set_value_moves_the_answer_as_it_moves_the_settings() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let (rows, file) = run(&sb, &out, &["-e", "postgres", "-p", "disk", "--set", "fsync=off"]);
    assert_eq!(file["cells"][0]["repeats"][0]["settings"]["fsync"], "off");
    assert_eq!(survives(&rows), vec![("postgres disk".to_string(), Value::from("server-crash"))]);
}

#[test]
fn a_composed_profile_is_judged_by_its_settings_not_its_base() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let profiles = "disk+full_page_writes=off,cache=disk+fsync=off+synchronous_commit=off,disk+mysql.sync_binlog=0";
    let (rows, file) = run(&sb, &out, &["-e", "postgres,mysql", "-p", profiles]);
    let got = survives(&rows);
    holds(
        &got,
        &[
            ("postgres disk+full_page_writes=off", "server-crash"),
            ("postgres cache", "nothing"),
            ("postgres disk+mysql.sync_binlog=0", "power-loss"),
            ("mysql disk+mysql.sync_binlog=0", "power-loss"),
        ],
    );
    // MariaDB has no full_page_writes or fsync: those profiles are PostgreSQL's alone.
    assert_eq!(got.len(), 4, "{got:?}");
    let cell = |id: &str| file["cells"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap().clone();
    let cache = cell("postgres/cache/insert-commit/c1");
    assert_eq!(cache["repeats"][0]["settings"]["fsync"], "off");
    assert_eq!(cache["profile"]["settings"][1], serde_json::json!(["synchronous_commit", "off"]));
    assert_eq!(cell("mysql/disk+mysql.sync_binlog=0/insert-commit/c1")["profile"]["settings"][0][0], "sync_binlog");
}

#[test]
fn a_url_server_is_judged_by_what_it_says() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let url = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";
    let (rows, _) = run(&sb, &out, &["-e", "postgres", "--url", url, "-p", "disk,async"]);
    let got = survives(&rows);
    // The test cluster runs with PostgreSQL's defaults; async is SET per session.
    assert!(got.contains(&("postgres disk".to_string(), Value::from("power-loss"))), "{got:?}");
    assert!(got.contains(&("postgres async".to_string(), Value::from("nothing"))), "{got:?}");
}

/// A Redis whose CONFIG is renamed away hides its persistence: unknown, not a guess.
#[test]
fn a_server_that_hides_its_settings_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("redis.sock");
    let mut server = std::process::Command::new("redis-server")
        .args(["--port", "0", "--unixsocket"])
        .arg(&sock)
        .args(["--unixsocketperm", "700", "--save", "", "--appendonly", "yes", "--appendfsync", "always"])
        .args(["--rename-command", "CONFIG", "", "--dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("redis-server (apt-get install redis-server)");
    let start = std::time::Instant::now();
    while !sock.exists() {
        assert!(start.elapsed().as_secs() < 10, "redis-server did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let url = format!("redis+unix://{}", sock.display());
    let (rows, file) = run(&sb, &out, &["-e", "redis", "--url", &url, "-p", "disk"]);
    let _ = server.kill();
    let _ = server.wait();
    let settings = &file["cells"][0]["repeats"][0]["settings"];
    assert!(settings["appendfsync"].as_str().unwrap().starts_with("(not readable"), "{settings}");
    assert_eq!(survives(&rows), vec![("redis disk".to_string(), Value::from("unknown"))]);
    let line = legend(&report(&sb, &out, "table")).unwrap();
    assert!(line.ends_with("redis disk = unknown"), "{line}");
}

/// Files from before: no `survives`, no legend line, and they still load.
#[test]
fn an_old_file_says_nothing_and_a_swapping_ram_location_is_named() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    run(&sb, &out, &["-e", "sqlite", "-p", "disk"]);
    let mut file = read_json(&out);
    for c in file["cells"].as_array_mut().unwrap() {
        for r in c["repeats"].as_array_mut().unwrap() {
            assert!(r.as_object_mut().unwrap().remove("survives").is_some());
        }
    }
    let ram = file["locations"][1]["path"].as_str().unwrap().to_string();
    file["locations"][1]["swap_bytes"] = Value::from(2u64 << 30);
    let old = sb.out("old.json");
    std::fs::write(&old, serde_json::to_string(&file).unwrap()).unwrap();
    let table = report(&sb, &old, "table");
    assert_eq!(legend(&table), None, "{table}");
    let json: Value = serde_json::from_str(&report(&sb, &old, "json")).unwrap();
    assert!(json[0].get("survives").is_none(), "{json}");
    let warning = table.lines().find(|l| l.starts_with("warning: ")).unwrap_or_else(|| panic!("no warning:\n{table}"));
    assert!(warning.contains(&ram) && warning.contains("2.0 GiB") && warning.contains("disk speed"), "{warning}");
    assert!(table.contains("│ sqlite ┆ disk    ┆ insert-commit"), "the report still renders:\n{table}");
}
