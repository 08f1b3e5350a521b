//! `--precision`: which cells the next round repeats, and when the rounds stop.
//!
//! A cell has reached the precision asked when it has at least `min_repeat` repeats and
//! the interval of its median holds the target level (`confidence >= level`: min–max of
//! five repeats is only 93.75%) with a half-width within the target. Cells that reached it
//! or failed leave the rounds; the others stay in the rounds, in a random order, so drift still
//! hits every cell still measured alike. A round is started only if it is predicted to
//! end within `max_time`; once started it is finished.

use super::rule::{Next, Rule};
use crate::results::{CellPrecision, PrecisionOutcome, StopReason};
pub use crate::stats::precision_percent as percent;
use crate::stats::{self, Estimate};
use std::time::Duration;

/// `--max-repeat` when not given (or `--min-repeat`, if larger).
pub const DEFAULT_MAX_REPEAT: u32 = 50;

/// `--max-time` when not given.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(600);

/// What `--precision` asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The largest half-width accepted, as a fraction of the median (0.03 for ±3%).
    pub precision: f64,
    /// Repeats every cell gets before it may stop (never below `least_repeats`).
    pub min_repeat: u32,
    /// Repeats after which a cell stops, precise or not.
    pub max_repeat: u32,
    /// No round is started that is predicted to end later than this after the first.
    pub max_time: Duration,
}

/// The fewest repeats whose interval of the median (min–max) can hold `level`: 6 at 95%.
pub fn least_repeats(level: f64) -> u32 {
    (2..=1000).find(|&n| stats::order::median_rank(n, level).is_some_and(|(_, l)| l >= level)).unwrap_or(1000) as u32
}

/// One cell's repeats so far.
#[derive(Clone, Debug, Default)]
struct Track {
    /// tps of the repeats that measured and verified.
    tps: Vec<f64>,
    /// Repeats run, failed ones included.
    repeats: u32,
    /// The longest wall time of one repeat (launch to teardown): what the next may take.
    longest: Duration,
    /// A repeat failed or did not verify.
    failed: bool,
}

/// The state of a `--precision` run: every cell's repeats and the rounds finished.
#[derive(Clone, Debug)]
pub struct Rounds {
    target: Target,
    level: f64,
    cells: Vec<Track>,
    /// Rounds finished.
    pub finished: u32,
}

impl Rounds {
    /// No repeats yet of `cells` cells, aiming at `target` at confidence `level`.
    pub fn new(target: Target, level: f64, cells: usize) -> Rounds {
        Rounds { target, level, cells: vec![Track::default(); cells], finished: 0 }
    }

    /// One repeat of cell `i` that took `took`: its tps, or `None` if it failed or did not
    /// verify (the cell then leaves the rounds: the run is failed anyway, and repeating a
    /// broken cell would spend the others' time).
    pub fn record(&mut self, i: usize, tps: Option<f64>, took: Duration) {
        let t = &mut self.cells[i];
        t.repeats += 1;
        t.longest = t.longest.max(took);
        match tps {
            Some(x) => t.tps.push(x),
            None => t.failed = true,
        }
    }

    /// Close the round just run.
    pub fn finish_round(&mut self) {
        self.finished += 1;
    }

    /// Repeats of cell `i` so far.
    pub fn repeats(&self, i: usize) -> u32 {
        self.cells[i].repeats
    }

    /// Cell `i`'s median and interval over its good repeats.
    pub fn estimate(&self, i: usize) -> Estimate {
        stats::estimate(&self.cells[i].tps, self.level)
    }

    /// Whether cell `i` is as precise as asked, at the level asked, after enough repeats.
    pub fn reached(&self, i: usize) -> bool {
        let t = &self.cells[i];
        let e = self.estimate(i);
        !t.failed
            && t.repeats >= self.target.min_repeat
            && e.confidence.is_some_and(|c| c >= self.level)
            && e.precision().is_some_and(|p| p <= self.target.precision)
    }

