//! The engine conformance suite: what every server engine must do, written once and run
//! per engine from that engine's table (`conformance!(EngineUnderTest { .. })` in its
//! folder). A table field that an engine cannot fill says why in the table.

pub mod managed;
pub mod url;

use crate::common::Sandbox;
use serde_json::Value;
use std::time::Duration;

/// What the shared tests need to know about one engine: its name, its server, and per test
/// the arguments that suit it and the checks only it can make.
pub struct EngineUnderTest {
    /// The `--engine` name, also the first part of every cell id.
    pub name: &'static str,
    /// Executable names of its server, to find, kill and count it.
    pub server_process: &'static [&'static str],
    /// Fails, with the install hint, when the server binaries are missing.
    pub require_binaries: fn(),
    /// A workload the engine runs on every profile, for the signal and bad-input tests.
    pub workload: &'static str,
    /// Whether a run's preflight is over (its results file written) 300 ms after its first
    /// server starts, where the interrupt test signals: then the file must say
    /// `interrupted`; otherwise the signal may land in the preflight, and the file is
    /// checked when it is there.
    pub results_before_interrupt: bool,
    /// How long SIGINT or SIGTERM may take to end a run, servers stopped and data removed
    /// (interrupt.rs gives embedded SQLite 5 s; a server's shutdown on a busy machine more).
    pub stops_within: Duration,
    /// How long the mid-run-death run measures each cell: long enough to kill the first
    /// cell's server while it runs.
    pub mid_run_duration: &'static str,
    /// Every managed profile, and the settings each reads back.
    pub profiles: Profiles,
    /// `--set` and `--sweep` values reaching the server, and bad ones refused.
    pub settings: Settings,
    /// The managed server on TCP.
    pub tcp: Tcp,
    /// What a commit cost, by the counters read around each measured phase.
    pub counters: CounterChecks,
    /// Against the machine's own server (`--url`).
    pub url: UrlTarget,
}

/// `every_profile_runs_verifies_and_reads_back`: one run over `profiles` × `workloads`.
pub struct Profiles {
    /// `--profile`: every profile the engine has.
    pub profiles: &'static str,
    /// `--workload`.
    pub workloads: &'static str,
    /// Cells that run makes.
    pub cells: usize,
    /// Checks of one repeat beyond status, verify and count (the version string, …).
    pub each_repeat: fn(&Value),
    /// The settings probe: what each profile's cells read back from the server (the
    /// whole results file, and the sandbox for the locations).
    pub read_back: fn(&Value, &Sandbox),
}

/// `set_and_sweep_values_reach_the_server_and_a_bad_one_is_bad_input`.
pub struct Settings {
    /// `run -q -e NAME` and these (split at spaces): a run with `--set` (and `--sweep`) values.
    pub run: &'static str,
    /// Checks the values on the cells of that run.
    pub read_back: fn(&[Value]),
    /// `--set` values refused with exit 2, each with a word the message must contain
    /// (besides `--set`).
    pub refused: &'static [(&'static str, &'static str)],
}

/// `tcp_transport_uses_a_free_port_and_a_password_nobody_sees`.
pub struct Tcp {
    /// `--workload` and client arguments of the run (split at spaces).
    pub run: &'static str,
    /// The port of the machine's own server, which the managed one must not take.
    pub system_port: u16,
    /// Words that would give the server's password away: in neither the results file
    /// nor the output. (An engine with none to name gives none: its test of the password
    /// is that the run verified.)
    pub secret_words: &'static [&'static str],
}

/// `counters_say_what_each_commit_cost`: insert-commit at one client for 2 s on each of
/// `profiles`, every repeat's counters read back from the results file.
pub struct CounterChecks {
    /// `--profile`: one whose commit waits for an fsync and one whose commit does not.
    pub profiles: &'static str,
    /// Checks one repeat's counters (the results file's `counters`) by its profile, beyond
    /// what every engine's show (the server's own counters, the processes' CPU).
    pub check: fn(profile: &str, counters: &Value),
}

