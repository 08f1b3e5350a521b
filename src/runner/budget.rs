//! `--budget`: rounds until every comparison's verdict is settled, or the time is spent.
//!
//! A comparison is a cell against its baseline (the `× vs baseline` column). It is looked
//! at after the rounds stats/looks.rs schedules, on the two cells' within-round pairs,
//! and is settled once a look's interval is clear of 1. A cell leaves the rounds when it
//! has the repeats its median interval needs and every comparison it is part of is
//! settled; the time goes to those that are not. A round is started only if the slowest
//! repeat seen of each of its cells predicts it to end within the budget.

use super::cell::Cell;
use super::precision::least_repeats;
use super::rule::{Next, Rule};
use crate::baseline::{Baseline, Key};
use crate::results::{BudgetOutcome, StopReason};
use crate::stats::{self, looks};
use std::time::Duration;

/// Rounds after which a budgeted run stops whatever is left unsettled.
pub const MOST_ROUNDS: u32 = 200;

/// One cell's repeats so far.
#[derive(Clone, Debug, Default)]
struct Track {
    /// The repeats that measured and verified, with their rounds.
    good: stats::Repeats,
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
    budget: Option<Duration>,
    most: u32,
    least: u32,
    cells: Vec<Track>,
    comparisons: Vec<Comparison>,
    finished: u32,
}

impl Budget {
    /// No repeats yet of `cells`, each compared with its baseline (`baseline`, as
    /// `--baseline` gives it) at `level`, within `budget`.
    pub fn of_cells(cells: &[Cell], baseline: &str, level: f64, budget: Option<Duration>) -> Budget {
        let names: Vec<(String, String, String)> = cells
            .iter()
            .map(|c| (c.engine.name().to_string(), c.profile.name.clone(), c.workload.name().to_string()))
            .collect();
        let keys: Vec<Key> = cells
            .iter()
            .zip(&names)
            .map(|(c, (e, p, w))| Key { engine: e, profile: p, workload: w, clients: c.clients })
            .collect();
        let bases = Baseline::parse(baseline).of_each(&keys, |_| true);
        let pairs = bases.into_iter().enumerate().filter_map(|(cell, base)| base.map(|b| (cell, b)));
        Budget::new(cells.len(), pairs.collect(), level, budget, MOST_ROUNDS)
    }

    /// No repeats yet of `n` cells; `comparisons` (cell, its baseline) judged at `level`;
    /// no round started past `budget`, nor past `most` rounds.
    pub fn new(n: usize, comparisons: Vec<(usize, usize)>, level: f64, budget: Option<Duration>, most: u32) -> Budget {
        let comparisons = comparisons
            .into_iter()
            .filter(|(cell, base)| cell != base)
            .map(|(cell, base)| Comparison { cell, base, settled: false })
            .collect();
        Budget {
            level,
            budget,
            most,
            least: least_repeats(level),
            cells: vec![Track::default(); n],
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
        self.cells[c.cell].good.pairs(&self.cells[c.base].good).unwrap_or_default()
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
        if self.finished >= self.most {
            return Next::Stop(StopReason::MaxRepeat);
        }
        let predicted: Duration = cells.iter().map(|&i| self.cells[i].longest).sum();
        if self.finished > 0 && self.budget.is_some_and(|b| elapsed + predicted > b) {
            return Next::Stop(StopReason::MaxTime);
        }
        Next::Round(cells)
    }

    fn record(&mut self, i: usize, round: u32, tps: Option<f64>, took: Duration) {
        let t = &mut self.cells[i];
        t.repeats += 1;
        t.longest = t.longest.max(took);
        match tps {
            Some(x) => {
                t.good.tps.push(x);
                t.good.rounds.get_or_insert_with(Vec::new).push(round);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    /// Rounds until the rule stops, cell `i`'s repeat in round `r` giving `tps(i, r)`,
    /// each taking a second and each round two; the rounds' cells, and why it stopped.
    fn drive(b: &mut Budget, tps: impl Fn(usize, u32) -> Option<f64>) -> (Vec<Vec<usize>>, StopReason) {
        let ids: Vec<String> = (0..b.cells.len()).map(|i| format!("c{i}")).collect();
        let mut rounds = Vec::new();
        loop {
            match b.next(S * b.finished * 2) {
                Next::Stop(why) => return (rounds, why),
                Next::Round(cells) => {
                    let round = b.finished + 1;
                    for &i in &cells {
                        b.record(i, round, tps(i, round), S);
                    }
                    b.finish_round(&ids);
                    rounds.push(cells);
                }
            }
        }
    }

    #[test]
    fn a_clear_difference_settles_at_the_first_look_and_its_cells_leave() {
        // c1 twice c0 every round; c2 no comparison, only the median's least repeats.
        let mut b = Budget::new(3, vec![(1, 0)], 0.95, Some(Duration::from_secs(3600)), 200);
        let (rounds, why) = drive(&mut b, |i, r| Some(if i == 1 { 200.0 } else { 100.0 } + f64::from(r % 3)));
        assert_eq!(why, StopReason::Reached);
        assert_eq!(rounds.len(), 7);
        assert_eq!(rounds[5], [0, 1, 2]);
        assert_eq!(rounds[6], [0, 1], "c2 left after its six repeats");
        assert_eq!(b.outcome(7, why), BudgetOutcome { rounds: 7, reason: why, comparisons: 1, settled: 1 });
    }

    #[test]
    fn identical_cells_run_until_the_budget_is_spent() {
        // Two cells of a second each: 13 s hold six rounds, and a seventh would end past them.
        let mut b = Budget::new(2, vec![(1, 0)], 0.95, Some(Duration::from_secs(13)), 200);
        let (rounds, why) = drive(&mut b, |_, r| Some(100.0 + f64::from(r % 5)));
        assert_eq!(why, StopReason::MaxTime);
        assert_eq!(rounds.len(), 6);
        assert_eq!(b.outcome(6, why).settled, 0);
        // Without a budget, at the most rounds.
        let mut b = Budget::new(2, vec![(1, 0)], 0.95, None, 12);
        assert_eq!(
            drive(&mut b, |_, r| Some(100.0 + f64::from(r % 5))),
            ((0..12).map(|_| vec![0, 1]).collect(), StopReason::MaxRepeat)
        );
    }

    #[test]
    fn a_failed_repeat_ends_its_comparisons() {
        let mut b = Budget::new(3, vec![(1, 0), (2, 0)], 0.95, None, 200);
        // c2 fails in round 2; c1 is as fast as c0, so the baseline runs on for it.
        let (rounds, why) = drive(&mut b, |i, r| (i != 2 || r < 2).then_some(100.0 + f64::from(r % 4)));
        assert_eq!((rounds[2].clone(), why), (vec![0, 1], StopReason::MaxRepeat));
        assert_eq!(b.outcome(200, why), BudgetOutcome { rounds: 200, reason: why, comparisons: 2, settled: 0 });
    }
}