    /// Whether cell `i` takes part in the next round.
    fn running(&self, i: usize) -> bool {
        let t = &self.cells[i];
        !t.failed && t.repeats < self.target.max_repeat && !self.reached(i)
    }

    /// Cells still short of the precision and not failed (at --max-repeat or not).
    pub fn short(&self) -> Vec<usize> {
        (0..self.cells.len()).filter(|&i| !self.cells[i].failed && !self.reached(i)).collect()
    }

    /// The next round, or why there is none, `elapsed` after the first round started.
    pub fn next(&self, elapsed: Duration) -> Next {
        let cells: Vec<usize> = (0..self.cells.len()).filter(|&i| self.running(i)).collect();
        if cells.is_empty() {
            let reason = if (0..self.cells.len()).all(|i| self.reached(i)) {
                StopReason::Reached
            } else if self.short().is_empty() {
                StopReason::Failed
            } else {
                StopReason::MaxRepeat
            };
            return Next::Stop(reason);
        }
        // Each cell's slowest repeat so far, so a round that ran long once is expected to
        // again; before the first round there is nothing to predict from, and it runs.
        let predicted: Duration = cells.iter().map(|&i| self.cells[i].longest).sum();
        if self.finished > 0 && elapsed + predicted > self.target.max_time {
            return Next::Stop(StopReason::MaxTime);
        }
        Next::Round(cells)
    }

    /// What the results file keeps: rounds, why they stopped, every cell's precision.
    pub fn outcome(&self, ids: &[String], reason: StopReason) -> PrecisionOutcome {
        let cells = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let e = self.estimate(i);
                CellPrecision {
                    id: id.clone(),
                    repeats: self.cells[i].repeats,
                    precision: e.precision(),
                    confidence: e.confidence,
                    reached: self.reached(i),
                    failed: self.cells[i].failed,
                }
            })
            .collect();
        PrecisionOutcome { rounds: self.finished, reason, level: self.level, cells }
    }

    /// The line after a round: which cells are still short, and how precise they are.
    pub fn progress_line(&self, ids: &[String]) -> String {
        let target = format!("±{} at {}", percent(self.target.precision), stats::percent(self.level));
        let short: Vec<usize> = (0..self.cells.len()).filter(|&i| self.running(i)).collect();
        let failed = self.cells.iter().filter(|t| t.failed).count();
        let failed = if failed > 0 { format!(" ({failed} failed)") } else { String::new() };
        if short.is_empty() {
            return format!("round {}: no cell left short of {target}{failed}", self.finished);
        }
        let list: Vec<String> = short.iter().map(|&i| format!("{} {}", ids[i], self.precision_text(i))).collect();
        format!(
            "round {}: {} of {} cells short of {target}{failed}: {}",
            self.finished,
            short.len(),
            self.cells.len(),
            list.join(", ")
        )
    }

    /// `±4.1% (75%)`, or why there is no interval yet.
    fn precision_text(&self, i: usize) -> String {
        let e = self.estimate(i);
        match (e.precision(), e.confidence) {
            (Some(p), Some(c)) => format!("±{} ({})", percent(p), stats::percent(c)),
            _ => "no interval yet".into(),
        }
    }
}

impl Rule for Rounds {
    fn next(&self, elapsed: Duration) -> Next {
        Rounds::next(self, elapsed)
    }
    fn record(&mut self, i: usize, _round: u32, tps: Option<f64>, took: Duration) {
        Rounds::record(self, i, tps, took);
    }
    fn finish_round(&mut self, ids: &[String]) -> String {
        Rounds::finish_round(self);
        self.progress_line(ids)
    }
    fn repeats(&self, i: usize) -> u32 {
        Rounds::repeats(self, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn target(precision: f64) -> Target {
        Target { precision, min_repeat: 6, max_repeat: 10, max_time: Duration::from_secs(3600) }
    }

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("c{i}")).collect()
    }

