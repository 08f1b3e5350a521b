//! `dbrace merge`: the results files of the shards of one run (`--shard I/N`) added up
//! into one, repeat by repeat and slice by slice. Counts are summed and histograms added,
//! so every percentile is read from the merged histogram, never averaged.

use super::repeat::Verdict;
use super::{
    CellResult, Interval, Latency, RepeatResult, RepeatStatus, Results, RunStatus, ScheduleStats, StatementLatency,
    TypeLatency, add_types, decode_histogram, encode_histogram, merge_statements, new_histogram,
};
use crate::error::Result;
use hdrhistogram::Histogram;
use serde_json::Value;

/// One shard's file: the name it was read from (for messages) and its results.
pub struct ShardFile {
    /// The path as given.
    pub name: String,
    /// What it holds.
    pub results: Results,
}

/// The shards' files as one results file, or bad input naming the first difference.
pub fn merge(files: &[ShardFile], command: Vec<String>) -> Result<Results> {
    let [first, rest @ ..] = files else {
        return Err(bad_input!("merge needs the results files of a run's shards; give them all, e.g. s0.json s1.json"));
    };
    let count = check_shards(files)?;
    for f in rest {
        same_options(first, f)?;
        same_cells(first, f)?;
    }
    let mut out = first.results.clone();
    out.command = command;
    out.options.driving.shard = None;
    out.options.shards = Some(count);
    out.started_at = files.iter().map(|f| f.results.started_at.clone()).min().unwrap_or_default();
    out.finished_at = files.iter().map(|f| f.results.finished_at.clone()).max().flatten();
    out.status = files.iter().map(|f| f.results.status).max_by_key(|s| severity(*s)).unwrap_or(RunStatus::Complete);
    let every = first.results.options.driving.log_interval.map(|i| i.as_secs_f64());
    for (c, cell) in out.cells.iter_mut().enumerate() {
        for (r, repeat) in cell.repeats.iter_mut().enumerate() {
            let parts: Vec<&RepeatResult> = files.iter().map(|f| &f.results.cells[c].repeats[r]).collect();
            let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
            *repeat = merge_repeat(&parts, &names, &cell_label(&first.results.cells[c], r), every)?;
        }
    }
    Ok(out)
}

/// How bad a run's end was, for the merged status: the worst shard's.
fn severity(s: RunStatus) -> u8 {
    match s {
        RunStatus::Complete => 0,
        RunStatus::Running => 1,
        RunStatus::Interrupted => 2,
        RunStatus::Failed => 3,
    }
}

fn cell_label(c: &CellResult, r: usize) -> String {
    format!("{} repeat {}", c.id, r + 1)
}

/// Every file a shard of the same N, each shard once, none missing; N.
fn check_shards(files: &[ShardFile]) -> Result<u32> {
    let mut seen: Vec<(u32, &str)> = Vec::new();
    let mut count = None;
    for f in files {
        let Some(shard) = f.results.options.driving.shard else {
            return Err(bad_input!(
                "{} is not a shard's results file (no --shard in its run); merge the files of `dbrace run --shard I/N`",
                f.name
            ));
        };
        match count {
            Some(n) if n != shard.count => {
                return Err(bad_input!(
                    "{} is shard {} and {} a shard of {n}; merge the shards of one run",
                    f.name,
                    shard.label(),
                    files[0].name
                ));
            }
            _ => count = Some(shard.count),
        }
        if let Some((_, other)) = seen.iter().find(|(i, _)| *i == shard.index) {
            return Err(bad_input!(
                "{} and {other} are both shard {}; give each shard's file once",
                f.name,
                shard.label()
            ));
        }
        seen.push((shard.index, &f.name));
    }
    let n = count.unwrap_or(1);
    if let Some(missing) = (0..n).find(|i| !seen.iter().any(|(s, _)| s == i)) {
        return Err(bad_input!(
            "shard {missing}/{n}'s results file is missing; give all {n} (a merge of some shards would not be the run)"
        ));
    }
    Ok(n)
}

