//! What the rounds ask of the rule that runs them (a fixed number, `--precision`, a
//! budget): which cells the next round repeats, and when the rounds stop.

use crate::results::StopReason;
use std::time::Duration;

/// What comes after a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Repeat these cells (indices in plan order).
    Round(Vec<usize>),
    /// Start no further round.
    Stop(StopReason),
}

/// What decides which cells the next round repeats, and when the rounds stop.
pub trait Rule {
    /// The cells of the next round (in plan order), or why there is none, `elapsed` after
    /// the rounds began.
    fn next(&self, elapsed: Duration) -> Next;
    /// One repeat of cell `i` in round `round` that took `took`: its tps, or `None` if it
    /// failed or did not verify.
    fn record(&mut self, i: usize, round: u32, tps: Option<f64>, took: Duration);
    /// Close the round just run; the line that says where the rounds stand.
    fn finish_round(&mut self, ids: &[String]) -> String;
    /// Repeats of cell `i` so far.
    fn repeats(&self, i: usize) -> u32;
}
