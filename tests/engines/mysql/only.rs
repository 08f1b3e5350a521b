//! MySQL's own tests, beyond the conformance suite: pgbench's other scripts, `\gset`'s
//! column types, the load without local files, init-time settings, `engines`, and `--url`
//! over the machine's socket.

use super::{SYSTEM_SERVER, dbrace_databases, require_binaries};
use crate::common::{Sandbox, is_root, read_json};
use serde_json::Value;

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
    if is_root() {
        assert!(version.contains("runs as mysql"), "{version}");
    }
    let o = sb.cmd(&["run", "-q", "-e", "mysql", "--mysql-bin", "/nonexistent"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--mysql-bin /nonexistent: no mariadbd or mysqld there"), "{err}");
}

/// As root: root on the machine's socket (unix_socket, or no password as Debian sets it up).
#[test]
fn url_over_the_machine_socket_as_root() {
    super::require_server();
    if !is_root() {
        return; // only root may log in as root on the socket
    }
    let _turn = SYSTEM_SERVER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let before = dbrace_databases();
    let sb = Sandbox::new();
    let out = sb.out("socket.json");
    let url = "mysql://root@/?socket=/run/mysqld/mysqld.sock";
    sb.cmd(&["run", "-q", "-e", "mysql", "--url", url, "-p", "disk", "-w", "insert-commit", "-t", "50"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    assert_eq!(rep["settings"]["transport"], "socket");
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    assert_eq!(dbrace_databases(), before, "a dbrace database was left on the server");
}
