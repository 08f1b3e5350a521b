//! The open-loop schedule of `--rate`: each client's share of the rate as Poisson arrivals
//! (exponential gaps), as pgbench's `-R` draws them per thread. Transactions are timed from
//! their scheduled start, so a client that falls behind shows it in latency instead of
//! quietly slowing its arrivals (no coordinated omission).

use crate::rng::Rng;
use std::time::{Duration, Instant};

/// One client's arrival times.
pub struct Schedule {
    rng: Rng,
    /// Mean gap between arrivals, nanoseconds.
    mean_gap_ns: f64,
    /// Slots later than this when their turn comes are skipped (`--latency-limit`).
    pub limit: Option<Duration>,
    /// The last arrival drawn.
    trigger: Option<Instant>,
}

impl Schedule {
    /// `rate` transactions per second for this client, seeded for repeatable arrivals.
    pub fn new(rate: f64, limit: Option<Duration>, seed: u64) -> Schedule {
        Schedule { rng: Rng::new(seed), mean_gap_ns: 1e9 / rate, limit, trigger: None }
    }

    /// The next arrival: an exponential gap after the previous one, the first counted from
    /// `now` (the client's start, as pgbench counts from its thread's).
    pub fn next(&mut self, now: Instant) -> Instant {
        let at = self.trigger.unwrap_or(now) + Duration::from_nanos(self.gap_ns());
        self.trigger = Some(at);
        at
    }

    /// An exponential gap by inverse transform, as pgbench's getPoissonRand (in
    /// nanoseconds rather than microseconds): 1 − u lies in (0, 1], so the log is finite.
    fn gap_ns(&mut self) -> u64 {
        (-(1.0 - self.rng.unit()).ln() * self.mean_gap_ns).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exponential gaps: mean μ and standard deviation μ; with 200,000 draws the sample
    /// mean's standard error is μ/447, so 1% is more than four of them.
    #[test]
    fn gaps_are_exponential_with_the_rate_asked() {
        let mut s = Schedule::new(1000.0, None, 42);
        let n = 200_000;
        let gaps: Vec<f64> = (0..n).map(|_| s.gap_ns() as f64).collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "mean gap {mean} ns, expected 1e6");
        assert!((sd / 1e6 - 1.0).abs() < 0.02, "sd {sd} ns, expected 1e6");
        // P(gap > μ) = e^-1 for an exponential (a uniform or constant pacing would not match).
        let above = gaps.iter().filter(|g| **g > 1e6).count() as f64 / n as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.005, "share above the mean {above}");
    }

    #[test]
    fn arrivals_advance_from_the_previous_one() {
        let mut s = Schedule::new(10.0, None, 1);
        let t0 = Instant::now();
        let a = s.next(t0);
        // A later `now` does not move the schedule: it is fixed in advance.
        let b = s.next(t0 + Duration::from_secs(100));
        assert!(a > t0 && b > a && b < t0 + Duration::from_secs(50));
    }
}
