//! The results file: a versioned schema holding every cell and repeat, rewritten
//! atomically after each one so an interrupted run keeps what it measured.

mod budget;
mod histogram;
mod merge;
mod options;
mod precision;
mod repeat;
mod statements;
pub mod survives;
mod tally;
mod types;

pub use crate::counters::Counters;
pub use budget::BudgetOutcome;
pub use histogram::{Latency, decode_histogram, encode_histogram, new_histogram};
pub use merge::{ShardFile, merge};
pub use options::{OptionField, RunOptions};
pub use precision::{CellPrecision, PrecisionOutcome, StopReason};
pub use repeat::{Interval, LoadPhase, RepeatResult, RepeatStatus, ScheduleStats, Verdict};
pub use statements::{StatementLatency, merge_statements};
pub use survives::Survives;
pub use tally::Tally;
pub use types::{TypeLatency, TypeTally, add_types};

use crate::error::Result;
use crate::host::Host;
use crate::instance::Location;
use crate::profile::Profile;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The schema version this build writes and reads.
pub const SCHEMA: u32 = 1;

/// A whole run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// Schema version of this file.
    pub schema: u32,
    /// The dbrace version that wrote it.
    pub dbrace_version: String,
    /// How the run ended (or that it is still running).
    pub status: RunStatus,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When the run ended, if it did.
    pub finished_at: Option<String>,
    /// The command line.
    pub command: Vec<String>,
    /// The machine.
    pub host: Host,
    /// The disk and ram locations, with their measured fsync latency.
    pub locations: Vec<Location>,
    /// How the run was driven.
    pub options: RunOptions,
    /// Every cell, in plan order.
    pub cells: Vec<CellResult>,
    /// How a `--precision` run's rounds went; absent for `--repeat N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_outcome: Option<PrecisionOutcome>,
    /// How a `--budget` run's rounds went; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_outcome: Option<BudgetOutcome>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// Still measuring (or killed without a chance to say otherwise).
    Running,
    /// Every repeat ran.
    Complete,
    /// Stopped by a signal.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

/// One cell: engine × profile × workload × clients, and its repeats.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    /// engine/profile/workload/cN.
    pub id: String,
    /// The engine.
    pub engine: String,
    /// The profile as applied (with raw settings).
    pub profile: Profile,
    /// The workload.
    pub workload: String,
    /// Concurrent clients.
    pub clients: u32,
    /// Each repeat measured so far.
    pub repeats: Vec<RepeatResult>,
    /// What the report shows of the cell, written when the run (or merge) ends: tps and its
    /// interval, the ratio, latency, costs per transaction, the bound, a workload's own
    /// figures (docs/results-schema.md). For scripts and `compare --fail-if`; reports
    /// recompute it from the repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<serde_json::Value>,
}

impl CellResult {
    /// Its measured repeats' tps, with their rounds where every one records its round.
    pub fn measured_repeats(&self) -> crate::stats::Repeats {
        let measured: Vec<&RepeatResult> = self.repeats.iter().filter(|r| r.status.measured()).collect();
        crate::stats::Repeats {
            tps: measured.iter().map(|r| r.tps).collect(),
            rounds: measured.iter().map(|r| r.round).collect(),
        }
    }

    /// What decides its baseline.
    pub fn key(&self) -> crate::baseline::Key<'_> {
        crate::baseline::Key {
            engine: &self.engine,
            profile: &self.profile.name,
            workload: &self.workload,
            clients: self.clients,
        }
    }
}

/// Write `value` as pretty JSON atomically: a temporary file beside `path`, then rename.
pub fn save_json(value: &impl Serialize, path: &Path) -> Result<()> {
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let json = serde_json::to_vec_pretty(value).map_err(|e| failed!("cannot encode results: {e}"))?;
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &json).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        failed!("cannot write results to {}: {e}", path.display())
    })
}

impl Results {
    /// Write atomically: a temporary file beside the target, then rename.
    pub fn save(&self, path: &Path) -> Result<()> {
        save_json(self, path)
    }

    /// Read a results file, refusing other schemas with a clear message.
    pub fn load(path: &Path) -> Result<Results> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad_input!("cannot read results file {}: {e}", path.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            bad_input!(
                "{} is not a dbrace results file (invalid JSON: {e}); give a file written by `dbrace run --out`",
                path.display()
            )
        })?;
        if v.get("kind").and_then(|k| k.as_str()) == Some("exec") {
            return Err(bad_input!(
                "{} holds the runs of `dbrace exec`, which it printed already; give a file written by `dbrace run --out`",
                path.display()
            ));
        }
        match v.get("schema").and_then(|s| s.as_u64()) {
            Some(s) if s == u64::from(SCHEMA) => {}
            Some(s) => {
                return Err(bad_input!(
                    "{} has results schema {s}, this dbrace reads schema {SCHEMA}; re-render it with the dbrace version that wrote it",
                    path.display()
                ));
            }
            None => {
                return Err(bad_input!(
                    "{} is not a dbrace results file (no schema field); give a file written by `dbrace run --out`",
                    path.display()
                ));
            }
        }
        serde_json::from_value(v).map_err(|e| {
            bad_input!(
                "{} is not a valid dbrace results file: {e}; give a file written by `dbrace run --out`",
                path.display()
            )
        })
    }
}

/// Now as RFC 3339 in UTC, to the second.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
