//! A cell's summary over its repeats: the `Row` every format renders, and its open-loop
//! schedule, bound and costs.

use super::{bound, by_type, cost, predictions};
use crate::baseline::{Baseline, Key};
use crate::error::Result;
use crate::results::{CellResult, Latency, RepeatStatus, Results, Survives, Tally, decode_histogram};
use crate::stats::{self, Estimate, Ratio};
use crate::workload::figure::{Derived, Each, Figure};
use crate::workload::options::WorkloadOptions;
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// What its storage and disk-reads shares predict of the cells beside it without them, and
    /// what they measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<predictions::Prediction>,
    /// The workload's headline figures (tpcc's `tpmc`), by key, each a median and interval
    /// over the measured repeats as the cell's tps.
    #[serde(flatten)]
    pub figures: BTreeMap<&'static str, Estimate>,
    /// What its figures multiply tps by, by key: insert-commit's `rows_per_commit`, when
    /// some cell of the run inserts more than one row per commit.
    #[serde(flatten)]
    pub counts: BTreeMap<&'static str, u32>,
    /// What a commit its repeats acknowledged survives (the weakest any repeat recorded);
    /// absent for files from before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survives: Option<Survives>,
    /// Where its server's CPU went over the measured repeats (`--hotspots`); kept in the
    /// results file, not repeated in the report's JSON.
    #[serde(skip)]
    pub hotspots: Option<crate::hotspots::Hotspots>,
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
    let level = results.options.driving.confidence;
    let b = Baseline::parse(baseline);
    b.validate(results.cells.iter().map(|c| (c.engine.as_str(), c.profile.name.as_str())))?;
    let keys: Vec<Key> = results.cells.iter().map(CellResult::key).collect();
    let bases = b.of_each(&keys, |j| !samples[j].tps.is_empty());
    let judging = results.options.judging();
    let recorded = crate::workload::options::recorded(&results.options.workload)?;
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
        let types = by_type::of(&measured, level)?;
        let (figures, counts) = figures(&c.workload, &types, tps, &recorded.of_cell(&c.profile.name));
        out.push(Row {
            figures,
            counts,
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
            predictions: Vec::new(),
            survives: c.repeats.iter().filter_map(|r| r.survives).reduce(Survives::weaker),
            hotspots: hotspots(&measured),
        });
    }
    drop_single_counts(&mut out);
    fill_predictions(&mut out, &recorded);
    Ok(out)
}

/// The measured repeats' hotspots added up.
fn hotspots(measured: &[&crate::results::RepeatResult]) -> Option<crate::hotspots::Hotspots> {
    let mut each = measured.iter().filter_map(|r| r.counters.as_ref()?.hotspots.as_ref());
    let mut all = each.next()?.clone();
    each.for_each(|h| all.add(h));
    Some(all)
}

/// Each row's predictions from its storage and disk-reads shares, over the rows beside it with the same
/// workload options.
fn fill_predictions(rows: &mut [Row], recorded: &WorkloadOptions) {
    let options: Vec<_> = rows.iter().map(|r| serde_json::to_value(recorded.of_cell(&r.profile)).ok()).collect();
    let sides: Vec<_> = rows
        .iter()
        .zip(options)
        .map(|(r, options)| predictions::Side {
            id: &r.id,
            beside: (&r.engine, &r.workload, r.clients, options),
            shares: r.bound.as_ref().map(|b| predictions::predicting(&b.shares)),
            tps: r.tps.map(|t| t.median),
            over: r.baseline.as_deref().zip(r.vs_baseline.as_ref()).map(|(b, v)| (b, v.lo, v.hi)),
        })
        .collect();
    let made = predictions::predict(&sides);
    for (row, p) in rows.iter_mut().zip(made) {
        row.predictions = p;
    }
}

impl Row {
    /// Whether a prediction from its shares missed: the column says
    /// `unexplained` instead of a bound.
    pub fn unexplained(&self) -> bool {
        predictions::missed(&self.predictions)
    }

    /// How many of what each of its transactions holds (insert-commit's rows per commit),
    /// where the report counts them.
    pub fn each(&self) -> Option<(u32, &'static Each)> {
        let each = crate::workload::figure::each_of(&self.workload)?;
        Some((*self.counts.get(each.key)?, each))
    }
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
        probe_us: probe.map(|f| f.avg_us),
        probe_cpu_us: probe.and_then(|f| f.cpu_us),
        embedded: crate::engine::by_name(&c.engine).is_ok_and(|e| e.facts().embedded),
    }
}

/// The headline figures the cell's workload names, from what it measured with `options`,
/// and what the figures derived per `Each` multiplied its tps by.
fn figures(
    workload: &str,
    types: &[by_type::TypeRow],
    tps: Option<Estimate>,
    options: &WorkloadOptions,
) -> (BTreeMap<&'static str, Estimate>, BTreeMap<&'static str, u32>) {
    let mut counts = BTreeMap::new();
    let mut derive = |f: &Figure| match f.from {
        Derived::TypeRate { name, times } => types.iter().find(|t| t.name == name)?.tps.map(|t| t.times(times)),
        Derived::Each(each) => {
            let n = (each.count)(options);
            counts.insert(each.key, n);
            tps.map(|t| t.times(f64::from(n)))
        }
    };
    let figures = crate::workload::figure::of(workload).iter().filter_map(|f| Some((f.key, derive(f)?))).collect();
    (figures, counts)
}

/// Leave out the figures derived per `Each` (rows/s) where no cell holds more than one:
/// they would say its tps again.
fn drop_single_counts(rows: &mut [Row]) {
    let mut per_each: Vec<(&str, &str)> = rows
        .iter()
        .flat_map(|r| crate::workload::figure::of(&r.workload).iter())
        .filter_map(|f| Some((f.key, f.each()?.key)))
        .collect();
    per_each.sort_unstable();
    per_each.dedup();
    for (figure, count) in per_each {
        if !rows.iter().any(|r| r.counts.get(count).is_some_and(|&n| n > 1)) {
            for r in rows.iter_mut() {
                r.figures.remove(figure);
                r.counts.remove(count);
            }
        }
    }
}
