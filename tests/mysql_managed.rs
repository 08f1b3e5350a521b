//! Throwaway MariaDB servers: every profile, settings read back, data and redo log where
//! the profile says, nothing left behind after a normal end, Ctrl-C, SIGTERM or SIGKILL.
//! scripts/test installs the server binaries when they are missing.

mod common;

use common::{Sandbox, read_json, servers_under};
use serde_json::Value;
use std::time::{Duration, Instant};

const MYSQL: &[&str] = &["mariadbd", "mysqld"];

fn require_binaries() {
    let found = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld", "/usr/bin/mariadbd"]
        .iter()
        .any(|p| std::path::Path::new(p).is_file());
    assert!(
        found,
        "MariaDB server binaries missing: run scripts/test, which installs them (apt-get install mariadb-server)"
    );
}

/// The settings recorded for one cell's first repeat.
fn settings(cells: &[Value], id: &str) -> Value {
    let c = cells.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no cell {id}"));
    c["repeats"][0]["settings"].clone()
}

#[test]
fn every_profile_runs_verifies_and_reads_back() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    sb.cmd(&[
        "run",
        "-q",
        "-e",
        "mysql",
        "-p",
        "disk,ram,async,nosync,ram-nosync,unlogged,wal-ram",
        "-w",
        "tpcb,insert-commit",
    ])
    .args(["-c", "2", "-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
    .assert()
    .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 14);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 100);
        assert!(rep["engine_version"].as_str().unwrap().contains("MariaDB"), "{}", rep["engine_version"]);
    }
    let s = |p: &str| settings(cells, &format!("mysql/{p}/tpcb/c2"));
    let (disk, ram) = (sb.disk.path().to_string_lossy().to_string(), sb.ram.path().to_string_lossy().to_string());
    let disk_fs = r["locations"][0]["fs_type"].as_str().unwrap().to_string();
    // Where the data and the redo log really are, by the server's datadir and the filesystem.
    for (p, base, fs) in [
        ("disk", &disk, disk_fs.as_str()),
        ("ram", &ram, "tmpfs"),
        ("nosync", &disk, disk_fs.as_str()),
        ("ram-nosync", &ram, "tmpfs"),
        ("unlogged", &disk, disk_fs.as_str()),
        ("wal-ram", &disk, disk_fs.as_str()),
    ] {
        assert!(s(p)["datadir"].as_str().unwrap().starts_with(base.as_str()), "{p}: {}", s(p));
        assert_eq!(s(p)["datadir_fs"], fs, "{p}: {}", s(p));
    }
    let redo = s("wal-ram")["redo_log"].as_str().unwrap().to_string();
    assert!(redo.starts_with(&ram) && redo.ends_with("(tmpfs)"), "{redo}");
    assert!(s("wal-ram")["innodb_log_group_home_dir"].as_str().unwrap().starts_with(&ram), "{}", s("wal-ram"));
    assert!(s("disk")["redo_log"].as_str().unwrap().ends_with(&format!("({disk_fs})")), "{}", s("disk"));
    // Durability as InnoDB says it is.
    let flush = |p: &str| s(p)["innodb_flush_log_at_trx_commit"].as_str().unwrap().to_string();
    let doublewrite = |p: &str| s(p)["innodb_doublewrite"].as_str().unwrap().to_string();
    for (p, f, dw, sync_binlog) in [
        ("disk", "1", "1", "1"),
        ("ram", "1", "1", "1"),
        ("async", "2", "1", "0"),
        ("nosync", "0", "0", "0"),
        ("ram-nosync", "0", "0", "0"),
        ("unlogged", "1", "1", "1"),
    ] {
        assert_eq!((flush(p), doublewrite(p)), (f.to_string(), dw.to_string()), "{p}: {}", s(p));
        assert_eq!(s(p)["sync_binlog"], sync_binlog, "{p}");
    }
    assert_eq!(s("unlogged")["default_storage_engine"], "MEMORY");
    assert_eq!(s("disk")["default_storage_engine"], "InnoDB");
    assert_eq!(s("disk")["transport"], "socket");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(MYSQL));
}

#[test]
fn pgbench_read_and_update_scripts_verify() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram,unlogged", "-w", "select-only,simple-update"])
        .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    for c in r["cells"].as_array().unwrap() {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert!(rep["verify"]["detail"].as_str().unwrap().contains("100000 accounts"), "{}", rep["verify"]);
    }
}

