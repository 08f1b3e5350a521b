//! The matrix: every cell, repeats interleaved (A B C A B C …) so drift hits every cell
//! alike; the results file is rewritten after each finished repeat.

use super::cell::Cell;
use super::precision::{Next, Rounds, Target};
use super::progress::Progress;
use super::{Settings, run_repeat};
use crate::engine::Machine;
use crate::error::{Error, Result};
use crate::instance::Locations;
use crate::results::{CellResult, RepeatStatus, Results, RunStatus, StopReason, now_rfc3339};
use crate::signals;
use std::path::Path;
use std::time::Instant;

/// Run every cell `settings.repeat` times, or in rounds until `settings.precision` is
/// reached, saving `results` to `out` after each repeat. Returns whether every repeat
/// succeeded and verified.
pub fn run(
    cells: &[Cell],
    machine: &Machine,
    s: &Settings,
    locations: &Locations,
    results: &mut Results,
    out: &Path,
    progress: Progress,
) -> Result<bool> {
    results.cells = cells
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
    let mut m = Matrix { cells, machine, s, locations, results, out, progress, all_ok: true };
    let outcome = match s.precision {
        None => m.fixed(),
        Some(t) => m.precise(t),
    };
    let all_ok = m.all_ok;
    results.finished_at = Some(now_rfc3339());
    results.status = match &outcome {
        Ok(()) => RunStatus::Complete,
        Err(Error::Interrupted(_)) => RunStatus::Interrupted,
        Err(_) => RunStatus::Failed,
    };
    results.save(out)?;
    outcome.map(|()| all_ok)
}

/// One run of the matrix: what each repeat needs, and whether all went well.
struct Matrix<'a> {
    cells: &'a [Cell],
    machine: &'a Machine,
    s: &'a Settings,
    locations: &'a Locations,
    results: &'a mut Results,
    out: &'a Path,
    progress: Progress,
    all_ok: bool,
}

impl Matrix<'_> {
    /// `--repeat N`: every cell N times.
    fn fixed(&mut self) -> Result<()> {
        let total = self.cells.len() * self.s.repeat as usize;
        let mut n = 0;
        for repeat in 1..=self.s.repeat {
            for i in 0..self.cells.len() {
                n += 1;
                self.repeat(i, repeat, &format!("[{n:>3}/{total}]"))?;
            }
        }
        // A signal during the last repeat's verify or teardown still counts.
        signals::check()
    }

    /// `--precision`: rounds of the cells still short, until none is left or time is up.
    /// The outcome is kept in the results whatever ends the rounds.
    fn precise(&mut self, target: Target) -> Result<()> {
        let ids: Vec<String> = self.cells.iter().map(|c| c.id()).collect();
        let mut rounds = Rounds::new(target, self.s.confidence, ids.len());
        let started = Instant::now();
        let ended = (|| {
            loop {
                let cells = match rounds.next(started.elapsed()) {
                    Next::Round(cells) => cells,
                    Next::Stop(reason) => return signals::check().map(|()| reason),
                };
                let round = rounds.finished + 1;
                for (j, &i) in cells.iter().enumerate() {
                    let took = Instant::now();
                    let repeat = rounds.repeats(i) + 1;
                    let (status, tps) =
                        self.repeat(i, repeat, &format!("[round {round} {}/{}]", j + 1, cells.len()))?;
                    rounds.record(i, (status == RepeatStatus::Ok).then_some(tps), took.elapsed());
                }
                rounds.finish_round();
                self.results.options.repeat = rounds.finished;
                self.progress.line(&rounds.progress_line(&ids));
            }
        })();
        let reason = match &ended {
            Ok(reason) => *reason,
            Err(Error::Interrupted(_)) => StopReason::Interrupted,
            Err(_) => StopReason::Failed,
        };
        self.results.precision_outcome = Some(rounds.outcome(&ids, reason));
        ended.map(drop)
    }

    /// Measure repeat `repeat` of cell `i`, say how it went after `label`, keep it.
    fn repeat(&mut self, i: usize, repeat: u32, label: &str) -> Result<(RepeatStatus, f64)> {
        signals::check()?;
        let cell = &self.cells[i];
        let r = run_repeat(cell, self.machine, repeat, self.s, self.locations, self.progress)?;
        let line = match r.status {
            RepeatStatus::Ok => match r.schedule {
                Some(s) => format!("{:.0} tps, p95 {:.3} ms, lag avg {:.3} ms", r.tps, r.latency_ms.p95, s.lag_avg_ms),
                None => format!("{:.0} tps, p95 {:.3} ms", r.tps, r.latency_ms.p95),
            },
            RepeatStatus::VerifyFailed => {
                format!("{:.0} tps, VERIFY FAILED: {}", r.tps, r.verify.as_ref().map_or("", |v| &v.detail))
            }
            _ => format!("FAILED: {}", r.error.as_deref().unwrap_or("unknown error")),
        };
        self.all_ok &= r.status == RepeatStatus::Ok;
        self.progress.line(&format!("{label} {} #{repeat}: {line}", cell.id()));
        let done = (r.status, r.tps);
        self.results.cells[i].repeats.push(r);
        self.results.save(self.out)?;
        Ok(done)
    }
}
