//! MySQL (MariaDB) in the conformance suite: throwaway servers from the machine's binaries
//! (scripts/test installs them) and the machine's own server on 127.0.0.1:3306 for `--url`
//! (scripts/test starts it and gives it the account `dbrace_test` with the test password).

mod only;
mod tls;

use crate::common::Sandbox;
use crate::conformance::managed::per_transaction;
use crate::conformance::{CounterChecks, EngineUnderTest, PasswordServer, Profiles, Settings, Tcp, UrlTarget};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

conformance!(EngineUnderTest {
    name: "mysql",
    server_process: &["mariadbd", "mysqld"],
    require_binaries,
    workload: "tpcb",
    // Its preflight can outlast the 300 ms: the signal may land before the results file.
    results_before_interrupt: false,
    // MariaDB has taken 10.3 s to end a run after SIGTERM on a 2-core machine under a
    // load of 11.
    stops_within: Duration::from_secs(30),
    mid_run_duration: "3s",
    profiles: Profiles {
        profiles: "disk,ram,async,nosync,ram-nosync,unlogged,wal-ram",
        workloads: "tpcb,insert-commit",
        cells: 14,
        each_repeat: |rep| assert!(
            rep["engine_version"].as_str().unwrap().contains("MariaDB"),
            "{}",
            rep["engine_version"]
        ),
        read_back: profiles_read_back,
    },
    settings: Settings {
        run: concat!(
            "-p ram -w insert-commit --sweep innodb_buffer_pool_size=128M,256M",
            " --set innodb_log_file_size=48M -T 0.2s -r 1"
        ),
        read_back: |cells| {
            let pool = |v: &str| settings(cells, &format!("mysql/ram+innodb_buffer_pool_size={v}/insert-commit/c1"));
            assert_eq!(pool("128M")["innodb_buffer_pool_size"], (128u64 << 20).to_string());
            assert_eq!(pool("256M")["innodb_buffer_pool_size"], (256u64 << 20).to_string());
            assert_eq!(pool("256M")["innodb_log_file_size"], (48u64 << 20).to_string());
        },
        refused: &[
            ("innodb_buffer_pool_size=lots", "'lots'"),
            ("no_such_variable_dbrace=1", "no_such_variable_dbrace"),
            ("table_open_cache=1", "did not take effect on mysql: table_open_cache is 10, expected 1"),
        ],
    },
    // The server's password is random and never printed: no word to look for, the
    // verified run is the test.
    tcp: Tcp { run: "-w tpcb -t 50", system_port: 3306, secret_words: &[] },
    counters: CounterChecks { profiles: "disk,nosync", check: redo_per_commit },
    url: UrlTarget {
        require_server,
        url: URL,
        run: concat!(
            "-q -p disk,unlogged -w insert-commit,tpcb -c 2 -t 100 --warmup 0s -r 1",
            " --set sort_buffer_size=1M"
        ),
        cells: 4,
        transactions: 200,
        each_repeat: |rep| {
            assert!(rep["engine_version"].as_str().unwrap().contains("MariaDB"), "{}", rep["engine_version"]);
            // TCP as asked, not the socket the server would point the driver to.
            assert_eq!(rep["settings"]["transport"], "tcp 127.0.0.1:3306");
            // A session setting, applied on every connection and read back.
            assert_eq!(rep["settings"]["sort_buffer_size"], "1048576", "{}", rep["settings"]);
        },
        check: |r, _| {
            let cells = r["cells"].as_array().unwrap();
            assert_eq!(settings(cells, "mysql/unlogged/tpcb/c2")["default_storage_engine"], "MEMORY");
            assert_eq!(settings(cells, "mysql/disk/tpcb/c2")["default_storage_engine"], "InnoDB");
        },
        password: Some(("not-a-real-secret", "dbrace_test:***@")),
        server_state: dbrace_databases,
        // The run's tables go in a database it creates and drops (server_state checks
        // it), never in the user's.
        user_data: None,
        mistake_args: &[],
        mistakes: &[
            (&["-e", "mysql", "--url", "mysql://dbrace_test@127.0.0.1:1/"], "cannot connect"),
            (
                &["-e", "mysql", "--url", "mysql://dbrace_test:not-a-real-secret@127.0.0.1:3306/no_such_db_dbrace"],
                "Unknown database 'no_such_db_dbrace'"
            ),
            (&["-e", "mysql", "--url", URL, "-p", "ram"], "against --url only disk and unlogged"),
            (&["-e", "mysql", "--url", URL, "-p", "nosync"], "innodb_flush_log_at_trx_commit is global"),
            (&["-e", "mysql", "--url", "mysql://dbrace_test:not-a-real-secret@127.0.0.1:xx/"], "mysql://USER"),
            (&["-e", "sqlite", "--url", URL], "sqlite takes no --url"),
            // A global variable cannot be set per session: refused, and its database dropped.
            (&["-e", "mysql", "--url", URL, "--set", "innodb_buffer_pool_size=1G"], "only session variables apply"),
        ],
        secrets: &["not-a-real-secret", "wrong-secret-dbrace"],
        password_server,
    },
});

