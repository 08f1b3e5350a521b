//! PostgreSQL against an existing server (`--url`): the machine's own server on
//! 127.0.0.1:5432, which scripts/test installs and starts when it is missing (and gives
//! the `postgres` role the test password when the server asks for one).

mod common;

use common::{Sandbox, read_json};
use std::process::Command;

const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

/// The server must be there: a missing server is a loud failure, not a skipped test.
fn require_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:5432").is_ok();
    assert!(
        ok,
        "no PostgreSQL on 127.0.0.1:5432: run scripts/test, which installs and starts it (apt-get install postgresql)"
    );
}

fn dbrace_databases() -> String {
    let out = Command::new("psql")
        .env("PGPASSWORD", "not-a-real-secret")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-tAc"])
        .arg("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'dbrace_%'")
        .output()
        .expect("psql runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn url_target_runs_profiles_verifies_and_cleans_up() {
    require_server();
    let sb = Sandbox::new();
    let out = sb.out("pg.json");
    let before = dbrace_databases();
    let run = sb
        .cmd(&["run", "-q", "-e", "postgres", "--url", URL, "-p", "disk,async,unlogged", "-w", "insert-commit,tpcb"])
        .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 200);
        assert!(rep["engine_version"].as_str().unwrap().chars().next().unwrap().is_ascii_digit());
    }
    let setting = |id: &str, key: &str| {
        cells.iter().find(|c| c["id"] == id).unwrap()["repeats"][0]["settings"][key].as_str().unwrap().to_string()
    };
    assert_eq!(setting("postgres/async/tpcb/c2", "synchronous_commit"), "off");
    assert_eq!(setting("postgres/disk/tpcb/c2", "synchronous_commit"), "on");
    // The password stays out of everything dbrace writes.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("not-a-real-secret") && text.contains("postgres:***@"), "password leaked");
    let o = run.get_output();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("not-a-real-secret"));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not-a-real-secret"));
    assert_eq!(dbrace_databases(), before, "a dbrace database was left on the server");
}

#[test]
fn url_mistakes_are_one_line_and_exit_2() {
    require_server();
    let sb = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:1/test"], "cannot connect"),
        (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:5432/no_such_db_dbrace"], "no_such_db_dbrace"),
        (&["-e", "postgres", "--url", URL, "-p", "ram"], "against --url only disk, async and unlogged"),
        (&["-e", "postgres", "--pg-bin", "/nonexistent"], "no postgres and initdb there"),
        (&["-e", "sqlite", "--url", URL], "add --engine postgres"),
    ];
    for (args, needle) in cases {
        let o = sb.cmd(&[&["run", "-q", "-T", "0.1s"], *args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
        assert!(!err.contains("not-a-real-secret"), "{err}");
    }
}
