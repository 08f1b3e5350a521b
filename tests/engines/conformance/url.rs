//! The shared `--url` tests: a run against the machine's own server that creates and
//! removes its own database (or keys), mistakes in one line with exit 2, and a server that
//! asks for a password.

use super::EngineUnderTest;
use crate::common::{Sandbox, read_json};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The turn on the machine's server (a failed test's turn passes on all the same).
fn turn(system_server: &Mutex<()>) -> MutexGuard<'_, ()> {
    system_server.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn url_target_runs_and_cleans_up(e: &EngineUnderTest, system_server: &Mutex<()>) {
    let u = &e.url;
    (u.require_server)();
    let _turn = turn(system_server);
    let sb = Sandbox::new();
    let out = sb.out(&format!("{}.json", e.name));
    let user_data = u.user_data.map(|plant| plant());
    let before = (u.server_state)();
    let run = sb
        .cmd(&["run", "-e", e.name, "--url", u.url])
        .args(u.run.split_whitespace())
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), u.cells);
    for c in cells {
        for rep in c["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
            assert_eq!(rep["transactions"], u.transactions);
            // The server's own counters, read on a connection of their own; its processes
            // are not the run's to see.
            let k = &rep["counters"];
            assert!(k["server"].as_object().is_some_and(|s| !s.is_empty()), "{}: {k}", c["id"]);
            assert!(k["processes"].is_null(), "{}: {k}", c["id"]);
            (u.each_repeat)(rep);
        }
    }
    let o = run.get_output();
    (u.check)(&r, &String::from_utf8_lossy(&o.stderr));
    if let Some((secret, redacted)) = u.password {
        // The password stays out of everything dbrace writes.
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(!text.contains(secret) && text.contains(redacted), "password leaked");
        assert!(!String::from_utf8_lossy(&o.stdout).contains(secret));
        assert!(!String::from_utf8_lossy(&o.stderr).contains(secret));
    }
    assert_eq!((u.server_state)(), before, "dbrace left something on the server");
    if let Some(untouched) = user_data {
        untouched();
    }
}

/// Run `run -q ARGS -T 0.1s CASE` for each case: exit 2, one line with the needle, no secret.
fn one_line_exit_2(sb: &Sandbox, args: &[&str], cases: &[(Vec<String>, &str)], secrets: &[String]) {
    for (case, needle) in cases {
        let case: Vec<&str> = case.iter().map(String::as_str).collect();
        let o = sb.cmd(&[&["run", "-q"], args, &["-T", "0.1s"], &case[..]].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{case:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{case:?}: {err}");
        assert!(err.contains(needle), "{case:?}: expected '{needle}' in {err}");
        for secret in secrets {
            assert!(!err.contains(secret.as_str()), "{err}");
        }
    }
}

pub fn url_mistakes(e: &EngineUnderTest, system_server: &Mutex<()>) {
    let u = &e.url;
    (u.require_server)();
    let _turn = turn(system_server);
    let sb = Sandbox::new();
    let before = (u.server_state)();
    let cases: Vec<(Vec<String>, &str)> =
        u.mistakes.iter().map(|(args, needle)| (args.iter().map(|a| a.to_string()).collect(), *needle)).collect();
    let secrets: Vec<String> = u.secrets.iter().map(|s| s.to_string()).collect();
    one_line_exit_2(&sb, u.mistake_args, &cases, &secrets);
    // A mistake found after dbrace made its database drops that database.
    assert_eq!((u.server_state)(), before, "a refused run left something on the server");
}

pub fn a_password_server(e: &EngineUnderTest, system_server: &Mutex<()>) {
    let server = (e.url.password_server)();
    let _turn = server.is_the_system_server.then(|| turn(system_server));
    let sb = Sandbox::new();
    let out = sb.out("own.json");
    let run = sb
        .cmd(&["run", "-e", e.name, "--url", &server.url])
        .args(server.run.split_whitespace())
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{rep}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(&server.redacted), "the URL is not recorded as {}: {text}", server.redacted);
    let o = run.get_output();
    let everything = [&o.stdout[..], &o.stderr[..], text.as_bytes()].concat();
    assert!(!String::from_utf8_lossy(&everything).contains(&server.secret), "the password leaked");
    (server.after_run)();
    one_line_exit_2(&sb, e.url.mistake_args, &server.mistakes, &server.secrets);
    drop(server.server);
}