/// The options of two shards' runs agree, their shard aside.
fn same_options(a: &ShardFile, b: &ShardFile) -> Result<()> {
    let fields = |f: &ShardFile| -> Value {
        let mut v = serde_json::to_value(&f.results.options).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.remove("shard");
        }
        v
    };
    let (va, vb) = (fields(a), fields(b));
    if let Some(key) = first_difference(&va, &vb) {
        let show = |v: &Value| v.get(&key).map_or("none".to_string(), Value::to_string);
        return Err(bad_input!(
            "{} and {} differ in option '{key}' ({} vs {}); merge only the shards of one run",
            a.name,
            b.name,
            show(&va),
            show(&vb)
        ));
    }
    Ok(())
}

/// The first key of two JSON objects whose values differ.
fn first_difference(a: &Value, b: &Value) -> Option<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return (a != b).then(String::new);
    };
    a.keys().chain(b.keys()).find(|k| a.get(*k) != b.get(*k)).cloned()
}

/// The same cells, with the same profiles and as many repeats, in the same order.
fn same_cells(a: &ShardFile, b: &ShardFile) -> Result<()> {
    let ids = |f: &ShardFile| f.results.cells.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    if ids(a) != ids(b) {
        return Err(bad_input!(
            "{} and {} measured different cells ({} vs {}); merge only the shards of one run",
            a.name,
            b.name,
            ids(a).join(", "),
            ids(b).join(", ")
        ));
    }
    for (x, y) in a.results.cells.iter().zip(&b.results.cells) {
        if serde_json::to_value(&x.profile).ok() != serde_json::to_value(&y.profile).ok() {
            return Err(bad_input!(
                "{} and {} ran {} with different settings; merge only the shards of one run",
                a.name,
                b.name,
                x.id
            ));
        }
        if x.repeats.len() != y.repeats.len() {
            return Err(bad_input!(
                "{} has {} repeats of {} and {} has {}; merge only finished shards of one run",
                a.name,
                x.repeats.len(),
                x.id,
                b.name,
                y.repeats.len()
            ));
        }
    }
    Ok(())
}

/// The shards' measured phases began together: within a tenth of a slice (20 ms at least).
fn check_aligned(parts: &[&RepeatResult], names: &[&str], label: &str, every: Option<f64>) -> Result<()> {
    let starts: Vec<Option<std::time::SystemTime>> =
        parts.iter().map(|p| p.measure_started_at.as_deref().and_then(|t| humantime::parse_rfc3339(t).ok())).collect();
    let Some(Some(t0)) = starts.first().copied() else {
        return Err(bad_input!("{}: {label} has no measured start time; was it run with --start-at?", names[0]));
    };
    let tolerance = every.map_or(0.02, |e| (e * 0.1).max(0.02));
    for (t, name) in starts.iter().zip(names) {
        let Some(t) = t else {
            return Err(bad_input!("{name}: {label} has no measured start time; was it run with --start-at?"));
        };
        let apart = t.duration_since(t0).or_else(|_| t0.duration_since(*t)).map_or(0.0, |d| d.as_secs_f64());
        if apart > tolerance {
            return Err(bad_input!(
                "{name} and {} began measuring {label} {apart:.3} s apart (more than {tolerance:.3} s), so their slices do not line up; run the shards with one --start-at",
                names[0]
            ));
        }
    }
    Ok(())
}

