//! The matrix: every cell in rounds, each round's cells in an order drawn at random, so
//! drift hits every cell alike and two cells' repeats of one round are a fair pair; the
//! results file is rewritten after each finished repeat.

use super::budget::Budget;
use super::cell::Cell;
use super::precision::{Rounds, Target};
use super::rule::{Next, Rule};
use super::{Context, Loaded, run_repeat};
use crate::error::{Error, Result};
use crate::results::{CellResult, RepeatStatus, Results, RunStatus, StopReason, now_rfc3339};
use crate::rng::Rng;
use crate::signals;
use std::path::Path;
use std::time::{Duration, Instant};

/// Where the run starts: its cells, what their repeats need, and what the preflight
/// launched and kept.
pub struct Start<'a> {
    /// The cells, in plan order.
    pub cells: &'a [Cell],
    /// How servers run, cells are driven, data lives and progress shows.
    pub cx: Context<'a>,
    /// Each cell's instance launched and loaded by the preflight, when it keeps one.
    pub kept: Vec<Option<Loaded>>,
}

/// Run every cell `repeat` times, in rounds until `precision` is reached, or until every
/// comparison is settled or the budget is spent, saving `results` to `out` after each
/// repeat. Returns whether every repeat succeeded and verified.
pub fn run(start: Start, results: &mut Results, out: &Path) -> Result<bool> {
    let s = start.cx.settings;
    results.cells = start
        .cells
        .iter()
        .map(|c| CellResult {
            id: c.id(),
            engine: c.engine.name().to_string(),
            profile: c.profile.clone(),
            workload: c.workload.name().to_string(),
            clients: c.clients,
            repeats: Vec::new(),
            summary: None,
        })
        .collect();
    results.save(out)?;
    let ids: Vec<String> = start.cells.iter().map(|c| c.id()).collect();
    let mut m = Matrix { start, results, out, all_ok: true, order: Rng::new(s.driving.seed() ^ ORDER_STREAM) };
    let outcome = match (s.precision, s.budget) {
        (Some(t), _) => m.precise(t, &ids),
        (None, Some(b)) => m.budgeted(b, &ids),
        (None, None) => m.fixed(),
    };
    let all_ok = m.all_ok;
    // Kept servers stop before the report is printed.
    drop(m.start.kept);
    results.finished_at = Some(now_rfc3339());
    results.status = match &outcome {
        Ok(()) => RunStatus::Complete,
        Err(Error::Interrupted(_)) => RunStatus::Interrupted,
        Err(_) => RunStatus::Failed,
    };
    results.save(out)?;
    outcome.map(|()| all_ok)
}

/// The stream of the rounds' orders, apart from the clients' generators of the same seed.
const ORDER_STREAM: u64 = 0x0de7_0f2a_ce11_5eed;

/// One run of the matrix: what each repeat needs, and whether all went well.
struct Matrix<'a> {
    start: Start<'a>,
    results: &'a mut Results,
    out: &'a Path,
    all_ok: bool,
    order: Rng,
}

impl Matrix<'_> {
    /// `--repeat N`: every cell N times.
    fn fixed(&mut self) -> Result<()> {
        let (n, repeat) = (self.start.cells.len(), self.start.cx.settings.repeat);
        let total = n * repeat as usize;
        let mut done = 0;
        for round in 1..=repeat {
            for i in self.shuffled((0..n).collect()) {
                done += 1;
                self.repeat(i, round, round, &format!("[{done:>3}/{total}]"))?;
            }
        }
        // A signal during the last repeat's verify or teardown still counts.
        signals::check()
    }

    /// `--precision`: rounds of the cells still short, until none is left or time is up.
    /// The outcome is kept in the results whatever ends the rounds.
    fn precise(&mut self, target: Target, ids: &[String]) -> Result<()> {
        let mut rounds = Rounds::new(target, self.start.cx.settings.driving.confidence, ids.len());
        let (ended, finished) = self.rounds(&mut rounds, ids, Instant::now());
        self.results.precision_outcome = Some(rounds.outcome(ids, stop_reason(&ended)));
        self.results.options.repeat = finished;
        ended.map(drop)
    }

    /// `--budget`: rounds of the cells whose comparisons are not settled yet, until none
    /// is left or the budget is spent.
    fn budgeted(&mut self, budget: Duration, ids: &[String]) -> Result<()> {
        let (s, cells) = (self.start.cx.settings, self.start.cells);
        let mut rule = Budget::of_cells(cells, &self.results.options.baseline, s.driving.confidence, Some(budget));
        let (ended, finished) = self.rounds(&mut rule, ids, Instant::now());
        self.results.budget_outcome = Some(rule.outcome(finished, stop_reason(&ended)));
        self.results.options.repeat = finished;
        ended.map(drop)
    }

    /// Rounds as `rule` decides, `clock` the start its time counts from: why they stopped,
    /// and how many finished.
    fn rounds(&mut self, rule: &mut dyn Rule, ids: &[String], clock: Instant) -> (Result<StopReason>, u32) {
        let mut finished = 0;
        let ended = loop {
            let cells = match rule.next(clock.elapsed()) {
                Next::Round(cells) => cells,
                Next::Stop(reason) => break signals::check().map(|()| reason),
            };
            let round = finished + 1;
            let cells = self.shuffled(cells);
            let run = cells.iter().enumerate().try_for_each(|(j, &i)| {
                let took = Instant::now();
                let repeat = rule.repeats(i) + 1;
                let (status, tps) =
                    self.repeat(i, repeat, round, &format!("[round {round} {}/{}]", j + 1, cells.len()))?;
                rule.record(i, round, (status == RepeatStatus::Ok).then_some(tps), took.elapsed());
                Ok(())
            });
            if let Err(e) = run {
                break Err(e);
            }
            finished = round;
            self.start.cx.progress.line(&rule.finish_round(ids));
            self.results.options.repeat = finished;
        };
        (ended, finished)
    }

    /// `cells` in an order drawn at random for one round.
    fn shuffled(&mut self, mut cells: Vec<usize>) -> Vec<usize> {
        self.order.shuffle(&mut cells);
        cells
    }

    /// Measure repeat `repeat` of cell `i` in round `round`, say how it went after
    /// `label`, keep it.
    fn repeat(&mut self, i: usize, repeat: u32, round: u32, label: &str) -> Result<(RepeatStatus, f64)> {
        signals::check()?;
        let st = &mut self.start;
        let cell = &st.cells[i];
        let r = run_repeat(cell, repeat, st.cx, &mut st.kept[i])?;
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
        self.start.cx.progress.line(&format!("{label} {} #{repeat}: {line}", cell.id()));
        let done = (r.status, r.tps);
        self.results.cells[i].repeats.push(crate::results::RepeatResult { round: Some(round), ..r });
        self.results.save(self.out)?;
        Ok(done)
    }
}

/// Why the rounds stopped, for the outcome the results keep.
fn stop_reason(ended: &Result<StopReason>) -> StopReason {
    match ended {
        Ok(reason) => *reason,
        Err(Error::Interrupted(_)) => StopReason::Interrupted,
        Err(_) => StopReason::Failed,
    }
}