    /// Run the rounds to the end with cell `i`'s repeats drawn by `tps(i, repeat)`.
    fn drive(r: &mut Rounds, mut tps: impl FnMut(usize, u32) -> Option<f64>) -> (StopReason, Vec<Vec<usize>>) {
        let mut rounds = Vec::new();
        loop {
            match r.next(S * r.finished) {
                Next::Stop(reason) => return (reason, rounds),
                Next::Round(cells) => {
                    for &i in &cells {
                        let x = tps(i, r.repeats(i) + 1);
                        r.record(i, x, S / 10);
                    }
                    r.finish_round();
                    rounds.push(cells);
                }
            }
        }
    }

    #[test]
    fn six_repeats_are_the_least_at_95_percent() {
        assert_eq!(least_repeats(0.95), 6);
        assert_eq!(least_repeats(0.90), 5);
        assert_eq!(least_repeats(0.99), 8);
    }

    #[test]
    fn identical_repeats_reach_only_once_the_interval_holds_the_level() {
        // Zero width from the first two repeats, but min–max of five is a 93.75% interval.
        let t = Target { min_repeat: 1, ..target(0.01) };
        let mut r = Rounds::new(t, 0.95, 1);
        for n in 1..=5 {
            r.record(0, Some(100.0), S);
            assert!(!r.reached(0), "reached after {n}");
        }
        r.record(0, Some(100.0), S);
        assert!(r.reached(0));
        assert_eq!(r.next(S), Next::Stop(StopReason::Reached));
    }

    #[test]
    fn cells_that_reached_leave_and_the_rest_stay_interleaved() {
        let mut r = Rounds::new(target(0.05), 0.95, 3);
        // Cell 1 is steady; cells 0 and 2 swing ±20% for 8 repeats, then hold still.
        let (reason, rounds) = drive(&mut r, |i, n| {
            Some(match (i, n) {
                (1, _) => 100.0,
                (_, n) if n <= 8 => 100.0 + if n % 2 == 0 { 20.0 } else { -20.0 },
                _ => 100.0,
            })
        });
        assert_eq!(rounds[..6], vec![vec![0, 1, 2]; 6], "every cell gets --min-repeat");
        assert_eq!(rounds[6], [0, 2], "the steady cell left after its sixth repeat");
        assert_eq!(reason, StopReason::MaxRepeat, "{rounds:?}");
        assert_eq!(rounds.len(), 10);
        let o = r.outcome(&ids(3), reason);
        assert_eq!(
            o.cells.iter().map(|c| (c.repeats, c.reached)).collect::<Vec<_>>(),
            [(10, false), (6, true), (10, false)]
        );
        assert_eq!(o.cells[1].precision, Some(0.0));
        assert_eq!(o.rounds, 10);
    }

    #[test]
    fn a_precision_reached_everywhere_stops_the_rounds() {
        let mut r = Rounds::new(target(0.05), 0.95, 2);
        let (reason, rounds) = drive(&mut r, |i, n| Some(100.0 * (i + 1) as f64 + f64::from(n % 3)));
        assert_eq!((reason, rounds.len()), (StopReason::Reached, 6));
        assert!(r.outcome(&ids(2), reason).cells.iter().all(|c| c.reached && c.confidence >= Some(0.95)));
    }

    #[test]
    fn min_repeat_holds_a_precise_cell_back() {
        let t = Target { min_repeat: 9, ..target(0.05) };
        let mut r = Rounds::new(t, 0.95, 1);
        let (reason, rounds) = drive(&mut r, |_, _| Some(100.0));
        assert_eq!((reason, rounds.len()), (StopReason::Reached, 9));
    }

    #[test]
    fn a_failed_repeat_takes_its_cell_out() {
        let mut r = Rounds::new(target(0.05), 0.95, 2);
        let (reason, rounds) = drive(&mut r, |i, n| if i == 0 && n == 2 { None } else { Some(100.0) });
        assert_eq!(rounds[1], [0, 1]);
        assert_eq!(rounds[2], [1]);
        assert_eq!(reason, StopReason::Failed, "the only cell not reached failed");
        let o = r.outcome(&ids(2), reason);
        assert!(o.cells[0].failed && !o.cells[0].reached && o.cells[0].repeats == 2);
        assert!(o.cells[1].reached);
        // A cell short at --max-repeat outranks a failed one as the reason.
        let mut r = Rounds::new(target(0.05), 0.95, 2);
        let (reason, _) = drive(&mut r, |i, n| match i {
            0 => None,
            _ => Some(100.0 + 30.0 * f64::from(n % 2)),
        });
        assert_eq!(reason, StopReason::MaxRepeat);
    }

