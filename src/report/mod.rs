//! Reports: one file per format, all rendered from the results file alone, so
//! `dbrace report r.json` reproduces what `dbrace run` printed.

pub mod bound;
pub mod by_type;
pub mod charts;
pub mod columns;
pub mod compare;
pub mod cost;
mod csv;
mod disturbed;
mod environment;
pub mod html;
mod json;
mod markdown;
pub mod precision;
pub mod step_summary;
mod table;

use crate::baseline::{Baseline, Key};
use crate::error::Result;
use crate::results::{
    CellResult, Latency, RepeatStatus, Results, RunStatus, StopReason, Survives, Tally, decode_histogram,
};
use crate::stats::{self, Estimate, Ratio};
use serde::Serialize;

pub use columns::Column;

/// Output formats for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A terminal table.
    Table,
    /// A Markdown table.
    Markdown,
    /// CSV, one row per cell.
    Csv,
    /// JSON, one object per cell.
    Json,
}

/// One cell's summary over its repeats.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// engine/profile/workload/cN.
    pub id: String,
    /// The engine.
    pub engine: String,
    /// The profile.
    pub profile: String,
    /// The workload.
    pub workload: String,
    /// Concurrent clients.
    pub clients: u32,
    /// Repeats that measured successfully (ok or verify-failed).
    pub measured_repeats: usize,
    /// Repeats that failed.
    pub failed_repeats: usize,
    /// Repeats whose consistency check failed.
    pub verify_failed: usize,
    /// tps over measured repeats (none when nothing was measured).
    pub tps: Option<Estimate>,
    /// Latency over all measured transactions (merged histograms), milliseconds.
    pub latency_ms: Option<Latency>,
    /// Why the first failed repeat failed.
    pub failure: Option<String>,
    /// Ratio of tps against the baseline cell.
    pub vs_baseline: Option<Ratio>,
    /// The baseline cell's id.
    pub baseline: Option<String>,
    /// Failed, retried and reconnected transactions, all repeats.
    #[serde(flatten)]
    pub tally: Tally,
    /// Client CPU per transaction, microseconds.
    pub client_cpu_us_per_tx: f64,
    /// Per-statement latency of a script workload over the measured repeats.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<crate::results::StatementLatency>,
    /// Each transaction type of a workload that mixes several, over the measured repeats.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<by_type::TypeRow>,
    /// The open-loop schedule over the measured repeats (`--rate` runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    /// What a transaction cost the server, its processes and the disk, from the repeats'
    /// counters (absent without them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<cost::Cost>,
    /// What bounds the cell, and each resource's share of its time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<bound::Bound>,
    /// Rows each transaction inserted (`--rows-per-commit`): insert-commit cells, when
    /// one of the run inserts more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_per_commit: Option<u32>,
    /// Rows per second: `tps` times `rows_per_commit`, where that is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_per_s: Option<Estimate>,
    /// tpcc's tpmC: New-Order transactions per minute, median and interval over the
    /// measured repeats as the cell's tps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpmc: Option<Estimate>,
    /// What a commit its repeats acknowledged survives (the weakest any repeat recorded);
    /// absent for files from before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survives: Option<Survives>,
}

/// A cell's open-loop schedule over its measured repeats, with pgbench's percentages.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Schedule {
    /// Average lag of measured transactions' starts behind their schedule, ms.
    pub lag_avg_ms: f64,
    /// The largest lag of any repeat, ms.
    pub lag_max_ms: f64,
    /// Slots skipped for being past the latency limit when their turn came.
    pub skipped: u64,
    /// Skipped slots as a share of all slots (committed, failed and skipped), percent.
    pub skipped_pct: f64,
    /// Committed transactions later than the latency limit.
    pub late: u64,
    /// Committed transactions of those repeats (what `late` is a share of).
    pub committed: u64,
    /// Late transactions as a share of committed ones, percent.
    pub late_pct: f64,
}

