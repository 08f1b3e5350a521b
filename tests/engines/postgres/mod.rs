//! PostgreSQL in the conformance suite: throwaway servers from the machine's binaries
//! (scripts/test installs them), the machine's own server on 127.0.0.1:5432 for `--url`
//! (scripts/test starts it and gives the `postgres` role the test password), and a
//! password server of the test's own (also behind a PgBouncer of the test's, pgbouncer.rs);
//! tls.rs its servers with and without TLS; restart.rs a restart of it under --reconnect.

mod only;
mod own_server;
mod pgbouncer;
mod restart;
mod tls;

use crate::common::Sandbox;
use crate::conformance::managed::per_transaction;
use crate::conformance::{CounterChecks, EngineUnderTest, PasswordServer, Profiles, Settings, Tcp, UrlTarget};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

conformance!(EngineUnderTest {
    name: "postgres",
    server_process: &["postgres"],
    require_binaries,
    workload: "tpcb",
    // Its preflight can outlast the 300 ms: the signal may land before the results file.
    results_before_interrupt: false,
    stops_within: Duration::from_secs(10),
    mid_run_duration: "2s",
    profiles: Profiles {
        profiles: "disk,ram,async,nosync,ram-nosync,unlogged,wal-ram",
        workloads: "tpcb,insert-commit",
        cells: 14,
        each_repeat: version_is_a_number,
        read_back: profiles_read_back,
    },
    settings: Settings {
        // Written as projects write them, read back as the server normalizes them.
        run: "-p ram -w insert-commit --set shared_buffers=65536kB --set random_page_cost=1.0 --set checkpoint_timeout=300s -T 0.2s -r 1",
        read_back: |cells| {
            let settings = &cells[0]["repeats"][0]["settings"];
            assert_eq!(settings["shared_buffers"], "64MB");
            assert_eq!(settings["random_page_cost"], "1");
            assert_eq!(settings["checkpoint_timeout"], "5min");
        },
        refused: &[("shared_buffers=lots", "shared_buffers")],
    },
    // The server's password is random and never printed: no word to look for, the
    // verified run is the test (SCRAM over TCP refuses a role without a password).
    tcp: Tcp { run: "-w insert-commit -t 50", system_port: 5432, secret_words: &[] },
    counters: CounterChecks { profiles: "disk,nosync", check: wal_per_commit },
    url: UrlTarget {
        require_server,
        url: URL,
        run: "-q -p disk,async,unlogged -w insert-commit,tpcb -c 2 -t 100 --warmup 0s -r 1",
        cells: 6,
        transactions: 200,
        each_repeat: version_is_a_number,
        check: |r, _| {
            let setting = |id: &str| {
                r["cells"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()
                ["repeats"][0]["settings"]["synchronous_commit"]
                .clone()
            };
            assert_eq!(setting("postgres/async/tpcb/c2"), "off");
            assert_eq!(setting("postgres/disk/tpcb/c2"), "on");
        },
        password: Some(("not-a-real-secret", "postgres:***@")),
        server_state: dbrace_databases,
        // The run's tables go in a database it creates and drops (server_state checks
        // it), never in the user's.
        user_data: None,
        mistake_args: &[],
        mistakes: &[
            (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:1/test"], "cannot connect"),
            (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:5432/no_such_db_dbrace"], "no_such_db_dbrace"),
            (&["-e", "postgres", "--url", URL, "-p", "ram"], "against --url only disk, async and unlogged"),
            (&["-e", "postgres", "--pg-bin", "/nonexistent"], "no postgres and initdb there"),
            (&["-e", "sqlite", "--url", URL], "sqlite takes no --url"),
        ],
        secrets: &["not-a-real-secret"],
        password_server,
    },
});

const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

/// The server's version, as it reports it, starts with its number.
fn version_is_a_number(rep: &Value) {
    assert!(rep["engine_version"].as_str().unwrap().chars().next().unwrap().is_ascii_digit(), "{rep}");
}

/// One WAL record of about 200 bytes per insert-commit; one WAL sync per commit on disk,
/// timed (track_wal_io_timing), and none with fsync off.
fn wal_per_commit(profile: &str, k: &Value) {
    let per = |name: &str| per_transaction(k, name).unwrap_or_else(|| panic!("{profile}: no {name} in {k}"));
    // The reader's own queries are transactions too.
    let (commits, fsyncs) = (per("commits"), per("fsyncs"));
    assert!((0.95..1.2).contains(&commits), "{profile}: {commits} commits per transaction: {k}");
    assert!((100.0..2000.0).contains(&per("log_bytes")), "{profile}: {k}");
    if profile == "disk" {
        assert!((0.8..1.25).contains(&fsyncs), "{profile}: {fsyncs} syncs per transaction: {k}");
        assert!(per("fsync_s") > 0.0, "{profile}: {k}");
    } else {
        assert!(fsyncs < 0.05, "{profile}: {fsyncs} syncs per transaction: {k}");
    }
}

fn require_binaries() {
    let found = std::fs::read_dir("/usr/lib/postgresql").map(|mut d| d.next().is_some()).unwrap_or(false);
    assert!(
        found,
        "PostgreSQL server binaries missing: run scripts/test, which installs them (apt-get install postgresql)"
    );
}

/// The server must be there: a missing server is a loud failure, not a skipped test.
fn require_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:5432").is_ok();
    assert!(
        ok,
        "no PostgreSQL on 127.0.0.1:5432: run scripts/test, which installs and starts it (apt-get install postgresql)"
    );
}

/// The machine's server's dbrace_* databases, by psql (not by dbrace).
fn dbrace_databases() -> String {
    let out = Command::new("psql")
        .env("PGPASSWORD", "not-a-real-secret")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-tAc"])
        .arg("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'dbrace_%'")
        .output()
        .expect("psql runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Data and WAL where each profile says, durability as PostgreSQL says it is.
fn profiles_read_back(r: &Value, sb: &Sandbox) {
    let cells = r["cells"].as_array().unwrap();
    let s = |p: &str| {
        cells.iter().find(|c| c["id"] == format!("postgres/{p}/tpcb/c2")).unwrap()["repeats"][0]["settings"].clone()
    };
    let (disk, ram) = (sb.disk.path().to_string_lossy().to_string(), sb.ram.path().to_string_lossy().to_string());
    assert!(s("disk")["data_directory"].as_str().unwrap().starts_with(&disk), "{}", s("disk"));
    assert!(s("ram")["data_directory"].as_str().unwrap().starts_with(&ram), "{}", s("ram"));
    // wal-ram: data on disk, the WAL really on tmpfs.
    assert!(s("wal-ram")["data_directory"].as_str().unwrap().starts_with(&disk), "{}", s("wal-ram"));
    let wal = s("wal-ram")["pg_wal"].as_str().unwrap().to_string();
    assert!(wal.starts_with(&ram) && wal.ends_with("(tmpfs)"), "{wal}");
    let disk_fs = r["locations"][0]["fs_type"].as_str().unwrap();
    assert!(s("disk")["pg_wal"].as_str().unwrap().ends_with(&format!("({disk_fs})")), "{}", s("disk"));
    assert_eq!((s("disk")["fsync"].as_str(), s("disk")["synchronous_commit"].as_str()), (Some("on"), Some("on")));
    assert_eq!(s("async")["synchronous_commit"], "off");
    assert_eq!(s("async")["fsync"], "on");
    for p in ["nosync", "ram-nosync"] {
        assert_eq!((s(p)["fsync"].as_str(), s(p)["full_page_writes"].as_str()), (Some("off"), Some("off")), "{p}");
    }
}

/// A server of the test's own that asks for a SCRAM password, as a real shared server does
/// (the machine's own trusts local TCP).
fn password_server() -> PasswordServer {
    let own = own_server::OwnServer::start();
    let (url, port) = (own.url(own_server::PASSWORD), own.port);
    PasswordServer {
        server: Box::new(own),
        is_the_system_server: false,
        url,
        run: "-q -w insert-commit -t 50 --warmup 0s -r 1",
        secret: own_server::PASSWORD.into(),
        redacted: "owner:***@".into(),
        after_run: Box::new(|| {}),
        mistakes: vec![
            (
                vec!["-e".into(), "postgres".into(), "--url".into(), own_server::url(port, "wrong-pw-93a")],
                "password authentication failed",
            ),
            (
                vec![
                    "-e".into(),
                    "postgres".into(),
                    "--url".into(),
                    format!("postgres://owner@127.0.0.1:{port}/postgres"),
                ],
                "asks for a password",
            ),
        ],
        secrets: vec!["wrong-pw-93a".into(), own_server::PASSWORD.into()],
    }
}
