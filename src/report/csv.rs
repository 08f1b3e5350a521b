//! CSV, one row per cell, numbers unformatted; with `--by-type`, a row per transaction
//! type after its cell's, told apart by a last column, `type`.

use super::Row;
use super::by_type::TypeRow;
use crate::error::Result;
use crate::workload::figure::Figure;

/// The columns every CSV has.
const HEAD: [&str; 27] = [
    "id",
    "engine",
    "profile",
    "workload",
    "clients",
    "repeats",
    "failed_repeats",
    "tps_median",
    "tps_mean",
    "tps_ci_lo",
    "tps_ci_hi",
    "tps_confidence",
    "lat_avg_ms",
    "lat_p50_ms",
    "lat_p95_ms",
    "lat_p99_ms",
    "lat_max_ms",
    "ratio",
    "ratio_ci_lo",
    "ratio_ci_hi",
    "ratio_confidence",
    "verdict",
    "baseline",
    "errors",
    "retries",
    "client_cpu_us_per_tx",
    "survives",
];

/// The open-loop columns, after [`HEAD`].
const SCHEDULE_HEAD: [&str; 6] = ["lag_avg_ms", "lag_max_ms", "skipped", "skipped_pct", "late", "late_pct"];

/// The counts of retried, failed and reconnected transactions, after the open-loop columns.
const RECOVERY_HEAD: [&str; 4] = ["retried", "failed", "reconnects", "reconnect_s"];

/// The costs per transaction and the bound's shares (docs/explain.md), after the others.
const COST_HEAD: [&str; 23] = [
    "fsyncs_per_tx",
    "fsync_us_per_tx",
    "flushes_per_tx",
    "log_bytes_per_tx",
    "full_pages_per_tx",
    "disk_write_bytes_per_tx",
    "disk_read_bytes_per_tx",
    "disk_read_us_per_tx",
    "cache_misses_per_tx",
    "cache_hit_ratio",
    "server_cpu_us_per_tx",
    "cpu_wait_us_per_tx",
    "server_kernel_cpu_us_per_tx",
    "io_wait_us_per_tx",
    "checkpoints",
    "bound",
    "share_storage",
    "share_server_cpu",
    "share_client",
    "share_disk_reads",
    "share_cpu_wait",
    "share_round_trips",
    "fsync_from",
];

/// The column that names a type row's type (empty on a cell's row), last of all.
const TYPE_HEAD: [&str; 1] = ["type"];

/// Which of the optional column groups a CSV has.
#[derive(Clone, Copy)]
struct Columns {
    /// The run had a schedule.
    open_loop: bool,
    /// Some transaction was retried, failed or reconnected.
    recovered: bool,
    /// Some cell has counters.
    costs: bool,
    /// `--by-type`, and some cell has transaction types.
    types: bool,
}

impl Columns {
    /// The groups `rows` need: closed-loop CSV without recoveries stays as it was.
    fn of(rows: &[Row], by_type: bool) -> Self {
        Columns {
            types: by_type && rows.iter().any(|r| !r.types.is_empty()),
            open_loop: rows.iter().any(|r| r.schedule.is_some()),
            recovered: rows.iter().any(|r| r.tally.retried + r.tally.failed + r.tally.reconnects > 0),
            costs: rows.iter().any(|r| r.cost.is_some()),
        }
    }

    /// The fields of one record from its groups in order (the base, schedule, recovery,
    /// cost and type columns): the base, then each optional group this CSV has.
    fn pick<T>(self, groups: [&[T]; 5]) -> impl Iterator<Item = &T> {
        let on = [true, self.open_loop, self.recovered, self.costs, self.types];
        groups.into_iter().zip(on).filter(|(_, on)| *on).flat_map(|(g, _)| g.iter())
    }
}

