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
        "lat_avg_ms",
        "lat_p50_ms",
        "lat_p95_ms",
        "lat_p99_ms",
        "lat_max_ms",
        "ratio",
        "ratio_ci_lo",
        "ratio_ci_hi",
        "within_noise",
        "baseline",
        "errors",
        "retries",
        "client_cpu_us_per_tx",
    ];
    let err = |e: csv::Error| failed!("cannot write CSV: {e}");
    w.write_record(head).map_err(err)?;
    for r in rows {
        let (t, l, x) = (r.tps, r.latency_ms, r.vs_baseline);
        w.write_record([
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
            opt(l.map(|l| l.avg)),
            opt(l.map(|l| l.p50)),
            opt(l.map(|l| l.p95)),
            opt(l.map(|l| l.p99)),
            opt(l.map(|l| l.max)),
            opt(x.map(|x| x.value)),
            opt(x.and_then(|x| x.lo)),
            opt(x.and_then(|x| x.hi)),
            x.map(|x| x.within_noise.to_string()).unwrap_or_default(),
            r.baseline.clone().unwrap_or_default(),
            r.errors.to_string(),
            r.retries.to_string(),
            r.client_cpu_us_per_tx.to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