const URL: &str = "mysql://dbrace_test:not-a-real-secret@127.0.0.1:3306/";

/// Redo log bytes for every insert-commit; one fsync per commit on disk
/// (innodb_flush_log_at_trx_commit=1), next to none on nosync (0: written and synced once a
/// second by the background thread).
fn redo_per_commit(profile: &str, k: &Value) {
    let per = |name: &str| per_transaction(k, name).unwrap_or_else(|| panic!("{profile}: no {name} in {k}"));
    assert!((100.0..4000.0).contains(&per("log_bytes")), "{profile}: {k}");
    let fsyncs = per("fsyncs");
    if profile == "disk" {
        assert!((0.8..1.5).contains(&fsyncs), "{profile}: {fsyncs} fsyncs per transaction: {k}");
    } else {
        assert!(fsyncs < 0.1, "{profile}: {fsyncs} fsyncs per transaction: {k}");
    }
    // Handler_commit counts statements' commits too: no commits figure.
    assert!(k["figures"]["commits"].is_null(), "{profile}: {k}");
}

fn require_binaries() {
    let found = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld", "/usr/bin/mariadbd"]
        .iter()
        .any(|p| std::path::Path::new(p).is_file());
    assert!(
        found,
        "MariaDB server binaries missing: run scripts/test, which installs them (apt-get install mariadb-server)"
    );
}

/// The server must be there: a missing server is a loud failure, not a skipped test.
fn require_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:3306").is_ok();
    assert!(
        ok,
        "no MariaDB on 127.0.0.1:3306: run scripts/test, which installs and starts it (apt-get install mariadb-server)"
    );
}

/// The machine's server's dbrace_* databases, by the mariadb client (not by dbrace).
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

/// The settings recorded for one cell's first repeat.
fn settings(cells: &[Value], id: &str) -> Value {
    let c = cells.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no cell {id}"));
    c["repeats"][0]["settings"].clone()
}

/// Data and redo log where each profile says, durability as InnoDB says it is.
fn profiles_read_back(r: &Value, sb: &Sandbox) {
    let cells = r["cells"].as_array().unwrap();
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
}

/// The machine's server asks the test account for its password.
fn password_server() -> PasswordServer {
    require_server();
    let args = |url: &str| ["-e", "mysql", "--url", url].map(String::from).to_vec();
    PasswordServer {
        server: Box::new(()),
        is_the_system_server: true,
        url: URL.into(),
        run: "-q -p disk -w insert-commit -t 50 --warmup 0s -r 1",
        secret: "not-a-real-secret".into(),
        redacted: "dbrace_test:***@".into(),
        after_run: Box::new(|| {}),
        mistakes: vec![
            (args("mysql://dbrace_test:wrong-secret-dbrace@127.0.0.1:3306/"), "Access denied for user 'dbrace_test'"),
            (args("mysql://dbrace_test@127.0.0.1:3306/"), "Access denied for user 'dbrace_test'"),
        ],
        secrets: vec!["not-a-real-secret".into(), "wrong-secret-dbrace".into()],
    }
}
