//! examples/compose-app, a shop whose docker-compose.yml holds its PostgreSQL and Redis:
//! the README's `dbrace exec --compose` command, read out of the README so the two cannot
//! drift, runs the example's pytest suite against the file's `db` service as written and
//! under each profile, beside a Redis the test starts as the README tells a user to.
//! It needs Docker with the local test images, and Debian's python3-pytest and
//! python3-psycopg2 (scripts/test installs both).

mod common;

use common::docker::{containers_of, require_docker};
use common::{Sandbox, read_json};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The images the test stands in for the file's defaults (postgres:16, redis:7): no
/// registry is assumed reachable.
const POSTGRES_IMAGE: &str = "dbrace-test/postgres:15";
const REDIS_IMAGE: &str = "dbrace-test/redis:7";

fn example_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/compose-app")
}

/// Debian's interpreter, which sees Debian's python3-* packages (a python3 earlier on PATH,
/// e.g. pyenv's, would not).
fn python() -> &'static str {
    if std::path::Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" }
}

/// The README's `dbrace exec --compose …` line, split into words (it has no quoting).
fn readme_command() -> Vec<String> {
    let readme = std::fs::read_to_string(example_dir().join("README.md")).unwrap();
    let line = readme
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("dbrace exec --compose"))
        .expect("examples/compose-app/README.md shows a `dbrace exec --compose` command");
    line.split_whitespace().map(str::to_string).collect()
}

/// A port nothing listens on now. The test publishes both services on free ports (the
/// file reads them from the environment before .env) so it never meets a user's own.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The `cache` service, which dbrace leaves alone, as a container of the test's own,
/// removed when dropped whatever happened.
struct Cache(String);

impl Cache {
    fn start(port: u16) -> Cache {
        let name = format!("dbrace-compose-example-cache-{}", std::process::id());
        let out = Command::new("docker")
            .args(["run", "-d", "--rm", "--network", "host", "--name", &name, REDIS_IMAGE])
            .args(["--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .output()
            .unwrap();
        assert!(out.status.success(), "docker run {REDIS_IMAGE}: {}", String::from_utf8_lossy(&out.stderr));
        let cache = Cache(name);
        let start = Instant::now();
        while !pong(port) {
            assert!(start.elapsed() < Duration::from_secs(30), "redis on {port} did not answer PING");
            std::thread::sleep(Duration::from_millis(50));
        }
        cache
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

/// Whether a Redis on `port` answers PING.
fn pong(port: u16) -> bool {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let mut buf = [0u8; 7];
    s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

#[test]
fn the_readme_command_times_the_suite_as_written_and_per_profile() {
    require_docker();
    let have = Command::new(python()).args(["-c", "import pytest, psycopg2"]).output().expect("python3 runs");
    assert!(
        have.status.success(),
        "python3 lacks pytest or psycopg2: run scripts/test (apt-get install python3-pytest python3-psycopg2)"
    );
    let words = readme_command();
    assert_eq!(words[..2], ["dbrace", "exec"], "{words:?}");
    let dash = words.iter().position(|w| w == "--").expect("the README's command has `-- COMMAND`");
    let sb = Sandbox::new();
    let out = sb.out("exec.json");
    // The README's words, with the fewest rounds that still make a report and a results
    // file; Debian's python3 for the README's (see python()).
    let mut args: Vec<&str> = vec!["exec", "-r", "2", "--warmup", "0", "--out", out.to_str().unwrap()];
    args.extend(words[2..=dash].iter().map(String::as_str));
    args.extend(words[dash + 1..].iter().map(|w| if w == "python3" { python() } else { w.as_str() }));
    let (pg_port, redis_port) = (free_port(), free_port());
    let _cache = Cache::start(redis_port);

    let started = Instant::now();
    let child = sb
        .spawn(&args)
        .current_dir(example_dir())
        .env("POSTGRES_IMAGE", POSTGRES_IMAGE)
        .env("REDIS_IMAGE", REDIS_IMAGE)
        .env("POSTGRES_PORT", pg_port.to_string())
        .env("REDIS_PORT", redis_port.to_string())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let done = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&done.stdout), String::from_utf8_lossy(&done.stderr));
    assert!(done.status.success(), "{args:?} failed after {:?}:\n{text}", started.elapsed());
    // The file's other services are named and left alone, as the README says.
    assert!(text.contains("left alone (start them as usual): cache, tests"), "{text}");
    assert!(text.contains("Summary (against as-written"), "{text}");

    let r = read_json(&out);
    let profiles = r["profiles"].as_array().unwrap();
    let names: Vec<&str> = profiles.iter().map(|p| p["profile"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["as-written", "disk", "ram", "ram-nosync"], "as-written first: the baseline");
    for p in profiles {
        let runs = p["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{p}");
        for run in runs {
            assert_eq!((run["status"].as_str(), run["exit_code"].as_i64()), (Some("ok"), Some(0)), "{p}");
            assert!(run["wall_s"].as_f64().unwrap() > 0.0, "{run}");
        }
    }
    // The file's tuning is what as-written ran with, read back from the server; disk's
    // commits are synced.
    assert_eq!(profiles[0]["profile"]["location"], "ram", "the file's tmpfs: {}", profiles[0]);
    assert_eq!(profiles[0]["settings"]["fsync"], "off", "{}", profiles[0]);
    assert_eq!(profiles[1]["settings"]["fsync"], "on", "{}", profiles[1]);
    assert!(!std::fs::read_to_string(&out).unwrap().contains("shop-test-pw"), "the .env's password is kept out");

    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
    eprintln!("the README's command ran in {:?}", started.elapsed());
}
