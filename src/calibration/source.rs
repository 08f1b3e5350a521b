//! Where simulated repeats come from: a noise model, or a trace recorded on a real
//! machine. Either gives rounds of two cells, A and B, the way `dbrace run` and
//! `dbrace exec` measure them.

use super::Rng;

/// Rounds of two cells, and repeats of one cell, to judge.
pub trait Source: Sync {
    /// As the table names it.
    fn name(&self) -> String;
    /// `n` rounds of A and B in round order, A made `scale` times faster than it was
    /// (tps times `scale`; a run's wall time divided by it); `consecutive`: as they came
    /// one after another, else any `n` of them.
    fn rounds(&self, rng: &mut Rng, n: usize, scale: f64, consecutive: bool) -> Vec<(f64, f64)>;
    /// `n` repeats of B from each of two runs, as `compare` gets them: the first run's,
    /// and the second's made `scale` times faster; side by side in time, or `apart` (one
    /// after the other: whatever drifts between them shows).
    fn runs(&self, rng: &mut Rng, n: usize, scale: f64, apart: bool) -> (Vec<f64>, Vec<f64>);
    /// `n` repeats of B, and the true median they should hold (none under a drift).
    fn cell(&self, rng: &mut Rng, n: usize) -> (Vec<f64>, Option<f64>);
    /// Whether its values are wall times (exec), where smaller is faster.
    fn walls(&self) -> bool {
        false
    }
}
