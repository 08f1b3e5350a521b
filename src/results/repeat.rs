//! One measured repeat of a cell: its figures, latency summary, schedule and slices.

use super::histogram::Latency;
use super::statements::StatementLatency;
use super::survives::Survives;
use super::tally::Tally;
use super::types::TypeLatency;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a repeat ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepeatStatus {
    /// Measured and verified.
    Ok,
    /// Measured, but the workload's consistency check failed.
    VerifyFailed,
    /// Could not be measured.
    Failed,
}

impl RepeatStatus {
    /// Whether the repeat produced numbers.
    pub fn measured(self) -> bool {
        self != RepeatStatus::Failed
    }
}

/// One measured repeat of a cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepeatResult {
    /// 1-based repeat number.
    pub repeat: u32,
    /// The round it ran in (1-based), each round's cells in an order drawn at random, so
    /// that two cells' repeats of one round can be compared as a pair; absent in files
    /// from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// It ran on the instance and data set its cell's earlier repeat left (no launch, no
    /// load): the cell kept them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept: bool,
    /// Whether it measured and verified.
    pub status: RepeatStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it started.
    pub started_at: String,
    /// The engine version that ran.
    pub engine_version: String,
    /// Settings in effect, read back from the engine.
    pub settings: BTreeMap<String, String>,
    /// What a commit it acknowledged survives, by its engine's rule over `settings` and
    /// the profile; absent for a failed repeat and in files from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survives: Option<Survives>,
    /// Seconds from launching the instance to its settings read back (a throwaway
    /// server: copied from its template, started, connected).
    #[serde(default)]
    pub start_s: f64,
    /// Seconds to open the clients' connections, one after another (pgbench's "initial
    /// connection time"); absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_s: Option<f64>,
    /// Worker threads that drove the clients, several clients to a thread when fewer
    /// (`--threads`); absent in files written before clients could share a thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Seconds spent creating and loading the data set.
    pub load_s: f64,
    /// Those seconds by phase of the load (create, load, vacuum, indexes; a phase run
    /// side by side counts its wall time once); absent in files from before they were
    /// timed, and for workloads whose load is one step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_phases: Vec<LoadPhase>,
    /// Transactions committed while measured.
    pub transactions: u64,
    /// Transactions committed during warm-up.
    pub warmup_transactions: u64,
    /// What failed, was retried or reconnected while measured.
    #[serde(flatten)]
    pub tally: Tally,
    /// Measured wall time, seconds.
    pub duration_s: f64,
    /// Transactions per second.
    pub tps: f64,
    /// Latency summary, milliseconds.
    pub latency_ms: Latency,
    /// HdrHistogram of latency in nanoseconds, V2 deflate, base64.
    pub histogram: String,
    /// Committed transactions that ended in each second since the measurement began (the
    /// last entry may cover part of a second; they sum to `transactions`).
    pub timeline: Vec<u64>,
    /// Client CPU (user + system) while measured, seconds.
    pub client_cpu_s: f64,
    /// Its system (kernel) part, where the platform splits a thread's CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_kernel_cpu_s: Option<f64>,
    /// The workload's consistency check.
    pub verify: Option<Verdict>,
    /// Per-statement latency of script workloads (`--report-per-statement`), all clients.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StatementLatency>,
    /// Each transaction type of a workload that mixes several (`--by-type`), in the
    /// workload's order: counts and latency; absent for one type and in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<TypeLatency>,
    /// How the open-loop schedule went (`--rate`); absent in closed-loop runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleStats>,
    /// The measured phase in `--log-interval` slices from its start; absent without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
    /// What else the machine did while it was measured (CPU steal, iowait, other
    /// processes' CPU); absent where /proc could not be read, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<crate::noise::Noise>,
    /// What the measured phase cost the server, its processes and the data location's
    /// disk (`--no-counters`: absent; older files: absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<crate::counters::Counters>,
    /// When the measured phase began by the wall clock (RFC 3339, microseconds), with
    /// `--start-at`: `dbrace merge` checks that shards began together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure_started_at: Option<String>,
}

/// One slice of a repeat's measured phase (`--log-interval`), as pgbench's aggregated log
/// lines, with the slice's whole latency histogram so slices and shards can be merged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Seconds from the measured phase's start to this slice's start.
    pub start_s: f64,
    /// Transactions committed that ended in it.
    pub transactions: u64,
    /// What failed, was retried or reconnected in it.
    #[serde(flatten)]
    pub tally: Tally,
    /// HdrHistogram of their latency in nanoseconds, V2 deflate, base64 (as `histogram`).
    pub histogram: String,
    /// What the slice cost the server, its processes and the disk, read at the slice's
    /// ends (absent without counters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<crate::counters::Counters>,
}