impl Schedule {
    /// Sum the measured repeats' schedules (none when they ran closed-loop).
    fn of(repeats: &[&crate::results::RepeatResult]) -> Option<Schedule> {
        let with: Vec<_> = repeats.iter().filter_map(|r| r.schedule.map(|s| (r, s))).collect();
        if with.is_empty() {
            return None;
        }
        let tx: u64 = with.iter().map(|(r, _)| r.transactions).sum();
        let errors: u64 = with.iter().map(|(r, _)| r.tally.errors).sum();
        let skipped: u64 = with.iter().map(|(_, s)| s.skipped).sum();
        let late: u64 = with.iter().map(|(_, s)| s.late).sum();
        let pct = |n: u64, of: u64| if of > 0 { 100.0 * n as f64 / of as f64 } else { 0.0 };
        let lag_sum: f64 = with.iter().map(|(r, s)| s.lag_avg_ms * r.transactions as f64).sum();
        Some(Schedule {
            lag_avg_ms: if tx > 0 { lag_sum / tx as f64 } else { 0.0 },
            lag_max_ms: with.iter().map(|(_, s)| s.lag_max_ms).fold(0.0, f64::max),
            skipped,
            skipped_pct: pct(skipped, tx + errors + skipped),
            late,
            committed: tx,
            late_pct: pct(late, tx),
        })
    }
}

/// Summarize every cell against `baseline` (`PROFILE` or `ENGINE:PROFILE`).
pub fn rows(results: &Results, baseline: &str) -> Result<Vec<Row>> {
    let samples: Vec<stats::Repeats> = results.cells.iter().map(CellResult::measured_repeats).collect();
    let level = results.options.confidence;
    let b = Baseline::parse(baseline);
    b.validate(results.cells.iter().map(|c| (c.engine.as_str(), c.profile.name.as_str())))?;
    let keys: Vec<Key> = results.cells.iter().map(CellResult::key).collect();
    let bases = b.of_each(&keys, |j| !samples[j].tps.is_empty());
    let judging = results.options.judging();
    // Rows per commit, for every insert-commit cell once one inserts more than one.
    let per_commit: Vec<Option<u32>> = results.cells.iter().map(|c| c.rows_per_commit(&results.options)).collect();
    let by_rows = per_commit.iter().any(|n| n.is_some_and(|n| n > 1));
    let mut out = Vec::new();
    for (i, c) in results.cells.iter().enumerate() {
        let measured: Vec<_> = c.repeats.iter().filter(|r| r.status.measured()).collect();
        let mut hist = crate::results::new_histogram();
        for r in &measured {
            hist.add(decode_histogram(&r.histogram)?)
                .map_err(|e| bad_input!("cannot merge latency histograms of {}: {e:?}", c.id))?;
        }
        let base = bases[i];
        let cost = cost::Cost::of(&measured);
        let bound = cost.as_ref().and_then(|k| bound::bound(&bound_inputs(results, c, k, &measured)));
        let transactions: u64 = measured.iter().map(|r| r.transactions).sum();
        let cpu: f64 = measured.iter().map(|r| r.client_cpu_s).sum();
        let tps = (!samples[i].tps.is_empty()).then(|| stats::estimate(&samples[i].tps, level));
        let rows_per_commit = per_commit[i].filter(|_| by_rows);
        let types = by_type::of(&measured, level)?;
        out.push(Row {
            tpmc: tpmc(&c.workload, &types),
            id: c.id.clone(),
            engine: c.engine.clone(),
            profile: c.profile.name.clone(),
            workload: c.workload.clone(),
            clients: c.clients,
            measured_repeats: measured.len(),
            failed_repeats: c.repeats.len() - measured.len(),
            verify_failed: c.repeats.iter().filter(|r| r.status == RepeatStatus::VerifyFailed).count(),
            tps,
            latency_ms: (!measured.is_empty()).then(|| Latency::of(&hist)),
            failure: c.repeats.iter().find(|r| r.status == RepeatStatus::Failed).and_then(|r| r.error.clone()),
            vs_baseline: base
                .filter(|_| !samples[i].tps.is_empty())
                .map(|j| stats::judge(&samples[i], &samples[j], level, judging)),
            baseline: base.map(|j| results.cells[j].id.clone()),
            tally: c.repeats.iter().map(|r| &r.tally).sum(),
            client_cpu_us_per_tx: if transactions > 0 { cpu * 1e6 / transactions as f64 } else { 0.0 },
            statements: measured.iter().fold(Vec::new(), |mut all, r| {
                crate::results::merge_statements(&mut all, &r.statements);
                all
            }),
            types,
            schedule: Schedule::of(&measured),
            cost,
            bound,
            rows_per_commit,
            rows_per_s: rows_per_commit.zip(tps).map(|(n, t)| t.times(f64::from(n))),
            survives: c.repeats.iter().filter_map(|r| r.survives).reduce(Survives::weaker),
        });
    }
    Ok(out)
}

