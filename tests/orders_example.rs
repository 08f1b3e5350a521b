//! examples/orders-api, the real test suite `dbrace exec` is shown on: its short form runs
//! here against the machine's PostgreSQL on 127.0.0.1:5432 (in its own database,
//! `orders_example`, created when missing), so the example cannot rot. It needs Debian's
//! python3-pytest and python3-psycopg2, which scripts/test installs.

use std::path::PathBuf;
use std::process::{Command, Output};

const ADMIN: &[&str] = &["-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-X", "-q", "-tA"];
const PASSWORD: &str = "not-a-real-secret";
const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/orders_example";
/// The suite's size, as its README states it: a change to the suite updates these.
const FULL: usize = 111;
const SHORT: usize = 10;

fn example_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/orders-api")
}

/// Debian's interpreter, which sees Debian's python3-* packages (a python3 earlier on PATH,
/// e.g. pyenv's, would not).
fn python() -> &'static str {
    if std::path::Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" }
}

/// `python3 -m pytest ARGS` in the example with DATABASE_URL set; nothing written to the checkout.
fn pytest(url: &str, args: &[&str]) -> Output {
    let have = Command::new(python()).args(["-c", "import pytest, psycopg2"]).output().expect("python3 runs");
    assert!(
        have.status.success(),
        "python3 lacks pytest or psycopg2: run scripts/test (apt-get install python3-pytest python3-psycopg2)"
    );
    Command::new(python())
        .args(["-m", "pytest", "-q"])
        .args(args)
        .current_dir(example_dir())
        .env("DATABASE_URL", url)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 -m pytest runs")
}

/// psql as postgres on database `db`; panics with psql's message on failure.
fn psql(db: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .env("PGPASSWORD", PASSWORD)
        .args(ADMIN)
        .args(["-d", db, "-c", sql])
        .output()
        .expect("psql runs");
    assert!(out.status.success(), "psql -d {db} -c {sql:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn short_form_passes_against_the_system_server() {
    assert!(
        std::net::TcpStream::connect("127.0.0.1:5432").is_ok(),
        "no PostgreSQL on 127.0.0.1:5432: run scripts/test, which installs and starts it (apt-get install postgresql)"
    );
    if psql("postgres", "SELECT 1 FROM pg_database WHERE datname = 'orders_example'").is_empty() {
        psql("postgres", "CREATE DATABASE orders_example");
    }
    // The suite creates its tables at session start: drop them so this run must.
    psql("orders_example", "DROP SCHEMA IF EXISTS orders_api CASCADE");
    let out = pytest(URL, &["-m", "short"]);
    let all = text(&out);
    assert!(out.status.success(), "the short form failed:\n{all}");
    let deselected = FULL - SHORT;
    assert!(all.contains(&format!("{SHORT} passed, {deselected} deselected")), "{all}");
    let tables = psql(
        "orders_example",
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'orders_api'",
    );
    assert_eq!(tables, "customers,order_events,order_lines,orders");
}

#[test]
fn suite_has_its_stated_size() {
    let out = pytest(URL, &["--collect-only"]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains(&format!("{FULL} tests collected")), "{all}");
    let out = pytest(URL, &["--collect-only", "-m", "short"]);
    assert!(text(&out).contains(&format!("{SHORT}/{FULL} tests collected")), "{}", text(&out));
}

#[test]
fn no_database_is_a_loud_failure_not_a_skip() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = pytest(&format!("postgres://postgres:{PASSWORD}@127.0.0.1:{port}/orders_example"), &["-m", "short"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("orders-api tests need PostgreSQL, none reachable"), "{all}");
    assert!(all.contains(&format!("127.0.0.1:{port}")), "{all}");
    assert!(!all.contains(PASSWORD), "the password is shown: {all}");
    assert!(!all.contains("passed") && !all.contains("skipped"), "{all}");
}

/// The README's use of the example: `dbrace exec` starts a throwaway PostgreSQL per profile
/// and the suite finds it through the exported variables alone.
#[test]
fn short_form_runs_under_dbrace_exec() {
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let out = assert_cmd::Command::cargo_bin("dbrace")
        .unwrap()
        .args(["exec", "-e", "postgres", "-p", "disk,ram-nosync", "-r", "1", "--warmup", "0", "-o"])
        .arg(out_file.path())
        .args(["--", python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "short"])
        .current_dir(example_dir())
        .env_remove("DATABASE_URL")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "dbrace exec over the short form failed:\n{all}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out_file.path()).unwrap()).unwrap();
    let profiles: Vec<&str> =
        r["profiles"].as_array().unwrap().iter().map(|p| p["profile"]["name"].as_str().unwrap()).collect();
    assert_eq!(profiles, ["disk", "ram-nosync"]);
    for p in r["profiles"].as_array().unwrap() {
        let runs = p["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{p}");
        assert_eq!((runs[0]["status"].as_str(), runs[0]["exit_code"].as_i64()), (Some("ok"), Some(0)), "{p}");
        assert!(runs[0]["wall_s"].as_f64().unwrap() > 0.0);
    }
}
