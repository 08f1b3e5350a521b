//! The matrix: every cell, repeats interleaved (A B C A B C …) so drift hits every cell
//! alike; the results file is rewritten after each finished repeat.

use super::progress::Progress;
use super::{Settings, run_repeat};
use crate::error::{Error, Result};
use crate::instance::Locations;
use crate::plan::Plan;
use crate::results::{CellResult, RepeatStatus, Results, RunStatus, now_rfc3339};
use crate::signals;
use std::path::Path;

/// Run every cell `settings.repeat` times, saving `results` to `out` after each repeat.
/// Returns whether every repeat succeeded and verified.
pub fn run(
    plan: &Plan,
    s: &Settings,
    locations: &Locations,
    results: &mut Results,
    out: &Path,
    progress: Progress,
) -> Result<bool> {
    results.cells = plan
        .cells
        .iter()
        .map(|c| CellResult {
            id: c.id(),
            engine: c.engine.name().to_string(),
            profile: c.profile.clone(),
            workload: c.workload.name().to_string(),
            clients: c.clients,
            repeats: Vec::new(),
        })
        .collect();
    results.save(out)?;
    let total = plan.cells.len() * s.repeat as usize;
    let mut all_ok = true;
    let mut n = 0;
    let outcome = (|| {
        for repeat in 1..=s.repeat {
            for (i, cell) in plan.cells.iter().enumerate() {
                signals::check()?;
                n += 1;
                let r = run_repeat(cell, repeat, s, locations, progress)?;
                let line = match r.status {
                    RepeatStatus::Ok => match r.schedule {
                        Some(s) => {
                            format!("{:.0} tps, p95 {:.3} ms, lag avg {:.3} ms", r.tps, r.latency_ms.p95, s.lag_avg_ms)
                        }
                        None => format!("{:.0} tps, p95 {:.3} ms", r.tps, r.latency_ms.p95),
                    },
                    RepeatStatus::VerifyFailed => {
                        format!("{:.0} tps, VERIFY FAILED: {}", r.tps, r.verify.as_ref().map_or("", |v| &v.detail))
                    }
                    _ => format!("FAILED: {}", r.error.as_deref().unwrap_or("unknown error")),
                };
                all_ok &= r.status == RepeatStatus::Ok;
                progress.line(&format!("[{n:>3}/{total}] {} #{repeat}: {line}", cell.id()));
                results.cells[i].repeats.push(r);
                results.save(out)?;
            }
        }
        // A signal during the last repeat's verify or teardown still counts.
        signals::check()
    })();
    results.finished_at = Some(now_rfc3339());
    results.status = match &outcome {
        Ok(()) => RunStatus::Complete,
        Err(Error::Interrupted(_)) => RunStatus::Interrupted,
        Err(_) => RunStatus::Failed,
    };
    results.save(out)?;
    outcome.map(|()| all_ok)
}
