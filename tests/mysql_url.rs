//! MySQL against an existing server (`--url`): the machine's own MariaDB on
//! 127.0.0.1:3306, which scripts/test installs and starts when it is missing and gives the
//! account `dbrace_test` with the test password.

mod common;

use common::{Sandbox, read_json};
use std::process::Command;

const URL: &str = "mysql://dbrace_test:not-a-real-secret@127.0.0.1:3306/";

/// The server must be there: a missing server is a loud failure, not a skipped test.
fn require_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:3306").is_ok();
    assert!(
        ok,
        "no MariaDB on 127.0.0.1:3306: run scripts/test, which installs and starts it (apt-get install mariadb-server)"
    );
}

/// The server's dbrace_* databases, by the mariadb client (not by dbrace).
fn dbrace_databases() -> String {
    let out = Command::new("mariadb")
        .env("MYSQL_PWD", "not-a-real-secret")
        .args(["-h", "127.0.0.1", "-P", "3306", "-u", "dbrace_test", "-N", "-e"])
        .arg("SELECT group_concat(schema_name) FROM information_schema.schemata WHERE schema_name LIKE 'dbrace\\_%'")
        .output()
        .expect("the mariadb client runs");
    assert!(out.status.success(), "{}: run scripts/test", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn url_target_runs_profiles_verifies_and_cleans_up() {
    require_server();
    let sb = Sandbox::new();
    let out = sb.out("my.json");
    let before = dbrace_databases();
    let run = sb
        .cmd(&["run", "-q", "-e", "mysql", "--url", URL, "-p", "disk,unlogged", "-w", "insert-commit,tpcb"])
        .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "1", "--set", "sort_buffer_size=1M"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 200);
        assert!(rep["engine_version"].as_str().unwrap().contains("MariaDB"), "{}", rep["engine_version"]);
        // TCP as asked, not the socket the server would point the driver to.
        assert_eq!(rep["settings"]["transport"], "tcp 127.0.0.1:3306");
        // A session setting, applied on every connection and read back.
        assert_eq!(rep["settings"]["sort_buffer_size"], "1048576", "{}", rep["settings"]);
    }
    let setting = |id: &str, key: &str| {
        cells.iter().find(|c| c["id"] == id).unwrap()["repeats"][0]["settings"][key].as_str().unwrap().to_string()
    };
    assert_eq!(setting("mysql/unlogged/tpcb/c2", "default_storage_engine"), "MEMORY");
    assert_eq!(setting("mysql/disk/tpcb/c2", "default_storage_engine"), "InnoDB");
    // The password stays out of everything dbrace writes.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("not-a-real-secret") && text.contains("dbrace_test:***@"), "password leaked");
    let o = run.get_output();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("not-a-real-secret"));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not-a-real-secret"));
    // A global variable cannot be set per session: refused, and its database dropped.
    let o =
        sb.cmd(&["run", "-q", "-e", "mysql", "--url", URL, "--set", "innodb_buffer_pool_size=1G"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("only session variables apply") && err.trim_end().lines().count() == 1, "{err}");
    if unsafe { libc::geteuid() } == 0 {
        // root on the machine's socket (unix_socket, or no password as Debian sets it up).
        let out = sb.out("socket.json");
        let url = "mysql://root@/?socket=/run/mysqld/mysqld.sock";
        sb.cmd(&["run", "-q", "-e", "mysql", "--url", url, "-p", "disk", "-w", "insert-commit", "-t", "50"])
            .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
            .assert()
            .success();
        let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
        assert_eq!(rep["settings"]["transport"], "socket");
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    }
    // (The other test of this file creates no database.)
    assert_eq!(dbrace_databases(), before, "a dbrace database was left on the server");
}

#[test]
fn url_mistakes_are_one_line_and_exit_2() {
    require_server();
    let sb = Sandbox::new();
    let wrong = "mysql://dbrace_test:wrong-secret-dbrace@127.0.0.1:3306/";
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "mysql", "--url", wrong], "Access denied for user 'dbrace_test'"),
        (&["-e", "mysql", "--url", "mysql://dbrace_test@127.0.0.1:1/"], "cannot connect"),
        (&["-e", "mysql", "--url", &format!("{URL}no_such_db_dbrace")], "Unknown database 'no_such_db_dbrace'"),
        (&["-e", "mysql", "--url", URL, "-p", "ram"], "against --url only disk and unlogged"),
        (&["-e", "mysql", "--url", URL, "-p", "nosync"], "innodb_flush_log_at_trx_commit is global"),
        (&["-e", "mysql", "--url", "mysql://dbrace_test:not-a-real-secret@127.0.0.1:xx/"], "mysql://USER"),
        (&["-e", "sqlite", "--url", URL], "add --engine mysql"),
    ];
    for (args, needle) in cases {
        let o = sb.cmd(&[&["run", "-q", "-T", "0.1s"], *args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
        assert!(!err.contains("not-a-real-secret") && !err.contains("wrong-secret-dbrace"), "{err}");
    }
}
