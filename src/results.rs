//! The results file: a versioned schema holding every cell and repeat, rewritten
//! atomically after each one so an interrupted run keeps what it measured.

use crate::error::Result;
use crate::host::Host;
use crate::instance::Location;
use crate::options::counters::CountersOptions;
use crate::options::workload::Verdict;
use crate::options::ycsb::{DEFAULT_RECORDS, Distribution};
use crate::profile::Profile;
use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
}

/// Where a `--precision` run stopped, and how precise each cell got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionOutcome {
    /// Rounds finished (an interrupted round's repeats are kept in the cells, not counted).
    pub rounds: u32,
    /// Why no further round was started.
    pub reason: StopReason,
    /// The confidence level the intervals aimed at (0.95).
    pub level: f64,
    /// Every cell, in plan order.
    pub cells: Vec<CellPrecision>,
}

/// Why a `--precision` run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Every cell reached the precision asked.
    Reached,
    /// The next round would not have ended within `--max-time`.
    MaxTime,
    /// The cells still short had `--max-repeat` repeats.
    MaxRepeat,
    /// A signal stopped the run.
    Interrupted,
    /// A repeat failed (its cell left the rounds) or the run itself failed.
    Failed,
}

impl StopReason {
    /// As the reports print it.
    pub fn label(self) -> &'static str {
        match self {
            StopReason::Reached => "every cell reached it",
            StopReason::MaxTime => "stopped by --max-time",
            StopReason::MaxRepeat => "stopped at --max-repeat",
            StopReason::Interrupted => "interrupted",
            StopReason::Failed => "stopped by a failure",
        }
    }
}

/// One cell's precision at the end of a `--precision` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellPrecision {
    /// engine/profile/workload/cN.
    pub id: String,
    /// Repeats run, failed ones included.
    pub repeats: u32,
    /// The interval's larger half-width as a fraction of the median (none below two repeats).
    pub precision: Option<f64>,
    /// The level that interval really has (below the target with too few repeats).
    pub confidence: Option<f64>,
    /// Whether it reached the precision asked at the target level.
    pub reached: bool,
    /// Whether a repeat failed or did not verify, which took the cell out of the rounds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
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

/// How clients were driven in every cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOptions {
    /// Measured time per repeat, seconds (when not counting transactions).
    pub duration_s: Option<f64>,
    /// Measured transactions per client (instead of a duration).
    pub transactions: Option<u64>,
    /// Warm-up time per repeat, seconds.
    pub warmup_s: f64,
    /// Repeats per cell.
    pub repeat: u32,
    /// pgbench scale.
    pub scale: u32,
    /// Tables of the oltp workloads (sysbench's --tables).
    #[serde(default = "one")]
    pub tables: u32,
    /// Rows per oltp table (sysbench's --table-size).
    #[serde(default = "sysbench_table_size")]
    pub table_size: u64,
    /// Records of the ycsb workloads (YCSB's recordcount).
    #[serde(default = "ycsb_records")]
    pub records: u64,
    /// The ycsb workloads' request distribution, when given (else each workload's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
    /// Options of the counters workloads, when the run has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<CountersOptions>,
    /// Seed of the clients' random generators.
    pub seed: u64,
    /// The baseline, as `PROFILE` or `ENGINE:PROFILE`.
    pub baseline: String,
    /// The confidence the intervals aim at (`--confidence`); files from before it, 95%.
    #[serde(default = "default_level")]
    pub confidence: f64,
    /// Open loop: transactions per second scheduled over each cell's clients (`--rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// With a rate: the latency limit, milliseconds (`--latency-limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_limit_ms: Option<f64>,
    /// `--precision`: the half-width asked for, as a fraction of the median (0.03 for ±3%);
    /// `repeat` is then the rounds run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// `--precision`: no round is started that would end after this many seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_s: Option<f64>,
    /// `--precision`: repeats every cell gets before it may stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_repeat: Option<u32>,
    /// `--precision`: the most repeats a cell gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repeat: Option<u32>,
    /// Length of each repeat's `intervals`, seconds (`--log-interval`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_interval_s: Option<f64>,
}