/// What the bound model needs of cell `c`: its throughput over the repeats with
/// counters, the machine's CPUs, and the probed fsync latency where its log lives.
fn bound_inputs<'a>(
    results: &Results,
    c: &CellResult,
    cost: &'a cost::Cost,
    measured: &[&crate::results::RepeatResult],
) -> bound::Inputs<'a> {
    let with: Vec<_> = measured.iter().filter(|r| r.counters.is_some()).collect();
    let seconds: f64 = with.iter().map(|r| r.duration_s).sum();
    let tx: u64 = with.iter().map(|r| r.transactions).sum();
    let log = c.profile.wal.unwrap_or(c.profile.location);
    let probe = results.locations.iter().find(|l| l.kind == log).and_then(|l| l.fsync.as_ref());
    bound::Inputs {
        cost,
        tps: if seconds > 0.0 { tx as f64 / seconds } else { 0.0 },
        clients: c.clients,
        cores: results.host.cpus,
        probe_us: probe.map(|f| f.median_us),
        probe_cpu_us: probe.and_then(|f| f.cpu_us),
    }
}

/// What the tables and the CSV show beyond their own columns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// `--columns`: the tables' columns after their own.
    pub columns: &'a [Column],
    /// `--by-type`: a row per transaction type under each cell, with p50, errors and
    /// retries columns in the tables.
    pub by_type: bool,
}

/// Render the summary of `results` in `format`, with what `shown` asks.
pub fn render(results: &Results, baseline: &str, format: Format, shown: Shown) -> Result<String> {
    let rows = rows(results, baseline)?;
    let columns = columns::chosen(shown.columns, &rows);
    let layout = Layout { extra: &columns, by_type: shown.by_type };
    Ok(match format {
        Format::Table => table::render(results, &rows, baseline, layout),
        Format::Markdown => markdown::render(results, &rows, baseline, layout),
        Format::Csv => csv::render(&rows, shown.by_type)?,
        Format::Json => json::render(&rows)?,
    })
}

/// The columns of a table (terminal, Markdown, HTML) and whether it has type rows.
#[derive(Clone, Copy)]
pub(crate) struct Layout<'a> {
    /// Columns after the table's own.
    pub extra: &'a [Column],
    /// Type rows under each cell, and the p50, errors and retries columns.
    pub by_type: bool,
}

/// The level most intervals of a column have: stated once under the table, while a cell at
/// another level (fewer measured repeats) says its own.
pub fn usual_level(levels: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut seen: Vec<(f64, usize)> = Vec::new();
    for l in levels.into_iter().flatten() {
        match seen.iter_mut().find(|(x, _)| same_level(*x, l)) {
            Some((_, n)) => *n += 1,
            None => seen.push((l, 1)),
        }
    }
    // The first of the most common, so a tie reads the same every time.
    let most = seen.iter().map(|(_, n)| *n).max()?;
    seen.iter().find(|(_, n)| *n == most).map(|(l, _)| *l)
}

/// "93.8% interval" for a caption (a cell at another level says its own where it is shown).
pub(crate) fn interval_words(usual: Option<f64>) -> String {
    usual.map_or_else(|| "interval".into(), |l| format!("{} interval", stats::percent(l)))
}

