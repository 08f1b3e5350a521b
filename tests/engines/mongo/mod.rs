//! MongoDB in the conformance suite's `--url` cases, against SecantusDB, the
//! MongoDB-wire-compatible server scripts/test installs from PyPI (no mongod is packaged
//! here): one of the tests' own on a free port stands for "the machine's server", and
//! another with a password for the password server. The managed rows are left out: no
//! mongod-compatible binary is on this machine (SecantusDB has no unix socket and none
//! of mongod's durability flags), so only.rs and process.rs exercise the managed path
//! and its process handling through a stand-in wrapper instead; setup.rs exec's and
//! serve's `--setup` commands.
//!
//! The table is built when first used, not written as a `conformance!` static: its URL
//! holds the stand-in's port, chosen at run time.

mod hot_path;
mod only;
mod process;
mod setup;
pub mod stand_in;
mod tls;

use crate::conformance::{CounterChecks, EngineUnderTest, PasswordServer, Profiles, Settings, Tcp, UrlTarget};
use serde_json::Value;
use stand_in::{PasswordStandIn, StandIn};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The password of the password server.
pub const SECRET: &str = "not-a-real-secret";

/// Held by each test that touches the shared server, as `conformance!` does.
pub static SYSTEM_SERVER: Mutex<()> = Mutex::new(());

/// The shared server, started by the first test that needs it; it stops with the test
/// process (stand_in's shell watches it).
fn shared() -> &'static StandIn {
    static S: OnceLock<StandIn> = OnceLock::new();
    S.get_or_init(StandIn::start)
}

fn shared_url() -> &'static str {
    static U: OnceLock<String> = OnceLock::new();
    U.get_or_init(|| shared().url())
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn unused_managed(_: &Value, _: &crate::common::Sandbox) {
    unreachable!("the managed rows are left out for mongo")
}

/// The table: the `--url` cases filled, the managed ones never run.
fn engine() -> &'static EngineUnderTest {
    static E: OnceLock<EngineUnderTest> = OnceLock::new();
    E.get_or_init(|| {
        let url = shared_url();
        let closed = leak(format!("mongodb://127.0.0.1:{}/", stand_in::free_port()));
        let mistakes: Vec<(&'static [&'static str], &'static str)> = vec![
            (Box::leak(Box::new(["-e", "mongo", "--url", closed])), "cannot connect"),
            (Box::leak(Box::new(["-e", "mongo", "--url", url, "-p", "nosync"])), "only the write concern"),
            (Box::leak(Box::new(["-e", "mongo", "--url", url, "--set", "wiredTigerCacheSizeGB=1"])), "mongod options"),
            (Box::leak(Box::new(["-e", "mongo", "--url", "mongodb+srv://u:pw@cluster.example/db"])), "mongodb+srv://"),
            (Box::leak(Box::new(["-e", "mongo", "--url", leak(format!("{url}?tls=maybe"))])), "tls=maybe"),
            (Box::leak(Box::new(["-e", "sqlite", "--url", url])), "sqlite takes no --url"),
            (Box::leak(Box::new(["-e", "mongo", "--url", url, "-w", "tpcb"])), "tpcb"),
        ];
        EngineUnderTest {
            name: "mongo",
            server_process: &["mongod"],
            require_binaries: || panic!("the managed rows are left out for mongo"),
            workload: "insert-commit",
            results_before_interrupt: true,
            stops_within: Duration::from_secs(10),
            mid_run_duration: "3s",
            profiles: Profiles {
                profiles: "",
                workloads: "",
                cells: 0,
                each_repeat: |_| {},
                read_back: unused_managed,
            },
            settings: Settings { run: "", read_back: |_| {}, refused: &[] },
            tcp: Tcp { run: "", system_port: 0, secret_words: &[] },
            // only.rs checks the counters of a managed stand-in and of a --url server.
            counters: CounterChecks {
                profiles: "",
                check: |_, _| unreachable!("the managed rows are left out for mongo"),
            },
            url: UrlTarget {
                require_server: || {
                    shared();
                },
                url,
                // No --profile: of the default ones, those that need a server of dbrace's own are skipped.
                run: "-w insert-commit -c 2 -t 100 --warmup 0s -r 2",
                cells: 2,
                transactions: 200,
                each_repeat: |rep| {
                    let s = &rep["settings"];
                    assert_eq!(s["transport"], format!("tcp 127.0.0.1:{}", shared().port), "{s}");
                    // Which server answered: serverStatus's process, SecantusDB's here.
                    assert_eq!(s["server_process"], "secantus", "{s}");
                    assert_eq!(s["storage_engine"], "wiredTiger", "{s}");
                    assert!(rep["engine_version"].as_str().unwrap().starts_with(|c: char| c.is_ascii_digit()));
                },
                check: |r, said| {
                    // The default profiles a --url server cannot take are left out, without a note.
                    assert!(!said.contains("skipping"), "{said}");
                    let wc = |p: &str| {
                        let c = r["cells"].as_array().unwrap().iter().find(|c| c["profile"]["name"] == p).unwrap();
                        c["repeats"][0]["settings"]["write_concern"].as_str().unwrap().to_string()
                    };
                    assert_eq!(wc("disk"), "{w: 1, j: true}");
                    assert_eq!(wc("async"), "{w: 1, j: false}");
                },
                password: None,
                server_state: || StandIn::dbrace_databases(shared_url()),
                // dbrace works in a database of its own: server_state is the check.
                user_data: None,
                mistake_args: &["-w", "insert-commit"],
                mistakes: Box::leak(mistakes.into_boxed_slice()),
                secrets: &["pw"],
                password_server,
            },
        }
    })
}

