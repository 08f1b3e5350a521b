//! The runs of `dbrace exec` as JSON (`--out`, `--format json`): every run of every
//! profile, warm-ups marked, with the summary computed from them. `--out` is rewritten
//! atomically after each run, so an interrupted exec keeps what it timed.

use super::summary::Summary;
use crate::host::Host;
use crate::instance::Location;
use crate::profile::Profile;
use crate::results::RunStatus;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What `kind` says in an exec file (`dbrace run` files have none).
pub const KIND: &str = "exec";
/// The schema version of exec files this build writes.
pub const SCHEMA: u32 = 1;

/// A whole exec.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExecResults {
    /// Always "exec".
    pub kind: String,
    /// Schema version of this file.
    pub schema: u32,
    /// The dbrace version that wrote it.
    pub dbrace_version: String,
    /// How the exec ended (or that it is still running).
    pub status: RunStatus,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// When it ended, if it did.
    pub finished_at: Option<String>,
    /// The engine whose servers the command ran against.
    pub engine: String,
    /// The command's argv (passwords as `***`).
    pub command: Vec<String>,
    /// The `--prepare` command's argv, if any.
    pub prepare: Option<Vec<String>>,
    /// The `--setup` file, if any.
    pub setup: Option<String>,
    /// How the runs were driven.
    pub options: ExecOptions,
    /// The machine.
    pub host: Host,
    /// The disk and ram locations.
    pub locations: Vec<Location>,
    /// Every profile's runs, in the order asked for.
    pub profiles: Vec<ProfileRuns>,
    /// Statistics over the runs, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

/// How the runs were driven.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExecOptions {
    /// Timed runs per profile (rounds run, without `--repeat`).
    pub repeat: u32,
    /// Without `--repeat`: the most rounds, each profile's comparison looked at as rounds
    /// came in; absent for a fixed `--repeat` and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repeat: Option<u32>,
    /// `--budget`: no round was started past this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Untimed warm-up runs per profile, before the timed ones.
    pub warmup: u32,
    /// One server per profile for all its runs (else a fresh one per run).
    pub reuse: bool,
    /// A run is stopped after this long, seconds.
    pub timeout_s: Option<f64>,
    /// Failed runs do not fail the exec.
    pub ignore_failure: bool,
    /// The profile others are compared with.
    pub baseline: String,
    /// The confidence the speed intervals aim at (`--confidence`); files from before it, 95%.
    #[serde(default = "default_level")]
    pub confidence: f64,
    /// The port the servers listened on, when given.
    pub port: Option<u16>,
    /// The `--url` server the command ran against, its password as `***`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// One profile's runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileRuns {
    /// The profile, as the engine ran it.
    pub profile: Profile,
    /// The engine version that ran, once a server started.
    pub engine_version: Option<String>,
    /// The settings in effect, read back from the first server.
    pub settings: BTreeMap<String, String>,
    /// Warm-ups and timed runs, in the order they ran.
    pub runs: Vec<Run>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunOutcome {
    /// Exit code 0.
    Ok,
    /// Another exit code, or killed by a signal.
    Failed,
    /// Stopped after `--timeout`.
    TimedOut,
}

/// One run of the command.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// 1-based: the repeat, or the warm-up's number.
    pub repeat: u32,
    /// The round of a timed run, each round's profiles in an order drawn at random; absent
    /// for warm-ups and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// An untimed warm-up (never in the statistics).
    pub warmup: bool,
    /// How it ended.
    pub status: RunOutcome,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    /// Wall-clock time, seconds.
    pub wall_s: f64,
    /// User CPU of the command and the children it waited for, seconds.
    pub user_s: f64,
    /// System CPU of the command and the children it waited for, seconds.
    pub system_s: f64,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// Time to a ready server, when this run started one (not timed in the run).
    pub server_start_s: Option<f64>,
    /// Time `--prepare` took, when it ran before this run (not timed in the run).
    pub prepare_s: Option<f64>,
    /// The last lines of its output, for a run that did not succeed (passwords as `***`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    /// What the server did over the run: its processes' CPU and waits, its commits,
    /// flushes and log bytes (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<crate::counters::Counters>,
}

impl ExecOptions {
    /// How the comparisons are judged: at the looks of rounds that stop once settled, or
    /// once.
    pub fn judging(&self) -> crate::stats::Judging {
        match self.max_repeat {
            Some(_) => crate::stats::Judging::Looks,
            None => crate::stats::Judging::Once,
        }
    }
}

impl Run {
    /// Whether the run counts in the statistics: timed, and succeeded.
    pub fn measured(&self) -> bool {
        !self.warmup && self.status == RunOutcome::Ok
    }
}

fn default_level() -> f64 {
    crate::stats::LEVEL
}