/// The `--url` tests, against the machine's own server (scripts/test starts it).
pub struct UrlTarget {
    /// Fails, with the install hint, when the machine's server does not answer.
    pub require_server: fn(),
    /// The machine's server, with the test account of scripts/test.
    pub url: &'static str,
    /// `run -e NAME --url URL` and these (split at spaces), for the run that creates and
    /// drops its own database (or keys).
    pub run: &'static str,
    /// Cells that run makes.
    pub cells: usize,
    /// Transactions each of its repeats commits.
    pub transactions: u64,
    /// Checks of one repeat beyond status, verify and count.
    pub each_repeat: fn(&Value),
    /// Checks of the whole run: the results file and what dbrace said on stderr.
    pub check: fn(&Value, &str),
    /// The password of `url` and how the results file must show it instead; `None` for a
    /// server without one (the password server below checks it then).
    pub password: Option<(&'static str, &'static str)>,
    /// What dbrace may have left on the server (its databases, its keys): the same
    /// before and after every test that touches the server.
    pub server_state: fn() -> String,
    /// Data of the user's own put on the server before the run; the returned check
    /// asserts it is untouched and removes it. `None` where dbrace works in a database of
    /// its own and never opens the user's (then `server_state` is the check).
    pub user_data: Option<fn() -> Untouched>,
    /// Arguments that `url_mistakes` runs add before each case's.
    pub mistake_args: &'static [&'static str],
    /// Mistakes against the machine's server: arguments and a word the one line has.
    pub mistakes: &'static [(&'static [&'static str], &'static str)],
    /// Passwords none of those lines may show.
    pub secrets: &'static [&'static str],
    /// A server that asks for a password, with the right one and the wrong ones.
    pub password_server: fn() -> PasswordServer,
}

/// Asserts that the user's data on the server is as it was, and removes it.
pub type Untouched = Box<dyn FnOnce()>;

/// A server that asks for a password (the engine's own of the test, or the machine's),
/// for `a_password_server_takes_the_right_password_and_refuses_a_wrong_one_in_one_line`.
pub struct PasswordServer {
    /// Whatever keeps the server up until the test ends (`()` for the machine's own).
    pub server: Box<dyn std::any::Any>,
    /// Whether it is the machine's server, which the `--url` tests take turns on.
    pub is_the_system_server: bool,
    /// The URL with the right password.
    pub url: String,
    /// `run -e NAME --url URL` and these (split at spaces).
    pub run: &'static str,
    /// The password, which nothing dbrace writes may show.
    pub secret: String,
    /// How the results file shows the URL instead.
    pub redacted: String,
    /// After the run with the right password: what it must have left (keys, …).
    pub after_run: Box<dyn Fn()>,
    /// Mistakes against this server: arguments (after `mistake_args`) and a word the one
    /// line has.
    pub mistakes: Vec<(Vec<String>, &'static str)>,
    /// Passwords none of those lines may show.
    pub secrets: Vec<String>,
}

/// The shared tests for one engine, in the module that invokes it: `ENGINE` is the table,
/// `SYSTEM_SERVER` the turn its `--url` tests take on the machine's server.
macro_rules! conformance {
    ($engine:expr) => {
        /// This engine's facts for the conformance suite.
        pub static ENGINE: $crate::conformance::EngineUnderTest = $engine;
        /// Held by each test that touches the machine's server: each compares what is on
        /// it before and after, which another test's database or keys would upset.
        pub static SYSTEM_SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

        #[test]
        fn every_profile_runs_verifies_and_reads_back() {
            $crate::conformance::managed::every_profile_runs_verifies_and_reads_back(&ENGINE);
        }
        #[test]
        fn set_and_sweep_values_reach_the_server_and_a_bad_one_is_bad_input() {
            $crate::conformance::managed::set_values_reach_the_server(&ENGINE);
        }
        #[test]
        fn tcp_transport_uses_a_free_port_and_a_password_nobody_sees() {
            $crate::conformance::managed::tcp_transport(&ENGINE);
        }
        #[test]
        fn counters_say_what_each_commit_cost() {
            $crate::conformance::managed::counters_say_what_each_commit_cost(&ENGINE);
        }
        #[test]
        fn interrupted_and_killed_runs_leave_no_server_and_no_directory() {
            $crate::conformance::managed::interrupted_and_killed_runs(&ENGINE);
        }
        #[test]
        fn a_server_killed_mid_run_fails_its_cell_and_the_run_goes_on() {
            $crate::conformance::managed::a_server_killed_mid_run(&ENGINE);
        }
        #[test]
        fn rate_must_be_positive_and_a_latency_limit_needs_it() {
            $crate::conformance::managed::rate_mistakes_start_no_server(&ENGINE);
        }
        #[test]
        fn url_target_runs_profiles_verifies_and_cleans_up() {
            $crate::conformance::url::url_target_runs_and_cleans_up(&ENGINE, &SYSTEM_SERVER);
        }
        #[test]
        fn url_mistakes_are_one_line_and_exit_2() {
            $crate::conformance::url::url_mistakes(&ENGINE, &SYSTEM_SERVER);
        }
        #[test]
        fn a_password_server_takes_the_right_password_and_refuses_a_wrong_one_in_one_line() {
            $crate::conformance::url::a_password_server(&ENGINE, &SYSTEM_SERVER);
        }
    };
}
