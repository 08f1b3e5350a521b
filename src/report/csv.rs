//! CSV, one row per cell, numbers unformatted.

use super::Row;
use crate::error::Result;

/// Render rows as CSV.
pub fn render(rows: &[Row]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let head = [
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
    ];
    // Open-loop columns only when the run had a schedule: closed-loop CSV stays as it was.
    let open_loop = rows.iter().any(|r| r.schedule.is_some());
    let schedule_head = ["lag_avg_ms", "lag_max_ms", "skipped", "skipped_pct", "late", "late_pct"];
    // Likewise the counts of retried, failed and reconnected transactions, when any.
    let recovered = rows.iter().any(|r| r.tally.retried + r.tally.failed + r.tally.reconnects > 0);
    let recovery_head = ["retried", "failed", "reconnects", "reconnect_s"];
    let err = |e: csv::Error| failed!("cannot write CSV: {e}");
    let head =
        head.iter().chain(schedule_head.iter().filter(|_| open_loop)).chain(recovery_head.iter().filter(|_| recovered));
    w.write_record(head).map_err(err)?;
    for r in rows {
        let (t, l, x, s) = (r.tps, r.latency_ms, r.vs_baseline, r.schedule);
        let schedule = [
            opt(s.map(|s| s.lag_avg_ms)),
            opt(s.map(|s| s.lag_max_ms)),
            s.map(|s| s.skipped.to_string()).unwrap_or_default(),
            opt(s.map(|s| s.skipped_pct)),
            s.map(|s| s.late.to_string()).unwrap_or_default(),
            opt(s.map(|s| s.late_pct)),
        ];
        let base = [
            r.id.clone(),
            r.engine.clone(),
            r.profile.clone(),
            r.workload.clone(),
            r.clients.to_string(),
            r.measured_repeats.to_string(),
            r.failed_repeats.to_string(),
            opt(t.map(|t| t.median)),
            opt(t.map(|t| t.mean)),
            opt(t.and_then(|t| t.lo)),
            opt(t.and_then(|t| t.hi)),
            opt(t.and_then(|t| t.confidence)),
            opt(l.map(|l| l.avg)),
            opt(l.map(|l| l.p50)),
            opt(l.map(|l| l.p95)),
            opt(l.map(|l| l.p99)),
            opt(l.map(|l| l.max)),
            opt(x.map(|x| x.value)),
            opt(x.and_then(|x| x.lo)),
            opt(x.and_then(|x| x.hi)),
            opt(x.and_then(|x| x.confidence)),
            // The baseline against itself is no finding.
            match &r.baseline {
                Some(b) if *b == r.id => "baseline".to_string(),
                _ => x.map(|x| x.verdict.label().to_string()).unwrap_or_default(),
            },
            r.baseline.clone().unwrap_or_default(),
            r.tally.errors.to_string(),
            r.tally.retries.to_string(),
            r.client_cpu_us_per_tx.to_string(),
        ];
        let t = &r.tally;
        let recovery =
            [t.retried.to_string(), t.failed.to_string(), t.reconnects.to_string(), t.reconnect_s.to_string()];
        let record =
            base.iter().chain(schedule.iter().filter(|_| open_loop)).chain(recovery.iter().filter(|_| recovered));
        w.write_record(record).map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