/// One repeat of every shard as the repeat of the whole run.
fn merge_repeat(parts: &[&RepeatResult], names: &[&str], label: &str, every: Option<f64>) -> Result<RepeatResult> {
    check_aligned(parts, names, label, every)?;
    let first = parts[0];
    let hist = merged_histogram(parts)?;
    let sum = |f: fn(&RepeatResult) -> u64| parts.iter().map(|p| f(p)).sum::<u64>();
    let max = |f: fn(&RepeatResult) -> f64| parts.iter().map(|p| f(p)).fold(0.0, f64::max);
    let transactions = sum(|p| p.transactions);
    // They began together, so the run measured until the last shard stopped.
    let duration_s = max(|p| p.duration_s);
    Ok(RepeatResult {
        repeat: first.repeat,
        status: worst_status(parts),
        error: parts.iter().zip(names).find_map(|(p, n)| p.error.as_ref().map(|e| format!("{n}: {e}"))),
        started_at: parts.iter().map(|p| p.started_at.clone()).min().unwrap_or_default(),
        engine_version: first.engine_version.clone(),
        settings: first.settings.clone(),
        // One server, so one answer; were they to differ, the weaker holds for all.
        survives: parts.iter().filter_map(|p| p.survives).reduce(super::Survives::weaker),
        start_s: max(|p| p.start_s),
        connect_s: parts.iter().filter_map(|p| p.connect_s).reduce(f64::max),
        threads: parts.iter().filter_map(|p| p.threads).reduce(|a, b| a + b),
        load_s: max(|p| p.load_s),
        // The slowest shard's load is the merged one's.
        load_phases: parts
            .iter()
            .max_by(|a, b| a.load_s.total_cmp(&b.load_s))
            .map_or_else(Vec::new, |p| p.load_phases.clone()),
        transactions,
        warmup_transactions: sum(|p| p.warmup_transactions),
        tally: parts.iter().map(|p| &p.tally).sum(),
        duration_s,
        tps: if duration_s > 0.0 { transactions as f64 / duration_s } else { 0.0 },
        latency_ms: Latency::of(&hist),
        histogram: encode_histogram(&hist),
        timeline: added_timelines(parts),
        client_cpu_s: parts.iter().map(|p| p.client_cpu_s).sum(),
        client_kernel_cpu_s: parts.iter().map(|p| p.client_kernel_cpu_s).sum(),
        verify: merged_verify(parts, names),
        statements: merged_statements(parts),
        types: merged_types(parts)?,
        schedule: merged_schedule(parts, transactions),
        intervals: merge_intervals(parts, every)?,
        measure_started_at: first.measure_started_at.clone(),
        round: first.round,
        kept: first.kept,
        noise: first.noise,
        // The shards measured one server: its counters are the first shard's reading.
        counters: first.counters.clone(),
    })
}

/// The latency histograms of the shards that measured, added up.
fn merged_histogram(parts: &[&RepeatResult]) -> Result<Histogram<u64>> {
    let mut hist = new_histogram();
    for p in parts.iter().filter(|p| p.status.measured()) {
        hist.add(decode(&p.histogram)?).map_err(|e| failed!("cannot add latency histograms: {e:?}"))?;
    }
    Ok(hist)
}

/// The shards' timelines added second by second, as long as the longest.
fn added_timelines(parts: &[&RepeatResult]) -> Vec<u64> {
    let mut timeline: Vec<u64> = Vec::new();
    for p in parts {
        if timeline.len() < p.timeline.len() {
            timeline.resize(p.timeline.len(), 0);
        }
        for (t, n) in timeline.iter_mut().zip(&p.timeline) {
            *t += n;
        }
    }
    timeline
}

/// Every shard's statements' latencies, merged statement by statement.
fn merged_statements(parts: &[&RepeatResult]) -> Vec<StatementLatency> {
    let mut statements = Vec::new();
    for p in parts {
        merge_statements(&mut statements, &p.statements);
    }
    statements
}

/// Every measured shard's transaction types, added type by type: counts summed, each
/// type's percentiles read from its merged histogram.
fn merged_types(parts: &[&RepeatResult]) -> Result<Vec<TypeLatency>> {
    let measured = parts.iter().filter(|p| p.status.measured()).map(|p| p.types.as_slice());
    Ok(add_types(measured)?.iter().map(|(name, t)| t.record(name)).collect())
}

/// The worst shard's status: failed over verify-failed over ok.
fn worst_status(parts: &[&RepeatResult]) -> RepeatStatus {
    parts
        .iter()
        .map(|p| p.status)
        .max_by_key(|s| match s {
            RepeatStatus::Ok => 0,
            RepeatStatus::VerifyFailed => 1,
            RepeatStatus::Failed => 2,
        })
        .unwrap_or(RepeatStatus::Ok)
}