/// `\gset` reads each binary-protocol type as text: dates and times first, so a value
/// read at the wrong length shifts every number after it and the `\if` divides by zero.
#[test]
fn gset_reads_every_column_type() {
    require_binaries();
    let sb = Sandbox::new();
    let select = "SELECT DATE('2024-01-02') AS d, TIMESTAMP('2024-01-02 03:04:05.5') AS ts, TIME('-27:04:05') AS tm, \
                  NULL AS n, 'text' AS s, 5 AS five, CAST(-3 AS SIGNED) AS neg, CAST(2.5 AS DECIMAL(5,2)) AS dec2, \
                  1.5e0 AS dbl, CAST(200 AS UNSIGNED) AS u \\gset";
    let check =
        "\\if :five <> 5 or :neg <> -3 or :dec2 <> 2.5 or :dbl <> 1.5 or :u <> WANT\n\\set boom 1 / 0\n\\endif\n";
    for (want, ok) in [("200", true), ("201", false)] {
        let script = sb.out(&format!("typed-{want}.sql"));
        std::fs::write(&script, format!("{select}\n{}", check.replace("WANT", want))).unwrap();
        let out = sb.out(&format!("typed-{want}.json"));
        let w = format!("script:{}", script.display());
        let run = sb
            .cmd(&["run", "-q", "-e", "mysql", "-p", "nosync", "--script-data", "none", "-w", &w])
            .args(["-t", "20", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
            .assert();
        if ok {
            run.success()
        } else {
            run.failure()
        };
        let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
        assert_eq!(rep["status"] == "ok", ok, "u <> {want}: {rep}");
        if !ok {
            assert!(rep["error"].as_str().unwrap().contains(":3: division by zero"), "{rep}");
        }
    }
}

#[test]
fn without_local_files_the_load_falls_back_to_inserts() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "nosync", "-w", "tpcb", "--set", "local_infile=OFF"])
        .args(["-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    assert_eq!(rep["settings"]["local_infile"], "0", "{}", rep["settings"]);
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    assert!(rep["verify"]["detail"].as_str().unwrap().contains("100000 accounts"), "{}", rep["verify"]);
}

#[test]
fn set_and_sweep_values_reach_the_server_and_a_bad_one_is_bad_input() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram", "-w", "insert-commit"])
        .args(["--sweep", "innodb_buffer_pool_size=128M,256M", "--set", "innodb_log_file_size=48M"])
        .args(["-T", "0.2s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    let pool = |v: &str| settings(cells, &format!("mysql/ram+innodb_buffer_pool_size={v}/insert-commit/c1"));
    assert_eq!(pool("128M")["innodb_buffer_pool_size"], (128u64 << 20).to_string());
    assert_eq!(pool("256M")["innodb_buffer_pool_size"], (256u64 << 20).to_string());
    assert_eq!(pool("256M")["innodb_log_file_size"], (48u64 << 20).to_string());
    // Refused at start, unknown, or quietly adjusted by the server (read back: not what was set).
    for (set, needle) in [
        ("innodb_buffer_pool_size=lots", "'lots'"),
        ("no_such_variable_dbrace=1", "no_such_variable_dbrace"),
        ("table_open_cache=1", "did not take effect on mysql: table_open_cache is 10, expected 1"),
    ] {
        let o = sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram", "--set", set]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(needle) && err.contains("--set"), "{set}: {err}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn an_init_time_setting_gets_its_own_template() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram", "-w", "tpcb", "--set", "innodb_page_size=8k"])
        .args(["-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    assert_eq!(rep["settings"]["innodb_page_size"], "8192", "{}", rep["settings"]);
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
}

#[test]
fn tcp_transport_uses_a_free_port_never_3306() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("tcp.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram", "-w", "tpcb", "--transport", "tcp", "-t", "50"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    let via = rep["settings"]["transport"].as_str().unwrap().to_string();
    assert!(via.starts_with("tcp 127.0.0.1:") && !via.ends_with(":3306"), "{via}");
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
}

#[test]
fn engines_lists_mysql_with_its_version_and_user() {
    require_binaries();
    let sb = Sandbox::new();
    let o = sb.cmd(&["engines", "--json"]).output().unwrap();
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = v["engines"].as_array().unwrap().iter().find(|e| e["engine"] == "mysql").unwrap().clone();
    assert_eq!(e["usable"], true, "{e}");
    let version = e["version"].as_str().unwrap();
    assert!(version.contains("MariaDB") && version.contains("mariadbd"), "{version}");
    if unsafe { libc::geteuid() } == 0 {
        assert!(version.contains("runs as mysql"), "{version}");
    }
    let o = sb.cmd(&["run", "-q", "-e", "mysql", "--mysql-bin", "/nonexistent"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--mysql-bin /nonexistent: no mariadbd or mysqld there"), "{err}");
}

#[test]
fn interrupted_and_killed_runs_leave_no_server_and_no_directory() {
    require_binaries();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let sb = Sandbox::new();
        let out = sb.out("my.json");
        let mut child = sb.spawn_run(&out, &["-e", "mysql", "-p", "disk,ram", "-w", "tpcb", "-T", "0.5s", "-r", "20"]);
        let start = Instant::now();
        while sb.no_servers(MYSQL) {
            assert!(start.elapsed() < Duration::from_secs(30), "no server started");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        if signal != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + signal));
        }
        // The parent-death signal takes the server down even after SIGKILL.
        let start = Instant::now();
        while !sb.no_servers(MYSQL) {
            assert!(start.elapsed() < Duration::from_secs(10), "server left running after signal {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
        if signal == libc::SIGKILL {
            sb.clean_reaps_a_killed_run();
        }
        assert!(sb.leftovers().is_empty(), "signal {signal} left {:?}", sb.leftovers());
    }
}

#[test]
fn a_server_killed_mid_run_fails_its_cell_and_the_run_goes_on() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    let child = sb.spawn_run(&out, &["-e", "mysql", "-p", "disk,ram", "-w", "insert-commit", "-T", "3s", "-r", "1"]);
    sb.wait_past_preflight(&out);
    let start = Instant::now();
    let pid = loop {
        if let Some((pid, _)) = servers_under(MYSQL, sb.disk.path()).first() {
            break *pid;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no disk server");
        std::thread::sleep(Duration::from_millis(20));
    };
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(1), "a failed cell makes the run fail");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells[0]["repeats"][0]["status"], "failed", "{}", cells[0]);
    assert!(!cells[0]["repeats"][0]["error"].as_str().unwrap().is_empty());
    assert_eq!(cells[1]["repeats"][0]["status"], "ok", "{}", cells[1]);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(MYSQL));
}