/// One option of a run in the words reports use: the HTML environment table lists them,
/// `compare` notes those that differ between two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionField {
    /// Its name, e.g. `warm-up`.
    pub label: &'static str,
    /// Its value with its unit, e.g. `0.1 s`.
    pub value: String,
    /// Whether it changes what a cell measures (`compare` notes a difference), rather than
    /// how often it is repeated, how it is judged or how it is recorded.
    pub measures: bool,
}

impl RunOptions {
    /// Every option of the run, in the order reports list them: the one definition the
    /// environment table and `compare` share. `ran(prefix)` says whether a workload whose
    /// name starts with `prefix` ran; options of workloads that did not are left out.
    pub fn fields(&self, ran: impl Fn(&str) -> bool) -> Vec<OptionField> {
        let mut f = Vec::new();
        let mut push = |label, value: String, measures| f.push(OptionField { label, value, measures });
        match (self.duration_s, self.transactions) {
            (_, Some(t)) => push("measured", format!("{t} transactions per client"), true),
            (Some(d), None) => push("measured", format!("{d} s per repeat"), true),
            _ => {}
        }
        push("warm-up", format!("{} s", self.warmup_s), true);
        push("repeats", format!("{} per cell, interleaved", self.repeat), false);
        if let Some(p) = self.precision {
            push("precision", format!("±{} of the median", crate::stats::precision_percent(p)), false);
        }
        if let Some(n) = self.min_repeat {
            push("min repeat", n.to_string(), false);
        }
        if let Some(n) = self.max_repeat {
            push("max repeat", n.to_string(), false);
        }
        if let Some(t) = self.max_time_s {
            push("max time", format!("{t} s"), false);
        }
        push("confidence", crate::stats::percent(self.confidence), false);
        push("rate", self.rate.map_or("none (closed loop)".into(), |r| format!("{r} tps")), true);
        push("latency limit", self.latency_limit_ms.map_or("none".into(), |l| format!("{l} ms")), true);
        push("scale", self.scale.to_string(), true);
        if ran("oltp") {
            push("oltp tables", format!("{} × {} rows", self.tables, self.table_size), true);
        }
        if ran("ycsb") {
            push("ycsb records", self.records.to_string(), true);
            let d = self.distribution.map_or("each workload's own", |d| d.name());
            push("ycsb distribution", d.to_string(), true);
        }
        if let Some(c) = &self.counters {
            push("counters keys", c.keys.to_string(), true);
            push("counters values", c.values.to_string(), true);
            push("counters spread", crate::options::counters::show_span(c.spread_s), true);
            push("counters range", c.range.to_string(), true);
            push("counters schema", format!("{:?}", c.schema).to_lowercase(), true);
        }
        if let Some(i) = self.log_interval_s {
            push("log interval", format!("{i} s"), false);
        }
        push("seed", self.seed.to_string(), false);
        push("baseline", self.baseline.clone(), false);
        f
    }
}

fn default_level() -> f64 {
    crate::stats::LEVEL
}

fn one() -> u32 {
    1
}

fn sysbench_table_size() -> u64 {
    10_000
}

fn ycsb_records() -> u64 {
    DEFAULT_RECORDS
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
}

/// One measured repeat of a cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepeatResult {
    /// 1-based repeat number.
    pub repeat: u32,
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
    /// Seconds from launching the instance to its settings read back (a throwaway
    /// server: copied from its template, started, connected).
    #[serde(default)]
    pub start_s: f64,
    /// Seconds to open the clients' connections, one after another (pgbench's "initial
    /// connection time"); absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_s: Option<f64>,
    /// Seconds spent creating and loading the data set.
    pub load_s: f64,
    /// Transactions committed while measured.
    pub transactions: u64,
    /// Transactions committed during warm-up.
    pub warmup_transactions: u64,
    /// Failed transactions while measured.
    pub errors: u64,
    /// Conflicts retried while measured (e.g. SQLITE_BUSY).
    pub retries: u64,
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
    /// The workload's consistency check.
    pub verify: Option<Verdict>,
    /// Per-statement latency of script workloads (`--report-per-statement`), all clients.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StatementLatency>,
    /// How the open-loop schedule went (`--rate`); absent in closed-loop runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleStats>,
    /// The measured phase in `--log-interval` slices from its start; absent without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
}