/// The consistency check, when every shard made one: ok when all were, each shard's detail.
fn merged_verify(parts: &[&RepeatResult], names: &[&str]) -> Option<Verdict> {
    parts.iter().all(|p| p.verify.is_some()).then(|| Verdict {
        ok: parts.iter().all(|p| p.verify.as_ref().is_some_and(|v| v.ok)),
        detail: parts
            .iter()
            .zip(names)
            .map(|(p, n)| format!("{n}: {}", p.verify.as_ref().map_or("", |v| v.detail.as_str())))
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// The run's open-loop schedule, if it had one: lag weighed by transactions, the rest summed or maxed.
fn merged_schedule(parts: &[&RepeatResult], transactions: u64) -> Option<ScheduleStats> {
    parts[0].schedule.map(|_| {
        let of = |p: &RepeatResult| p.schedule.unwrap_or_default();
        let lag_sum: f64 = parts.iter().map(|p| of(p).lag_avg_ms * p.transactions as f64).sum();
        ScheduleStats {
            lag_avg_ms: if transactions > 0 { lag_sum / transactions as f64 } else { 0.0 },
            lag_max_ms: parts.iter().map(|p| of(p).lag_max_ms).fold(0.0, f64::max),
            skipped: parts.iter().map(|p| of(p).skipped).sum(),
            late: parts.iter().map(|p| of(p).late).sum(),
        }
    })
}

/// Slice i of every shard added into slice i of the run.
fn merge_intervals(parts: &[&RepeatResult], every: Option<f64>) -> Result<Vec<Interval>> {
    let n = parts.iter().map(|p| p.intervals.len()).max().unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut hist = new_histogram();
        let mut sum = Interval::default();
        for s in parts.iter().filter_map(|p| p.intervals.get(i)) {
            hist.add(decode(&s.histogram)?).map_err(|e| failed!("cannot add interval histograms: {e:?}"))?;
            sum.tally += &s.tally;
        }
        let start_s = every
            .map_or_else(|| parts.iter().find_map(|p| p.intervals.get(i)).map_or(0.0, |s| s.start_s), |e| i as f64 * e);
        // The shards measured one server: its counters are the first shard's readings.
        let counters = parts[0].intervals.get(i).and_then(|s| s.counters.clone());
        out.push(Interval { start_s, transactions: hist.len(), histogram: encode_histogram(&hist), counters, ..sum });
    }
    Ok(out)
}

fn decode(s: &str) -> Result<Histogram<u64>> {
    if s.is_empty() { Ok(new_histogram()) } else { decode_histogram(s) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TypeTally;

    /// A shard's measured repeat: reads and updates of these latencies (ms).
    fn shard(reads: &[u64], updates: &[u64]) -> RepeatResult {
        let mut r = RepeatResult::failed(1, String::new(), String::new(), String::new());
        r.status = RepeatStatus::Ok;
        r.error = None;
        r.measure_started_at = Some("2026-01-01T00:00:00.000000Z".into());
        r.duration_s = 1.0;
        let mut all = new_histogram();
        for (name, lat) in [("read", reads), ("update", updates)] {
            let mut t = TypeTally { retries: 1, ..TypeTally::default() };
            for ms in lat {
                t.hist.record(ms * 1_000_000).unwrap();
                t.transactions += 1;
            }
            all.add(&t.hist).unwrap();
            r.transactions += t.transactions;
            r.types.push(t.record(name));
        }
        r.histogram = encode_histogram(&all);
        r
    }

    #[test]
    fn shards_merge_type_by_type_from_their_histograms() {
        let (a, b) = (shard(&[1, 1, 2], &[8]), shard(&[3], &[9, 40]));
        let mut failed = RepeatResult::failed(1, "gone".into(), String::new(), String::new());
        failed.measure_started_at = a.measure_started_at.clone();
        let m = merge_repeat(&[&a, &b, &failed], &["a", "b", "c"], "cell", None).unwrap();
        let names: Vec<&str> = m.types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "update"]);
        let update = &m.types[1];
        assert_eq!((update.transactions, update.retries), (3, 2));
        // The median of 8, 9 and 40 ms: the merged histogram's, not a mean of the shards'.
        assert!((update.latency_ms.p50 - 9.0).abs() < 0.01, "{:?}", update.latency_ms);
        assert_eq!(m.types.iter().map(|t| t.transactions).sum::<u64>(), m.transactions);
        assert_eq!(decode(&update.histogram).unwrap().len(), 3);
    }
}
