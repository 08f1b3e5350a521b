//! Every engine's `--url` at a server of another protocol: the machine's PostgreSQL,
//! MariaDB and Redis, a MongoDB stand-in, a listener that never answers and an HTTP
//! server. Each run ends within 15 s, exit 2, with one line naming the server; and one
//! SIGTERM ends a run stuck on a silent server within 2 s.

use crate::common::Sandbox;
use crate::mongo::stand_in::StandIn;
use std::io::Write;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// The engines, each with the URL that names it at `port`.
const ENGINES: &[(&str, &str)] = &[
    ("postgres", "postgres://postgres@127.0.0.1:PORT/postgres"),
    ("mysql", "mysql://root@127.0.0.1:PORT/mysql"),
    ("redis", "redis://127.0.0.1:PORT"),
    ("mongo", "mongodb://127.0.0.1:PORT"),
];

/// The machine's servers (and the stand-in's port for mongo), by engine.
fn server_port(engine: &str, mongo: u16) -> u16 {
    match engine {
        "postgres" => 5432,
        "mysql" => 3306,
        "redis" => 6379,
        _ => mongo,
    }
}

fn url(engine: &str, port: u16) -> String {
    let (_, u) = ENGINES.iter().find(|(e, _)| *e == engine).unwrap();
    u.replace("PORT", &port.to_string())
}

/// A listener that accepts nothing and says nothing (the kernel completes the handshake).
fn silent() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").unwrap()
}

/// A tiny HTTP server: every connection gets a 400 and is closed.
fn http() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    port
}

/// Run `engine` at `port`; its exit code, stderr and how long it took.
fn run_at(sb: &Sandbox, engine: &str, port: u16) -> (Option<i32>, String, Duration) {
    let start = Instant::now();
    let o = sb
        .cmd(&["run", "-e", engine, "--url", &url(engine, port), "-T", "0.1s", "--warmup", "0s", "-r", "1"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned(), start.elapsed())
}

/// `engine` at every other engine's server, the silent listener and the HTTP server, at once.
fn wrong_servers_end_in_one_line(engine: &str) {
    let stand_in = StandIn::start();
    let quiet = silent();
    let mut ports: Vec<(String, u16)> = ENGINES
        .iter()
        .filter(|(e, _)| *e != engine)
        .map(|(e, _)| (format!("the {e} server"), server_port(e, stand_in.port)))
        .collect();
    ports.push(("a silent listener".into(), quiet.local_addr().unwrap().port()));
    ports.push(("an HTTP server".into(), http()));
    let sb = Sandbox::new();
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> =
            ports.iter().map(|(what, port)| (what, port, s.spawn(|| run_at(&sb, engine, *port)))).collect();
        handles.into_iter().map(|(what, port, h)| (what.clone(), *port, h.join().unwrap())).collect()
    });
    for (what, port, (code, stderr, took)) in runs {
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let case = format!("{engine} at {what} (port {port}), after {took:?}: {stderr}");
        assert_eq!(code, Some(2), "{case}");
        assert_eq!(lines.len(), 1, "{case}");
        assert!(lines[0].contains(&format!("127.0.0.1:{port}")), "names the server: {case}");
        assert!(!lines[0].contains("panicked"), "{case}");
        assert!(took < Duration::from_secs(15), "{case}");
    }
}

#[test]
fn postgres_at_other_servers_ends_in_one_line() {
    wrong_servers_end_in_one_line("postgres");
}

#[test]
fn mysql_at_other_servers_ends_in_one_line() {
    wrong_servers_end_in_one_line("mysql");
}

#[test]
fn redis_at_other_servers_ends_in_one_line() {
    wrong_servers_end_in_one_line("redis");
}

#[test]
fn mongo_at_other_servers_ends_in_one_line() {
    wrong_servers_end_in_one_line("mongo");
}

#[test]
fn postgres_at_the_redis_port_and_http_say_what_answered() {
    let sb = Sandbox::new();
    let (code, stderr, _) = run_at(&sb, "postgres", http());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("does not speak the PostgreSQL protocol: it answered 'HTTP/1.1 400 Bad Request"),
        "{stderr}"
    );
    let (code, stderr, took) = run_at(&sb, "postgres", 6379);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("127.0.0.1:6379") && stderr.contains("PostgreSQL"), "{stderr}");
    assert!(took < Duration::from_secs(15), "{took:?}");
}

/// One SIGTERM to a run whose connection a silent server accepted: it ends within 2 s,
/// as interrupted (128 + SIGTERM), in one line.
fn sigterm_ends_a_stuck_run(engine: &str) {
    let l = silent();
    let port = l.local_addr().unwrap().port();
    let sb = Sandbox::new();
    let mut child = sb
        .spawn(&["run", "-e", engine, "--url", &url(engine, port), "-T", "0.1s", "--warmup", "0s", "-r", "1"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stuck for sure: the connection is in, and nothing will ever answer it.
    l.set_nonblocking(true).unwrap();
    let start = Instant::now();
    let _held = loop {
        match l.accept() {
            Ok((s, _)) => break s,
            Err(_) => {
                assert!(start.elapsed() < Duration::from_secs(20), "{engine} never connected");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    std::thread::sleep(Duration::from_millis(500));
    crate::common::signal(child.id() as i32, libc::SIGTERM);
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(5) {
            child.kill().unwrap();
            panic!("{engine}: SIGTERM did not end the run in 5 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{engine}: {stderr}");
    assert!(took < Duration::from_secs(2), "{engine}: {took:?}");
    assert_eq!(stderr.lines().count(), 1, "{engine}: {stderr}");
}

#[test]
fn sigterm_ends_postgres_stuck_on_a_silent_server() {
    sigterm_ends_a_stuck_run("postgres");
}

#[test]
fn sigterm_ends_mysql_stuck_on_a_silent_server() {
    sigterm_ends_a_stuck_run("mysql");
}

#[test]
fn sigterm_ends_redis_stuck_on_a_silent_server() {
    sigterm_ends_a_stuck_run("redis");
}

#[test]
fn sigterm_ends_mongo_stuck_on_a_silent_server() {
    sigterm_ends_a_stuck_run("mongo");
}