/// One slice of a repeat's measured phase (`--log-interval`), as pgbench's aggregated log
/// lines, with the slice's whole latency histogram so slices and shards can be merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Seconds from the measured phase's start to this slice's start.
    pub start_s: f64,
    /// Transactions committed that ended in it.
    pub transactions: u64,
    /// Failed transactions that ended in it.
    pub errors: u64,
    /// HdrHistogram of their latency in nanoseconds, V2 deflate, base64 (as `histogram`).
    pub histogram: String,
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

/// One command of a script and its latency while measured, as pgbench -r reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementLatency {
    /// The script file, as given.
    pub script: String,
    /// The command's line in it.
    pub line: u32,
    /// The command as written (its first line).
    pub command: String,
    /// Times it completed.
    pub executions: u64,
    /// Transactions that failed at this command.
    pub failures: u64,
    /// Conflicts at this command that made the transaction run again.
    #[serde(default)]
    pub retries: u64,
    /// Time of those executions together, seconds.
    pub total_s: f64,
    /// Average latency, milliseconds.
    pub avg_ms: f64,
}

impl StatementLatency {
    /// A command's figures (executions, failures, retries); the average follows from them.
    pub fn new(script: String, line: u32, command: String, counts: [u64; 3], total_s: f64) -> Self {
        let [executions, failures, retries] = counts;
        let avg_ms = if executions > 0 { total_s * 1e3 / executions as f64 } else { 0.0 };
        StatementLatency { script, line, command, executions, failures, retries, total_s, avg_ms }
    }
}

/// Add `more` into `into`, command by command (the same script and line).
pub fn merge_statements(into: &mut Vec<StatementLatency>, more: &[StatementLatency]) {
    for m in more {
        match into.iter_mut().find(|s| s.script == m.script && s.line == m.line && s.command == m.command) {
            Some(s) => {
                *s = StatementLatency::new(
                    std::mem::take(&mut s.script),
                    s.line,
                    std::mem::take(&mut s.command),
                    [s.executions + m.executions, s.failures + m.failures, s.retries + m.retries],
                    s.total_s + m.total_s,
                );
            }
            None => into.push(m.clone()),
        }
    }
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
            start_s: 0.0,
            connect_s: None,
            load_s: 0.0,
            transactions: 0,
            warmup_transactions: 0,
            errors: 0,
            retries: 0,
            duration_s: 0.0,
            tps: 0.0,
            latency_ms: Latency::default(),
            histogram: String::new(),
            timeline: Vec::new(),
            client_cpu_s: 0.0,
            verify: None,
            statements: Vec::new(),
            schedule: None,
            intervals: Vec::new(),
        }
    }
}

/// Latency figures in milliseconds.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Latency {
    /// Mean.
    pub avg: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Latency {
    /// Summarize a nanosecond histogram in milliseconds.
    pub fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let ms = |ns: f64| ns / 1e6;
        Latency {
            avg: ms(h.mean()),
            p50: ms(h.value_at_quantile(0.50) as f64),
            p95: ms(h.value_at_quantile(0.95) as f64),
            p99: ms(h.value_at_quantile(0.99) as f64),
            max: ms(h.max() as f64),
        }
    }
}

/// An empty latency histogram: nanoseconds, 1 ns to 1 hour, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

/// Encode a histogram for the results file.
pub fn encode_histogram(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut buf) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(buf),
        Err(_) => String::new(),
    }
}

