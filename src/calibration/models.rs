//! Noise drawn from known distributions: what a quiet machine's repeats look like, a
//! machine with a disturbed repeat now and then, and one that drifts over the run.

use super::Rng;
use super::source::Source;
use crate::stats::normal;

/// The noise a repeat's throughput carries, multiplicative.
#[derive(Clone, Copy)]
pub enum Noise {
    Normal,
    Lognormal,
    Outliers,
    Drift,
}

impl Noise {
    /// Every model, in the table's order.
    pub const ALL: [Noise; 4] = [Noise::Normal, Noise::Lognormal, Noise::Outliers, Noise::Drift];

    /// One repeat's factor; `at` is its place in the run, 0 ..= 1.
    fn factor(self, rng: &mut Rng, at: f64) -> f64 {
        match self {
            Noise::Normal => 1.0 + 0.05 * rng.gauss(),
            Noise::Lognormal => (0.05 * rng.gauss()).exp(),
            Noise::Outliers => {
                let slow = if rng.unit() < 0.05 { 0.6 } else { 1.0 };
                slow * (0.03 * rng.gauss()).exp()
            }
            Noise::Drift => (1.0 - 0.1 * at) * (0.05 * rng.gauss()).exp(),
        }
    }

    /// The true median of one repeat's factor, where repeats share one distribution.
    fn median(self) -> Option<f64> {
        match self {
            Noise::Normal | Noise::Lognormal => Some(1.0),
            // 0.95·Φ(ln m / 0.03) + 0.05·Φ(ln(m/0.6) / 0.03) = ½, by bisection.
            Noise::Outliers => {
                let cdf = |m: f64| 0.95 * normal::cdf(m.ln() / 0.03) + 0.05 * normal::cdf((m / 0.6).ln() / 0.03);
                let (mut lo, mut hi) = (0.5, 1.5);
                for _ in 0..100 {
                    let mid = (lo + hi) / 2.0;
                    if cdf(mid) < 0.5 { lo = mid } else { hi = mid }
                }
                Some(lo)
            }
            // Repeats differ in distribution along the run: no one median to cover.
            Noise::Drift => None,
        }
    }
}

impl Source for Noise {
    fn name(&self) -> String {
        match self {
            Noise::Normal => "normal σ5%",
            Noise::Lognormal => "lognormal σ5%",
            Noise::Outliers => "lognormal σ3% + 5% at 0.6×",
            Noise::Drift => "lognormal σ5% + 10% drift",
        }
        .to_string()
    }

    /// Each round's two repeats in an order drawn at random, as `run` orders a round.
    fn rounds(&self, rng: &mut Rng, n: usize, scale: f64, _consecutive: bool) -> Vec<(f64, f64)> {
        let slots = (2 * n - 1).max(1) as f64;
        (0..n)
            .map(|i| {
                let first = usize::from(rng.unit() < 0.5);
                let at = |slot: usize| (2 * i + slot) as f64 / slots;
                (1000.0 * scale * self.factor(rng, at(first)), 1000.0 * self.factor(rng, at(1 - first)))
            })
            .collect()
    }

    /// Two runs side by side in time (their repeats alternate), or one after the other.
    fn runs(&self, rng: &mut Rng, n: usize, scale: f64, apart: bool) -> (Vec<f64>, Vec<f64>) {
        let slots = (2 * n - 1).max(1) as f64;
        let at = |i: usize, second: bool| match apart {
            false => (2 * i + usize::from(second)) as f64 / slots,
            true => (i + if second { n } else { 0 }) as f64 / slots,
        };
        let old = (0..n).map(|i| 1000.0 * self.factor(rng, at(i, false))).collect();
        let new = (0..n).map(|i| 1000.0 * scale * self.factor(rng, at(i, true))).collect();
        (old, new)
    }

    fn cell(&self, rng: &mut Rng, n: usize) -> (Vec<f64>, Option<f64>) {
        ((0..n).map(|_| 1000.0 * self.factor(rng, 0.0)).collect(), self.median().map(|m| 1000.0 * m))
    }
}