    #[test]
    fn a_round_that_cannot_end_in_time_is_not_started() {
        let t = Target { max_time: Duration::from_secs(10), ..target(0.0001) };
        let mut r = Rounds::new(t, 0.95, 2);
        // The first round runs whatever the clock says: nothing to predict from yet.
        assert_eq!(r.next(Duration::from_secs(60)), Next::Round(vec![0, 1]));
        r.record(0, Some(100.0), Duration::from_secs(1));
        r.record(1, Some(150.0), Duration::from_secs(2));
        r.finish_round();
        // The next round is predicted at 1 s + 2 s.
        assert_eq!(r.next(Duration::from_secs(7)), Next::Round(vec![0, 1]));
        assert_eq!(r.next(Duration::from_millis(7001)), Next::Stop(StopReason::MaxTime));
        // A slow repeat raises the prediction from then on.
        r.record(0, Some(100.0), Duration::from_secs(5));
        r.record(1, Some(150.0), Duration::from_secs(1));
        r.finish_round();
        assert_eq!(r.next(Duration::from_secs(3)), Next::Round(vec![0, 1]));
        assert_eq!(r.next(Duration::from_millis(3001)), Next::Stop(StopReason::MaxTime));
    }

    #[test]
    fn lines_name_the_cells_short_and_their_precision() {
        let mut r = Rounds::new(target(0.03), 0.95, 2);
        for x in [100.0, 110.0, 90.0] {
            r.record(0, Some(x), S);
            r.record(1, Some(50.0), S);
        }
        r.finish_round();
        assert_eq!(r.progress_line(&ids(2)), "round 1: 2 of 2 cells short of ±3% at 95%: c0 ±10% (75%), c1 ±0% (75%)");
        let o = r.outcome(&ids(2), StopReason::MaxTime);
        assert_eq!(
            crate::report::precision::summary(&o, 0.03),
            [
                "precision ±3% at 95%: 0 of 2 cells reached it in 1 round; stopped by --max-time.",
                "c0: short of ±3%: ±10% at 75% after 3 repeats",
                "c1: short of ±3%: ±0% at 75% after 3 repeats",
            ]
        );
        assert_eq!([0.03, 0.0214, 0.0001, 0.125, 1.0].map(percent), ["3%", "2.14%", "0.01%", "12.5%", "100%"]);
    }

    /// Stopping when the interval first looks narrow favours intervals that are narrow by
    /// luck: under lognormal noise of σ 5% and a ±3% target, the interval at the stop holds
    /// the true median 93.8% of the time (4000 trials), against the ≥ 95% of a fixed count.
    /// docs/DESIGN.md states the price; this keeps it from growing unnoticed.
    #[test]
    fn stopping_at_the_first_narrow_interval_keeps_most_of_the_coverage() {
        let mut rng = crate::rng::Rng::new(7);
        let (trials, mut held) = (4000, 0);
        for _ in 0..trials {
            let mut r = Rounds::new(Target { max_repeat: 50, ..target(0.03) }, 0.95, 1);
            drive(&mut r, |_, _| Some(100.0 * (0.05 * normal(&mut rng)).exp()));
            let e = r.estimate(0);
            held += usize::from(e.lo.unwrap() <= 100.0 && 100.0 <= e.hi.unwrap());
        }
        let coverage = held as f64 / f64::from(trials);
        assert!(coverage > 0.92, "coverage {coverage}");
    }

    /// A standard normal draw (Box–Muller).
    fn normal(rng: &mut crate::rng::Rng) -> f64 {
        let (u, v) = (rng.unit().max(f64::MIN_POSITIVE), rng.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}