/// SecantusDB with user `bob` and a password, and the mistakes made against it.
fn password_server() -> PasswordServer {
    let own = PasswordStandIn::start("bob", SECRET);
    let port = own.server.port;
    let url = format!("mongodb://bob:{SECRET}@127.0.0.1:{port}/?authSource=admin");
    let wrong = format!("mongodb://bob:wrong-{SECRET}@127.0.0.1:{port}/?authSource=admin");
    let closed = stand_in::free_port();
    let case = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let check_url = url.clone();
    PasswordServer {
        server: Box::new(own),
        is_the_system_server: false,
        url: url.clone(),
        run: "-p disk -w insert-commit -t 50 --warmup 0s -r 1",
        secret: SECRET.into(),
        redacted: "bob:***@127.0.0.1".into(),
        after_run: Box::new(move || assert_eq!(StandIn::dbrace_databases(&check_url), "[]", "a database left")),
        mistakes: vec![
            (case(&["-e", "mongo", "--url", &wrong]), "check the user, password"),
            (case(&["-e", "mongo", "--url", &format!("mongodb://127.0.0.1:{port}/")]), "wants a user and password"),
            (case(&["-e", "mongo", "--url", &format!("mongodb://bob:{SECRET}@127.0.0.1:{closed}/")]), "cannot connect"),
            (case(&["-e", "mongo", "--url", &url, "-p", "ram-nosync"]), "only the write concern"),
            (case(&["-e", "mongo", "--url", &format!("{url}&authMechanism=PLAIN")]), "SCRAM"),
        ],
        secrets: vec![SECRET.into()],
    }
}

#[test]
fn url_target_runs_profiles_verifies_and_cleans_up() {
    crate::conformance::url::url_target_runs_and_cleans_up(engine(), &SYSTEM_SERVER);
}

#[test]
fn url_mistakes_are_one_line_and_exit_2() {
    crate::conformance::url::url_mistakes(engine(), &SYSTEM_SERVER);
}

#[test]
fn a_password_server_takes_the_right_password_and_refuses_a_wrong_one_in_one_line() {
    crate::conformance::url::a_password_server(engine(), &SYSTEM_SERVER);
}