/// An open-loop repeat's schedule, as pgbench reports it under `-R` and `-L`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScheduleStats {
    /// How late measured transactions started against their schedule, on average, ms.
    pub lag_avg_ms: f64,
    /// The latest start, ms.
    pub lag_max_ms: f64,
    /// Slots skipped unrun: already past `--latency-limit` when their turn came.
    pub skipped: u64,
    /// Committed transactions that finished later than `--latency-limit`.
    pub late: u64,
}

impl RepeatResult {
    /// A repeat that could not be measured, and why.
    pub fn failed(repeat: u32, error: String, started_at: String, engine_version: String) -> RepeatResult {
        RepeatResult {
            repeat,
            status: RepeatStatus::Failed,
            error: Some(error),
            started_at,
            engine_version,
            settings: BTreeMap::new(),
            survives: None,
            start_s: 0.0,
            connect_s: None,
            threads: None,
            load_s: 0.0,
            load_phases: Vec::new(),
            transactions: 0,
            warmup_transactions: 0,
            tally: Tally::default(),
            duration_s: 0.0,
            tps: 0.0,
            latency_ms: Latency::default(),
            histogram: String::new(),
            timeline: Vec::new(),
            client_cpu_s: 0.0,
            client_kernel_cpu_s: None,
            verify: None,
            statements: Vec::new(),
            types: Vec::new(),
            schedule: None,
            intervals: Vec::new(),
            measure_started_at: None,
            round: None,
            kept: false,
            noise: None,
            counters: None,
        }
    }
}

/// One phase of loading a data set and the seconds it took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadPhase {
    /// What the phase did, in the workload's words ("generate", "vacuum and keys").
    pub phase: String,
    /// Wall seconds.
    pub s: f64,
}

/// The outcome of a workload's consistency check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the invariant holds.
    pub ok: bool,
    /// What was compared, in numbers.
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RunOptions;

    /// A repeat records what its acknowledged commits survive; a failed one and files
    /// from before say nothing, and still load.
    #[test]
    fn survives_is_optional_and_round_trips() {
        let mut r = RepeatResult::failed(1, "x".into(), String::new(), String::new());
        let failed = serde_json::to_value(&r).unwrap();
        assert!(failed.get("survives").is_none(), "{failed}");
        let back: RepeatResult = serde_json::from_value(failed).unwrap();
        assert_eq!(back.survives, None);
        r.survives = Some(Survives::ServerCrash);
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""survives":"server-crash""#), "{text}");
        let back: RepeatResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back.survives, Some(Survives::ServerCrash));
    }

    /// Files written before `--rate` existed have no schedule fields: they still load, and
    /// a closed-loop repeat writes none (its JSON is as before).
    #[test]
    fn schedule_fields_are_optional_and_round_trip() {
        let mut r = RepeatResult::failed(1, "x".into(), String::new(), String::new());
        let closed = serde_json::to_value(&r).unwrap();
        assert!(closed.get("schedule").is_none());
        assert!(closed.get("intervals").is_none() && closed.get("connect_s").is_none(), "{closed}");
        for absent in ["retried", "failed", "reconnects", "reconnect_s"] {
            assert!(closed.get(absent).is_none(), "a run without them writes what it wrote before: {closed}");
        }
        let back: RepeatResult = serde_json::from_value(closed).unwrap();
        assert_eq!(back.schedule, None);
        r.schedule = Some(ScheduleStats { lag_avg_ms: 0.25, lag_max_ms: 3.5, skipped: 7, late: 11 });
        let back: RepeatResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back.schedule, r.schedule);
        let slice = Tally { errors: 1, reconnects: 2, ..Tally::default() };
        r.intervals =
            vec![Interval { start_s: 1.0, transactions: 3, tally: slice, histogram: "x".into(), counters: None }];
        r.connect_s = Some(0.01);
        r.tally = Tally { retried: 4, failed: 1, reconnects: 2, reconnect_s: 0.5, ..r.tally };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""retried":4,"failed":1,"reconnects":2,"reconnect_s":0.5"#), "flattened: {text}");
        let back: RepeatResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back.tally, r.tally);
        assert_eq!((back.intervals, back.connect_s), (r.intervals, r.connect_s));

        let old = serde_json::json!({"duration_s": 1.0, "transactions": null, "warmup_s": 0.2, "repeat": 3,
            "scale": 1, "seed": 5, "baseline": "disk"});
        let o: RunOptions = serde_json::from_value(old).unwrap();
        assert_eq!((o.driving.rate, o.driving.latency_limit), (None, None));
        let text = serde_json::to_string(&o).unwrap();
        assert!(!text.contains("rate") && !text.contains("latency_limit"), "{text}");
        assert!(!text.contains("log_interval"), "{text}");
    }
}