/// Two levels that print alike are one level.
fn same_level(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// ", 75%" when `level` is not the column's usual one, for the cell to say.
fn own_level(level: Option<f64>, usual: Option<f64>) -> String {
    match (level, usual) {
        (Some(l), Some(u)) if same_level(l, u) => String::new(),
        (Some(l), _) => format!(", {}", stats::percent(l)),
        _ => String::new(),
    }
}

/// The usual levels of the tps and ratio columns of `rows`.
pub(crate) fn usual_levels(rows: &[Row]) -> (Option<f64>, Option<f64>) {
    (
        usual_level(rows.iter().map(|r| r.tps.and_then(|t| t.confidence))),
        usual_level(rows.iter().filter(|r| !is_baseline(r)).map(|r| r.vs_baseline.and_then(|x| x.confidence))),
    )
}

fn is_baseline(r: &Row) -> bool {
    r.baseline.as_deref() == Some(r.id.as_str())
}

/// The lines of a table for one cell, shared by the terminal, Markdown and HTML tables:
/// its own, then with `--by-type` one per transaction type.
fn lines(r: &Row, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<Vec<String>> {
    let mut out = vec![cells(r, usual, layout)];
    if layout.by_type {
        out.extend(r.types.iter().map(|t| type_cells(t, usual, layout)));
    }
    out
}

/// The cells of a cell's row: its own, then those of `layout.extra`.
fn cells(r: &Row, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<String> {
    let tps = match r.tps {
        None if r.failed_repeats == 0 => "not run".to_string(),
        None => "failed".to_string(),
        Some(e) => tps_text(e, usual.0),
    };
    let counts = (r.tally.errors, r.tally.retries);
    [r.engine.clone(), r.profile.clone(), r.workload.clone(), r.clients.to_string(), tps]
        .into_iter()
        .chain(latency_cells(r.latency_ms.as_ref(), counts, layout.by_type))
        .chain([ratio_text(r, usual.1)])
        .chain(layout.extra.iter().map(|c| c.value(r)))
        .collect()
}

/// The cells of a type's row under its cell: its name where the workload's is, its own
/// tps and latency, nothing against the baseline.
fn type_cells(t: &by_type::TypeRow, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<String> {
    let tps = t.tps.map_or_else(|| "-".to_string(), |e| tps_text(e, usual.0));
    [String::new(), String::new(), format!("↳ {}", t.name), String::new(), tps]
        .into_iter()
        .chain(latency_cells(Some(&t.latency_ms), (t.errors, t.retries), layout.by_type))
        .chain([String::new()])
        .chain(layout.extra.iter().map(|_| String::new()))
        .collect()
}

/// A median tps with its interval, and its level where it is not the column's usual one.
fn tps_text(e: Estimate, usual: Option<f64>) -> String {
    match e {
        Estimate { median, lo: Some(lo), hi: Some(hi), confidence, .. } => {
            format!("{} ({}–{}{})", num(median), sig3(lo), sig3(hi), own_level(confidence, usual))
        }
        e => num(e.median),
    }
}

/// avg, p95 and p99 ms; by type also p50 (after avg), errors and retries (after p99).
fn latency_cells(l: Option<&Latency>, (errors, retries): (u64, u64), by_type: bool) -> Vec<String> {
    let lat = |f: fn(&Latency) -> f64| l.map_or("-".to_string(), |l| format!("{:.3}", f(l)));
    if !by_type {
        return vec![lat(|l| l.avg), lat(|l| l.p95), lat(|l| l.p99)];
    }
    vec![lat(|l| l.avg), lat(|l| l.p50), lat(|l| l.p95), lat(|l| l.p99), errors.to_string(), retries.to_string()]
}

/// The table's own headers.
const HEADERS: [&str; 9] =
    ["engine", "profile", "workload", "clients", "tps", "avg ms", "p95 ms", "p99 ms", "× vs baseline"];

/// The table's own headers with `--by-type`.
const BY_TYPE_HEADERS: [&str; 12] = [
    "engine",
    "profile",
    "workload",
    "clients",
    "tps",
    "avg ms",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "errors",
    "retries",
    "× vs baseline",
];

/// Table headers matching `cells`.
fn headers(layout: Layout) -> Vec<&'static str> {
    let own: &[&str] = if layout.by_type { &BY_TYPE_HEADERS } else { &HEADERS };
    own.iter().copied().chain(layout.extra.iter().map(|c| c.header())).collect()
}

/// The ratio with its interval; an interval clear of 1 needs no word (above 1 is faster,
/// below slower), the other verdicts are said.
fn ratio_text(r: &Row, usual: Option<f64>) -> String {
    match &r.vs_baseline {
        _ if is_baseline(r) => "baseline".into(),
        Some(x) => match (x.lo, x.hi) {
            (Some(lo), Some(hi)) => {
                let verdict = match x.verdict {
                    stats::Verdict::Faster | stats::Verdict::Slower => String::new(),
                    v => format!(" {}", v.label()),
                };
                format!("{} ({}–{}{}){verdict}", sig3(x.value), sig3(lo), sig3(hi), own_level(x.confidence, usual))
            }
            _ => format!("{} {}", sig3(x.value), x.verdict.label()),
        },
        _ => "-".into(),
    }
}

/// Three significant digits, with k and M above a thousand: 178.71 → 179, 14.21 → 14.2,
/// 0.01563 → 0.0156, 122916 → 123k, 2765329 → 2.77M.
fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let (v, suffix) = match v.abs() {
        a if a >= 999_500.0 => (v / 1e6, "M"),
        a if a >= 999.5 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}{suffix}")
}

/// A number with digits that matter: 12345, 1234.5 → 1235, 12.3, 0.123.
fn num(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

/// Lines under the table: what the numbers mean, the machine, and anything that went wrong.
/// A cell's failed, retried and reconnected transactions in one line, as pgbench counts
/// them; none when there were none.
fn failures_line(row: &Row) -> Option<String> {
    let r = &row.tally;
    if r.errors == 0 && r.retries == 0 && r.reconnects == 0 {
        return None;
    }
    let mut line = format!("{}: {} failed transactions", row.id, r.errors);
    if r.failed > 0 {
        line.push_str(&format!(" ({} out of tries)", r.failed));
    }
    match (r.retried, r.retries) {
        (0, 0) => {}
        // Files from before transactions retried were counted.
        (0, n) => line.push_str(&format!(", {n} retries")),
        (t, n) => line.push_str(&format!(", {t} transactions retried ({n} retries)")),
    }
    if r.reconnects > 0 {
        line.push_str(&format!("; {} reconnects, {:.3} s lost to them", r.reconnects, r.reconnect_s));
    }
    Some(line)
}

fn notes(results: &Results, rows: &[Row], baseline: &str) -> Vec<String> {
    let mut n = Vec::new();
    n.push(interval_note(results, rows, baseline));
    let h = &results.host;
    let mut env =
        format!("host: {} CPUs, {:.1} GiB, {} {}", h.cpus, h.memory_bytes as f64 / (1u64 << 30) as f64, h.os, h.kernel);
    for l in &results.locations {
        env.push_str(&format!("; {} {} ({})", l.kind, l.path.display(), l.fs_type));
        if let Some(f) = &l.fsync {
            env.push_str(&format!(" fsync {:.3} ms", f.median_us / 1000.0));
        }
    }
    n.push(env);
    n.extend(results.locations.iter().filter_map(|l| l.warning()).map(|w| format!("warning: {w}")));
    n.extend(durability_line(rows));
    if let Some(rate) = results.options.rate {
        n.push(format!(
            "open loop: {} tps scheduled over each cell's clients as Poisson arrivals (--rate); latency from each transaction's scheduled start, lag = how late it started.",
            num(rate)
        ));
    }
    let limit = results.options.latency_limit_ms;
    for r in rows {
        if let Some(s) = &r.schedule {
            let mut line = format!("{}: schedule lag avg {:.3} (max {:.3}) ms", r.id, s.lag_avg_ms, s.lag_max_ms);
            if let Some(l) = limit {
                line.push_str(&format!(
                    "; skipped {} ({:.3}%); above the {l} ms latency limit {}/{} ({:.3}%)",
                    s.skipped, s.skipped_pct, s.late, s.committed, s.late_pct
                ));
            }
            n.push(line);
        }
    }
    n.extend(rows_lines(rows));
    n.extend(tpmc_lines(rows));
    for r in rows {
        if r.failed_repeats > 0 {
            let why = r.failure.as_deref().unwrap_or("unknown error");
            n.push(format!("{}: {} repeat(s) FAILED: {why}", r.id, r.failed_repeats));
        }
        if r.verify_failed > 0 {
            n.push(format!("{}: consistency check FAILED in {} repeat(s)", r.id, r.verify_failed));
        }
        if let Some(line) = failures_line(r) {
            n.push(line);
        }
    }
    n.extend(counter_lines(rows));
    n.extend(rows.iter().filter_map(unsynced_line));
    n.extend(results.budget_outcome.as_ref().map(budget_line));
    n.extend(disturbed::line(results));
    if let (Some(outcome), Some(p)) = (&results.precision_outcome, results.options.precision) {
        n.extend(precision::summary(outcome, p));
    }
    if results.status == RunStatus::Interrupted {
        n.push("run interrupted: only the repeats finished before the signal are shown.".into());
    }
    n
}

/// What the bound column means, once, and each cell whose counters could not all be read.
fn counter_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    if rows.iter().any(|r| r.bound.is_some()) {
        out.push("bound: what takes the largest share of each cell's time, from its counters: fsync waits, server CPU, client CPU, disk reads, or round trips (the rest: the network, waking up, locks); docs/explain.md".into());
    }
    let waited: Vec<String> = rows
        .iter()
        .filter_map(|r| r.bound.as_ref().filter(|b| b.shares.cpu_wait >= 0.25).map(|b| (r, b)))
        .map(|(r, b)| format!("{} {:.0}%", r.id, b.shares.cpu_wait * 100.0))
        .collect();
    if !waited.is_empty() {
        out.push(format!("CPU wait: {}: of their time, their threads were ready but waited for a CPU others' work (or steal) held; their bound is that of the rest", waited.join(", ")));
    }
    for r in rows {
        if let Some(c) = r.cost.as_ref().filter(|c| !c.unread.is_empty()) {
            out.push(format!("{}: counters not read: {}", r.id, c.unread.join("; ")));
        }
    }
    out
}

/// tpcc's tpmC: 60 times the New-Order type's transactions per second.
fn tpmc(workload: &str, types: &[by_type::TypeRow]) -> Option<Estimate> {
    let new_order = types.iter().find(|t| t.name == "new-order").filter(|_| workload == "tpcc")?;
    new_order.tps.map(|t| t.times(60.0))
}

/// tpcc cells' tpmC, a line each.
fn tpmc_lines(rows: &[Row]) -> Vec<String> {
    let usual = usual_level(rows.iter().map(|r| r.tpmc.and_then(|t| t.confidence)));
    rows.iter()
        .filter_map(|r| {
            let t = r.tpmc?;
            let interval = interval_said(&t, usual);
            Some(format!("{}: {} tpmC{interval} (New-Order transactions per minute)", r.id, num(t.median)))
        })
        .collect()
}

/// " (lo–hi)" of an estimate's interval, its level said when not the `usual` one; empty
/// without an interval.
fn interval_said(t: &Estimate, usual: Option<f64>) -> String {
    match (t.lo, t.hi) {
        (Some(lo), Some(hi)) => format!(" ({}–{}{})", sig3(lo), sig3(hi), own_level(t.confidence, usual)),
        _ => String::new(),
    }
}

/// Rows per second of the cells that count them (`--rows-per-commit`), a line each.
fn rows_lines(rows: &[Row]) -> Vec<String> {
    let usual = usual_level(rows.iter().map(|r| r.rows_per_s.and_then(|t| t.confidence)));
    rows.iter()
        .filter_map(|r| {
            let (n, t) = (r.rows_per_commit?, r.rows_per_s?);
            let interval = interval_said(&t, usual);
            let rows = if n == 1 { "row" } else { "rows" };
            let per_row = r.cost.as_ref().map_or(String::new(), |c| per_row(c, f64::from(n)));
            Some(format!("{}: {} rows/s{interval} at {n} {rows} per commit{per_row}", r.id, num(t.median)))
        })
        .collect()
}

/// "; per row 0.01 fsyncs, 2.1 log bytes, 45 server µs": a cost per transaction of `n` rows
/// shared among them.
fn per_row(c: &cost::Cost, n: f64) -> String {
    let figures = [(c.fsyncs, "fsyncs"), (c.log_bytes, "log bytes"), (c.server_cpu_us, "server µs")];
    let said: Vec<String> =
        figures.iter().filter_map(|(v, what)| v.map(|v| format!("{} {what}", sig3(v / n)))).collect();
    if said.is_empty() { String::new() } else { format!("; per row {}", said.join(", ")) }
}

/// A warning for a cell whose settings say a commit survives a power loss while, at one
/// client, its commits were not synced to the disk: the server made no fsyncs, or the disk
/// completed no flushes for them.
fn unsynced_line(r: &Row) -> Option<String> {
    let c = r.cost.as_ref().filter(|_| r.survives == Some(Survives::PowerLoss) && r.clients == 1)?;
    // Only commits that wrote: a read-only transaction needs no sync.
    let wrote = c.log_bytes.or(c.server_write_bytes).is_some_and(|b| b > 10.0);
    let claim = format!("{}: its settings say an acknowledged commit survives a power loss, but", r.id);
    let lost = "a power loss (or a crash of a host that lies about its flushes) may lose acknowledged commits";
    match (c.fsyncs, c.flushes) {
        (Some(f), _) if wrote && f < 0.05 => {
            Some(format!("{claim} the server made {} fsyncs per commit: {lost}", sig3(f)))
        }
        (Some(f), Some(d)) if wrote && f >= 0.5 && d < 0.05 => Some(format!(
            "{claim} its disk completed {} flushes per commit for the server's {} fsyncs: a flush that does nothing (a volume mounted without barriers, a virtual disk that acknowledges what it only cached, Docker Desktop's file sharing) means {lost}",
            sig3(d),
            sig3(f)
        )),
        (None, Some(d)) if wrote && d < 0.05 => {
            Some(format!("{claim} its disk completed {} flushes per commit: {lost}", sig3(d)))
        }
        _ => None,
    }
}

/// What the legend's durability line begins with.
const DURABILITY: &str = "durability";

/// `durability (what an acknowledged commit survives, docs/durability.md): postgres disk =
/// power loss, postgres nosync = server crash`: each engine and profile of the run once, in
/// the table's order; none when no repeat recorded it (files from before).
fn durability_line(rows: &[Row]) -> Option<String> {
    let mut seen: Vec<(&str, &str, Survives)> = Vec::new();
    for r in rows {
        let Some(s) = r.survives else { continue };
        match seen.iter_mut().find(|(e, p, _)| *e == r.engine && *p == r.profile) {
            Some(known) => known.2 = known.2.weaker(s),
            None => seen.push((&r.engine, &r.profile, s)),
        }
    }
    let pairs: Vec<String> = seen.iter().map(|(e, p, s)| format!("{e} {p} = {s}")).collect();
    (!pairs.is_empty()).then(|| {
        format!("{DURABILITY} (what an acknowledged commit survives, docs/durability.md): {}", pairs.join(", "))
    })
}

/// What the tps and × columns hold, with the levels their intervals share.
fn interval_note(results: &Results, rows: &[Row], baseline: &str) -> String {
    let (o, aim) = (&results.options, results.options.confidence);
    let repeats = match (o.precision, o.budget_s) {
        (Some(p), _) => format!("repeated until ±{}", stats::precision_percent(p)),
        (None, Some(b)) => format!("in rounds until its comparisons were settled, within --budget {b} s"),
        (None, None) => format!("{} asked", o.repeat),
    };
    let (tps, ratio) = usual_levels(rows);
    let level =
        |l: Option<f64>| l.map_or_else(|| "no interval".to_string(), |l| format!("its {} interval", stats::percent(l)));
    let short = |l: Option<f64>| l.is_some_and(|l| l < aim - 1e-9);
    let mut s =
        format!("tps: median over each cell's measured repeats ({repeats}) with {} (order statistics)", level(tps));
    if short(tps) {
        let fewest = rows.iter().filter_map(|r| r.tps.map(|t| t.n)).min().unwrap_or(0);
        s.push_str(&format!(", short of the {} asked: {fewest} repeats reach no higher", stats::percent(aim)));
    }
    let paired = rows.iter().any(|r| r.vs_baseline.is_some_and(|x| x.pairs.is_some()));
    let how = match (paired, o.budget_s) {
        (false, _) => "ratio of medians",
        (true, None) => "median within-round ratio (signed rank over the rounds both ran in)",
        (true, Some(_)) => {
            "median within-round ratio (signed rank over the rounds both ran in, looked at after 7, 10, 14, … of them)"
        }
    };
    s.push_str(&format!(
        "; latency over all measured transactions; × vs baseline '{baseline}' (same workload and clients): {how} with {}",
        level(ratio)
    ));
    if ratio.is_none() {
        s.push_str(" (no cell against another here)");
    } else if short(ratio) {
        s.push_str(&format!(", short of the {} asked: too few repeats to tell", stats::percent(aim)));
    } else {
        s.push_str(", clear of 1 where the cells differ");
    }
    s.push_str("; a cell at another level says it. docs/statistics.md explains.");
    s
}

/// The line under a budgeted run's table: how many comparisons it settled, in how many
/// rounds, and why it stopped.
fn budget_line(o: &crate::results::BudgetOutcome) -> String {
    let rounds = format!("{} round{}", o.rounds, if o.rounds == 1 { "" } else { "s" });
    let open = o.comparisons - o.settled;
    if o.comparisons == 0 {
        return format!("budget: no cell against another; {rounds}, the fewest whose median interval holds the level.");
    }
    if open == 0 {
        return format!("budget: all {} comparisons settled in {rounds}.", o.comparisons);
    }
    let why = match o.reason {
        StopReason::MaxTime => "when the budget could not hold another round".to_string(),
        StopReason::MaxRepeat => format!("at the most rounds a run takes, {}", crate::runner::budget::MOST_ROUNDS),
        StopReason::Interrupted => "by a signal".to_string(),
        StopReason::Failed | StopReason::Reached => "by a failure".to_string(),
    };
    format!(
        "budget: {} of {} comparisons settled in {rounds}, stopped {why}; the {open} left were judged once more on all their rounds.",
        o.settled, o.comparisons
    )
}

/// Per-statement latency of the cells that have it, as pgbench -r prints it: a heading
/// per cell, then average milliseconds, failures, retried conflicts, and the command where
/// it is written.
fn statement_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| !r.statements.is_empty()) {
        out.push(format!("statement latencies in milliseconds, failures and retries, {}:", r.id));
        for s in &r.statements {
            let file = s.script.rsplit('/').next().unwrap_or(&s.script);
            let at = format!("{file}:{}", s.line);
            out.push(format!("{:>10.3} {:>7} {:>7}  {at:<16} {}", s.avg_ms, s.failures, s.retries, s.command));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sig3;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(178.71), "179");
        assert_eq!(sig3(14.21), "14.2");
        assert_eq!(sig3(1.023), "1.02");
        assert_eq!(sig3(0.01563), "0.0156");
        assert_eq!(sig3(2.0), "2.00");
        assert_eq!(sig3(1868.0), "1.87k");
        assert_eq!(sig3(122916.0), "123k");
        assert_eq!(sig3(2765329.0), "2.77M");
    }
}
