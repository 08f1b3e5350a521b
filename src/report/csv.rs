//! CSV, one row per cell, numbers unformatted.

use super::Row;
use crate::error::Result;

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

/// The counts of retried, failed and reconnected transactions, last.
const RECOVERY_HEAD: [&str; 4] = ["retried", "failed", "reconnects", "reconnect_s"];

/// Which of the optional column groups a CSV has.
#[derive(Clone, Copy)]
struct Columns {
    /// The run had a schedule.
    open_loop: bool,
    /// Some transaction was retried, failed or reconnected.
    recovered: bool,
}

impl Columns {
    /// The groups `rows` need: closed-loop CSV without recoveries stays as it was.
    fn of(rows: &[Row]) -> Self {
        Columns {
            open_loop: rows.iter().any(|r| r.schedule.is_some()),
            recovered: rows.iter().any(|r| r.tally.retried + r.tally.failed + r.tally.reconnects > 0),
        }
    }

    /// The fields of one record: `base`, then each optional group this CSV has.
    fn pick<'a, T>(self, base: &'a [T], schedule: &'a [T], recovery: &'a [T]) -> impl Iterator<Item = &'a T> {
        base.iter()
            .chain(schedule.iter().filter(move |_| self.open_loop))
            .chain(recovery.iter().filter(move |_| self.recovered))
    }
}

/// Render rows as CSV.
pub fn render(rows: &[Row]) -> Result<String> {
    let columns = Columns::of(rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| failed!("cannot write CSV: {e}");
    w.write_record(columns.pick(&HEAD, &SCHEDULE_HEAD, &RECOVERY_HEAD)).map_err(err)?;
    for r in rows {
        w.write_record(columns.pick(&base_fields(r), &schedule_fields(r), &recovery_fields(r))).map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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