/// Decode a histogram from the results file.
pub fn decode_histogram(s: &str) -> Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| bad_input!("a latency histogram in the results file is not base64: {e}"))?;
    Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes))
        .map_err(|e| bad_input!("a latency histogram in the results file is damaged: {e:?}"))
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
    /// The run's options as reports list them, those of workloads it ran included.
    pub fn option_fields(&self) -> Vec<OptionField> {
        self.options.fields(|prefix| self.cells.iter().any(|c| c.workload.starts_with(prefix)))
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The options of a workload family are listed only when one of its workloads ran;
    /// seed and baseline are listed but do not change what a cell measures.
    #[test]
    fn option_fields_follow_the_workloads_run() {
        let o: RunOptions = serde_json::from_str(
            r#"{"duration_s": 0.3, "transactions": null, "warmup_s": 0.1, "repeat": 5, "scale": 1, "seed": 7, "baseline": "ram", "rate": 500.0}"#,
        )
        .unwrap();
        let labels = |f: &[OptionField]| f.iter().map(|f| f.label).collect::<Vec<_>>();
        let none = o.fields(|_| false);
        assert!(!labels(&none).iter().any(|l| l.starts_with("oltp") || l.starts_with("ycsb")), "{none:?}");
        let ycsb = o.fields(|p| p == "ycsb");
        let records = ycsb.iter().find(|f| f.label == "ycsb records").unwrap();
        assert_eq!((records.value.as_str(), records.measures), ("10000", true));
        let rate = ycsb.iter().find(|f| f.label == "rate").unwrap();
        assert_eq!(rate.value, "500 tps");
        assert!(ycsb.iter().filter(|f| ["seed", "baseline", "repeats"].contains(&f.label)).all(|f| !f.measures));
        assert_eq!(none[0], OptionField { label: "measured", value: "0.3 s per repeat".into(), measures: true });
    }

    /// Files written before `--rate` existed have no schedule fields: they still load, and
    /// a closed-loop repeat writes none (its JSON is as before).
    #[test]
    fn schedule_fields_are_optional_and_round_trip() {
        let mut r = RepeatResult::failed(1, "x".into(), String::new(), String::new());
        let closed = serde_json::to_value(&r).unwrap();
        assert!(closed.get("schedule").is_none());
        assert!(closed.get("intervals").is_none() && closed.get("connect_s").is_none(), "{closed}");
        let back: RepeatResult = serde_json::from_value(closed).unwrap();
        assert_eq!(back.schedule, None);
        r.schedule = Some(ScheduleStats { lag_avg_ms: 0.25, lag_max_ms: 3.5, skipped: 7, late: 11 });
        let back: RepeatResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back.schedule, r.schedule);
        r.intervals = vec![Interval { start_s: 1.0, transactions: 3, errors: 1, histogram: "x".into() }];
        r.connect_s = Some(0.01);
        let back: RepeatResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!((back.intervals, back.connect_s), (r.intervals, r.connect_s));

        let old = serde_json::json!({"duration_s": 1.0, "transactions": null, "warmup_s": 0.2, "repeat": 3,
            "scale": 1, "seed": 5, "baseline": "disk"});
        let o: RunOptions = serde_json::from_value(old).unwrap();
        assert_eq!((o.rate, o.latency_limit_ms), (None, None));
        let text = serde_json::to_string(&o).unwrap();
        assert!(!text.contains("rate") && !text.contains("latency_limit"), "{text}");
        assert!(!text.contains("log_interval"), "{text}");
    }

    /// A run without `--precision` writes none of its fields, and older files load.
    #[test]
    fn precision_fields_are_optional_and_round_trip() {
        let old = serde_json::json!({"duration_s": 1.0, "transactions": null, "warmup_s": 0.2, "repeat": 3,
            "scale": 1, "seed": 5, "baseline": "disk"});
        let mut o: RunOptions = serde_json::from_value(old).unwrap();
        assert_eq!((o.precision, o.max_time_s, o.min_repeat, o.max_repeat), (None, None, None, None));
        let text = serde_json::to_string(&o).unwrap();
        assert!(!text.contains("precision") && !text.contains("max_") && !text.contains("min_"), "{text}");
        (o.precision, o.max_time_s, o.min_repeat, o.max_repeat) = (Some(0.03), Some(600.0), Some(6), Some(50));
        let back: RunOptions = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(
            (back.precision, back.max_time_s, back.min_repeat, back.max_repeat),
            (Some(0.03), Some(600.0), Some(6), Some(50))
        );

        let outcome = PrecisionOutcome {
            rounds: 7,
            reason: StopReason::MaxRepeat,
            level: 0.95,
            cells: vec![CellPrecision {
                id: "a".into(),
                repeats: 7,
                precision: Some(0.041),
                confidence: Some(0.984375),
                reached: false,
                failed: false,
            }],
        };
        let v = serde_json::to_value(&outcome).unwrap();
        assert_eq!(v["reason"], "max-repeat");
        assert!(v["cells"][0].get("failed").is_none(), "{v}");
        assert_eq!(serde_json::from_value::<PrecisionOutcome>(v).unwrap(), outcome);
    }
}
