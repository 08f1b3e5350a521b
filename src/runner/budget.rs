//! `--budget`: rounds until every comparison's verdict is settled, or the time is spent.
//!
//! A comparison is a cell against its baseline (the `× vs baseline` column). It is looked
//! at after the rounds stats/looks.rs schedules, on the two cells' within-round pairs,
//! and is settled once a look's interval is clear of 1. A cell leaves the rounds when it
//! has the repeats its median interval needs and every comparison it is part of is
//! settled; the time goes to those that are not. A round is started only if the slowest
//! repeat seen of each of its cells predicts it to end within the budget.

use super::cell::Cell;
use super::matrix::Rule;
use super::precision::{Next, least_repeats};
use crate::baseline::{Baseline, Key};
use crate::results::{BudgetOutcome, StopReason};
use crate::stats::{self, looks};
use std::time::Duration;

/// Rounds after which a budgeted run stops whatever is left unsettled.
pub const MOST_ROUNDS: u32 = 200;

/// One cell's repeats so far.
#[derive(Clone, Debug, Default)]
struct Track {
    /// (round, tps) of the repeats that measured and verified.
    tps: Vec<(u32, f64)>,
    repeats: u32,
    longest: Duration,
    failed: bool,
}

/// A cell against its baseline cell.
#[derive(Clone, Debug)]
struct Comparison {
    cell: usize,
    base: usize,
    settled: bool,
}

/// The state of a budgeted run.
pub struct Budget {
    level: f64,
    budget: Duration,
    least: u32,
    cells: Vec<Track>,
    comparisons: Vec<Comparison>,
    finished: u32,
}

impl Budget {
    /// No repeats yet of `cells`, compared against `baseline` at `level`, within `budget`.
    pub fn new(cells: &[Cell], baseline: &str, level: f64, budget: Duration) -> Budget {
        let ids: Vec<(String, String, String)> = cells
            .iter()
            .map(|c| (c.engine.name().to_string(), c.profile.name.clone(), c.workload.name().to_string()))
            .collect();
        let keys: Vec<Key> = cells
            .iter()
            .zip(&ids)
            .map(|(c, (e, p, w))| Key { engine: e, profile: p, workload: w, clients: c.clients })
            .collect();
        let comparisons = Baseline::parse(baseline)
            .of_each(&keys, |_| true)
            .into_iter()
            .enumerate()
            .filter_map(|(cell, base)| {
                base.filter(|&b| b != cell).map(|base| Comparison { cell, base, settled: false })
            })
            .collect();
        Budget {
            level,
            budget,
            least: least_repeats(level),
            cells: vec![Track::default(); cells.len()],
            comparisons,
            finished: 0,
        }
    }

    /// What the results file keeps: rounds, and why they stopped.
    pub fn outcome(&self, rounds: u32, reason: StopReason) -> BudgetOutcome {
        let settled = self.comparisons.iter().filter(|c| c.settled).count() as u32;
        BudgetOutcome { rounds, reason, comparisons: self.comparisons.len() as u32, settled }
    }

    /// The two cells' repeats of the same rounds, in round order.
    fn pairs(&self, c: &Comparison) -> Vec<(f64, f64)> {
        let base = &self.cells[c.base].tps;
        self.cells[c.cell]
            .tps
            .iter()
            .filter_map(|(r, a)| base.iter().find(|(rb, _)| rb == r).map(|(_, b)| (*a, *b)))
            .collect()
    }

    /// Whether a comparison is still measured: neither side failed, not settled yet.
    fn open(&self, c: &Comparison) -> bool {
        !c.settled && !self.cells[c.cell].failed && !self.cells[c.base].failed
    }

    /// Whether cell `i` takes part in the next round.
    fn running(&self, i: usize) -> bool {
        let t = &self.cells[i];
        !t.failed
            && (t.repeats < self.least || self.comparisons.iter().any(|c| (c.cell == i || c.base == i) && self.open(c)))
    }

    /// The comparison's look at the pairs it has now, if one is scheduled there.
    fn look(&self, c: &Comparison) -> Option<stats::Ratio> {
        let pairs = self.pairs(c);
        let look = looks::scheduled(self.level).take_while(|l| l.pairs <= pairs.len()).last()?;
        (look.pairs == pairs.len()).then(|| stats::paired_ratio(&pairs, look.level))
    }
}

impl Rule for Budget {
    fn next(&self, elapsed: Duration) -> Next {
        let cells: Vec<usize> = (0..self.cells.len()).filter(|&i| self.running(i)).collect();
        if cells.is_empty() {
            let failed = self.cells.iter().any(|t| t.failed);
            return Next::Stop(if failed { StopReason::Failed } else { StopReason::Reached });
        }
        if self.finished >= MOST_ROUNDS {
            return Next::Stop(StopReason::MaxRepeat);
        }
        let predicted: Duration = cells.iter().map(|&i| self.cells[i].longest).sum();
        if self.finished > 0 && elapsed + predicted > self.budget {
            return Next::Stop(StopReason::MaxTime);
        }
        Next::Round(cells)
    }

    fn record(&mut self, i: usize, round: u32, tps: Option<f64>, took: Duration) {
        let t = &mut self.cells[i];
        t.repeats += 1;
        t.longest = t.longest.max(took);
        match tps {
            Some(x) => t.tps.push((round, x)),
            None => t.failed = true,
        }
    }

    fn finish_round(&mut self, ids: &[String]) -> String {
        self.finished += 1;
        for j in 0..self.comparisons.len() {
            let c = &self.comparisons[j];
            if self.open(c) && self.look(c).is_some_and(|r| r.settled()) {
                self.comparisons[j].settled = true;
            }
        }
        let open: Vec<String> = self
            .comparisons
            .iter()
            .filter(|c| self.open(c))
            .map(|c| format!("{} ({} pairs)", ids[c.cell], self.pairs(c).len()))
            .collect();
        let settled = self.comparisons.iter().filter(|c| c.settled).count();
        let total = self.comparisons.len();
        match open.len() {
            0 => format!("round {}: {settled} of {total} comparisons settled", self.finished),
            _ => format!(
                "round {}: {settled} of {total} comparisons settled; measuring {}",
                self.finished,
                open.join(", ")
            ),
        }
    }

    fn repeats(&self, i: usize) -> u32 {
        self.cells[i].repeats
    }
}
