//! Repeats -> median with a 95% interval, and ratios against a baseline with their own
//! interval, flagged "within noise" when that interval contains 1.
//!
//! Both intervals are percentile bootstrap intervals of the median (10,000 resamples from
//! a fixed seed, so a report is reproducible). The bootstrap makes no assumption about the
//! shape of the noise: throughput is positive and skewed (a disturbed repeat is slow,
//! rarely fast), and the median is always inside its own interval. With few repeats the
//! interval is honestly wide: with three it spans the smallest to the largest repeat.

use crate::runner::rng::Rng;
use serde::{Deserialize, Serialize};

/// A point estimate with a 95% interval (absent with fewer than two samples).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Median of the samples.
    pub median: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Lower end of the 95% interval of the median.
    pub lo: Option<f64>,
    /// Upper end of the 95% interval of the median.
    pub hi: Option<f64>,
    /// Number of samples.
    pub n: usize,
}

/// A ratio of two medians with a 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Ratio of medians.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub lo: Option<f64>,
    /// Upper end of the 95% interval.
    pub hi: Option<f64>,
    /// The interval contains 1: no difference can be claimed.
    pub within_noise: bool,
}

const RESAMPLES: usize = 10_000;
const SEED: u64 = 0x00db_7ace;

/// The median of a slice (0 when empty).
pub fn median(xs: &[f64]) -> f64 {
    median_in_place(&mut xs.to_vec())
}

fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let (below, m, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let m = *m;
    if n % 2 == 1 { m } else { (below.iter().copied().fold(f64::MIN, f64::max) + m) / 2.0 }
}

/// Medians of `RESAMPLES` resamples of `xs` (with replacement).
fn bootstrap_medians(xs: &[f64], rng: &mut Rng) -> Vec<f64> {
    let mut buf = vec![0.0; xs.len()];
    (0..RESAMPLES)
        .map(|_| {
            for b in buf.iter_mut() {
                *b = xs[rng.range(0, xs.len() as i64 - 1) as usize];
            }
            median_in_place(&mut buf)
        })
        .collect()
}

/// The 2.5th and 97.5th percentiles.
fn percentiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let b = v.len() as f64;
    (v[(0.025 * b) as usize], v[(0.975 * b).ceil() as usize - 1])
}

/// Median and 95% interval of samples.
pub fn estimate(xs: &[f64]) -> Estimate {
    let n = xs.len();
    let mean = if n == 0 { 0.0 } else { xs.iter().sum::<f64>() / n as f64 };
    let (lo, hi) = match n {
        0 | 1 => (None, None),
        _ => {
            let (lo, hi) = percentiles(bootstrap_medians(xs, &mut Rng::new(SEED)));
            (Some(lo), Some(hi))
        }
    };
    Estimate { median: median(xs), mean, lo, hi, n }
}

/// `a / b` as a ratio of medians, with a 95% interval from independent resamples of each.
pub fn ratio(a: &[f64], b: &[f64]) -> Ratio {
    let value = median(a) / median(b);
    if a.len() < 2 || b.len() < 2 || b.iter().any(|x| *x <= 0.0) {
        return Ratio { value, lo: None, hi: None, within_noise: false };
    }
    let mut rng = Rng::new(SEED);
    let ma = bootstrap_medians(a, &mut rng);
    let mb = bootstrap_medians(b, &mut rng);
    let (lo, hi) = percentiles(ma.iter().zip(&mb).map(|(x, y)| x / y).collect());
    Ratio { value, lo: Some(lo), hi: Some(hi), within_noise: lo <= 1.0 && 1.0 <= hi }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn three_repeats_span_smallest_to_largest() {
        // A resample's median is the smallest value when two or three of its three draws
        // are: 3·(1/3)²·(2/3) + (1/3)³ = 7/27 ≈ 26% > 2.5%, so the interval is [min, max].
        let e = estimate(&[110.0, 100.0, 120.0]);
        assert_eq!((e.median, e.lo, e.hi), (110.0, Some(100.0), Some(120.0)));
    }

    #[test]
    fn ratio_of_three_repeats_by_hand() {
        // The smallest resampled ratio 200/110 has probability (7/27)² ≈ 6.7% > 2.5%, so it
        // is the lower end; 220/100 is the upper end by symmetry.
        let r = ratio(&[200.0, 210.0, 220.0], &[100.0, 105.0, 110.0]);
        assert_eq!(r.value, 2.0);
        assert!(close(r.lo.unwrap(), 200.0 / 110.0, 1e-12) && close(r.hi.unwrap(), 2.2, 1e-12), "{r:?}");
        assert!(!r.within_noise);
    }

    #[test]
    fn the_median_is_inside_its_interval_for_skewed_samples() {
        let xs = [100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 60.0, 60.0, 60.0, 60.0];
        let e = estimate(&xs);
        assert_eq!(e.median, 100.0);
        assert!(e.lo.unwrap() <= 100.0 && 100.0 <= e.hi.unwrap() && e.lo.unwrap() >= 60.0, "{e:?}");
        let tight: Vec<f64> = (0..500).map(|i| 1000.0 + f64::from(i % 7)).collect();
        let e = estimate(&tight);
        assert!(e.lo.unwrap() <= e.median && e.median <= e.hi.unwrap(), "{e:?}");
    }

    #[test]
    fn overlapping_samples_are_within_noise() {
        let r = ratio(&[100.0, 130.0, 90.0], &[95.0, 120.0, 105.0]);
        assert!(r.within_noise, "{r:?}");
        assert!(!ratio(&[300.0, 310.0, 320.0], &[95.0, 120.0, 105.0]).within_noise);
    }

    #[test]
    fn one_sample_has_no_interval_and_identical_samples_a_point() {
        let e = estimate(&[5.0]);
        assert_eq!((e.median, e.lo, e.hi), (5.0, None, None));
        assert!(ratio(&[5.0], &[1.0]).lo.is_none());
        let r = ratio(&[4.0, 4.0], &[2.0, 2.0]);
        assert_eq!((r.value, r.lo, r.hi, r.within_noise), (2.0, Some(2.0), Some(2.0), false));
    }

    #[test]
    fn reproducible() {
        let xs = [3.0, 9.0, 4.0, 7.0, 5.0];
        assert_eq!(estimate(&xs), estimate(&xs));
    }
}