/// Render rows as CSV, with their types' rows when `by_type`.
pub fn render(rows: &[Row], by_type: bool) -> Result<String> {
    let columns = Columns::of(rows, by_type);
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| failed!("cannot write CSV: {e}");
    let figures = figures(rows);
    let head = columns.pick([&HEAD, &SCHEDULE_HEAD, &RECOVERY_HEAD, &COST_HEAD, &TYPE_HEAD]);
    let own: Vec<String> = figures.iter().flat_map(|f| figure_columns(f)).collect();
    w.write_record(head.copied().chain(own.iter().map(String::as_str))).map_err(err)?;
    for r in rows {
        let (base, schedule) = (base_fields(r), schedule_fields(r));
        let (recovery, costs) = (recovery_fields(r), cost_fields(r));
        let own = figure_fields(r, &figures);
        let groups = [&base[..], &schedule, &recovery, &costs, &[String::new()]];
        w.write_record(columns.pick(groups).chain(&own)).map_err(err)?;
        for t in r.types.iter().filter(|_| columns.types) {
            // The optional groups are the cell's: empty on its types' rows.
            let none = [const { String::new() }; COST_HEAD.len()];
            let empty = |head: &[&str]| &none[..head.len()];
            let base = type_fields(r, t);
            let groups = [&base, empty(&SCHEDULE_HEAD), empty(&RECOVERY_HEAD), &none, &[]];
            let blank = vec![String::new(); own.len()];
            w.write_record(columns.pick(groups).chain([&t.name]).chain(&blank)).map_err(err)?;
        }
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The headline figures some row has (tpcc's tpmC), a column group each, by key.
fn figures(rows: &[Row]) -> Vec<&'static Figure> {
    let mut all: Vec<&'static Figure> = rows
        .iter()
        .flat_map(|r| crate::workload::figure::of(&r.workload).iter().filter(|f| r.figures.contains_key(f.key)))
        .collect();
    all.sort_by_key(|f| f.key);
    all.dedup_by_key(|f| f.key);
    all
}

/// A figure's columns: what it multiplies tps by (`rows_per_commit`), where it says, then
/// its median and interval.
fn figure_columns(f: &Figure) -> impl Iterator<Item = String> {
    f.each().map(|e| e.key.to_string()).into_iter().chain(f.columns())
}

/// A row's fields under each of `figures`' columns, empty where it has none.
fn figure_fields(r: &Row, figures: &[&Figure]) -> Vec<String> {
    let mut out = Vec::new();
    for f in figures {
        if let Some(each) = f.each() {
            out.push(r.counts.get(each.key).map(u32::to_string).unwrap_or_default());
        }
        let t = r.figures.get(f.key);
        out.extend([t.map(|t| t.median), t.and_then(|t| t.lo), t.and_then(|t| t.hi)].map(or_empty));
    }
    out
}

/// A number as it is, or an empty field when there is none.
fn or_empty(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// A row's fields under [`HEAD`].
fn base_fields(r: &Row) -> [String; 27] {
    let (t, l, x) = (r.tps, r.latency_ms, r.vs_baseline);
    [
        r.id.clone(),
        r.engine.clone(),
        r.profile.clone(),
        r.workload.clone(),
        r.clients.to_string(),
        r.measured_repeats.to_string(),
        r.failed_repeats.to_string(),
        or_empty(t.map(|t| t.median)),
        or_empty(t.map(|t| t.mean)),
        or_empty(t.and_then(|t| t.lo)),
        or_empty(t.and_then(|t| t.hi)),
        or_empty(t.and_then(|t| t.confidence)),
        or_empty(l.map(|l| l.avg)),
        or_empty(l.map(|l| l.p50)),
        or_empty(l.map(|l| l.p95)),
        or_empty(l.map(|l| l.p99)),
        or_empty(l.map(|l| l.max)),
        or_empty(x.map(|x| x.value)),
        or_empty(x.and_then(|x| x.lo)),
        or_empty(x.and_then(|x| x.hi)),
        or_empty(x.and_then(|x| x.confidence)),
        verdict_field(r),
        r.baseline.clone().unwrap_or_default(),
        r.tally.errors.to_string(),
        r.tally.retries.to_string(),
        r.client_cpu_us_per_tx.to_string(),
        survives_field(r),
    ]
}

/// A type's fields under [`HEAD`]: its cell's names, its own tps, latency and counts;
/// what is the cell's alone (ratio, baseline, CPU, survives) empty.
fn type_fields(r: &Row, t: &TypeRow) -> [String; 27] {
    let (e, l) = (t.tps, t.latency_ms);
    let none = String::new;
    [
        r.id.clone(),
        r.engine.clone(),
        r.profile.clone(),
        r.workload.clone(),
        r.clients.to_string(),
        r.measured_repeats.to_string(),
        r.failed_repeats.to_string(),
        or_empty(e.map(|t| t.median)),
        or_empty(e.map(|t| t.mean)),
        or_empty(e.and_then(|t| t.lo)),
        or_empty(e.and_then(|t| t.hi)),
        or_empty(e.and_then(|t| t.confidence)),
        l.avg.to_string(),
        l.p50.to_string(),
        l.p95.to_string(),
        l.p99.to_string(),
        l.max.to_string(),
        none(),
        none(),
        none(),
        none(),
        none(),
        none(),
        t.errors.to_string(),
        t.retries.to_string(),
        none(),
        none(),
    ]
}

/// What an acknowledged commit survives, as the results file spells it (`power-loss`);
/// empty for files from before it was recorded.
fn survives_field(r: &Row) -> String {
    r.survives.map_or_else(String::new, |s| s.name().to_string())
}

/// The verdict against the baseline, or `baseline` for the baseline cell itself.
fn verdict_field(r: &Row) -> String {
    // The baseline against itself is no finding.
    match &r.baseline {
        Some(b) if *b == r.id => "baseline".to_string(),
        _ => r.vs_baseline.map(|x| x.verdict.label().to_string()).unwrap_or_default(),
    }
}

/// A row's fields under [`SCHEDULE_HEAD`], empty when it ran closed-loop.
fn schedule_fields(r: &Row) -> [String; 6] {
    let s = r.schedule;
    [
        or_empty(s.map(|s| s.lag_avg_ms)),
        or_empty(s.map(|s| s.lag_max_ms)),
        s.map(|s| s.skipped.to_string()).unwrap_or_default(),
        or_empty(s.map(|s| s.skipped_pct)),
        s.map(|s| s.late.to_string()).unwrap_or_default(),
        or_empty(s.map(|s| s.late_pct)),
    ]
}

/// A row's fields under [`RECOVERY_HEAD`].
fn recovery_fields(r: &Row) -> [String; 4] {
    let t = &r.tally;
    [t.retried.to_string(), t.failed.to_string(), t.reconnects.to_string(), t.reconnect_s.to_string()]
}

/// A row's fields under [`COST_HEAD`], empty where it has no counters.
fn cost_fields(r: &Row) -> [String; 23] {
    let c = r.cost.as_ref();
    let b = r.bound.as_ref();
    let share = |f: fn(&crate::report::bound::Shares) -> f64| or_empty(b.map(|b| f(&b.shares)));
    [
        or_empty(c.and_then(|c| c.fsyncs)),
        or_empty(c.and_then(|c| c.fsync_us)),
        or_empty(c.and_then(|c| c.flushes)),
        or_empty(c.and_then(|c| c.log_bytes)),
        or_empty(c.and_then(|c| c.full_pages)),
        or_empty(c.and_then(|c| c.disk_write_bytes)),
        or_empty(c.and_then(|c| c.disk_read_bytes)),
        or_empty(c.and_then(|c| c.disk_read_us)),
        or_empty(c.and_then(|c| c.cache_misses)),
        or_empty(c.and_then(|c| c.cache_hit_ratio)),
        or_empty(c.and_then(|c| c.server_cpu_us)),
        or_empty(c.and_then(|c| c.cpu_wait_us)),
        or_empty(c.and_then(|c| c.server_kernel_cpu_us)),
        or_empty(c.and_then(|c| c.io_wait_us)),
        or_empty(c.and_then(|c| c.checkpoints)),
        b.map(|b| b.bound.to_string()).unwrap_or_default(),
        share(|s| s.storage),
        share(|s| s.server_cpu),
        share(|s| s.client),
        share(|s| s.disk_reads),
        share(|s| s.cpu_wait),
        share(|s| s.round_trips),
        b.map(|b| b.fsync_from.to_string()).unwrap_or_default(),
    ]
}
