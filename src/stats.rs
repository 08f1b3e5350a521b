//! Repeats -> median with a 95% interval, and ratios against a baseline with their own
//! interval, flagged "within noise" when that interval contains 1.
//!
//! Throughput is a positive, right-skewed quantity (a noisy repeat is slow, rarely fast),
//! so intervals are computed on the log scale: a cell's interval is Student's t interval
//! of mean log tps over its repeats, taken back with exp (always positive, asymmetric);
//! the ratio interval uses the delta method on the log scale with Welch's degrees of
//! freedom.

use serde::{Deserialize, Serialize};

/// A point estimate with a 95% interval (absent with fewer than two samples).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Median of the samples.
    pub median: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Lower end of the 95% interval (log-scale t interval).
    pub lo: Option<f64>,
    /// Upper end of the 95% interval.
    pub hi: Option<f64>,
    /// Number of samples.
    pub n: usize,
}

/// A ratio of two estimates with a 95% interval.
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

/// The median of a slice (0 when empty).
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample variance (n - 1 in the denominator).
fn variance(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() as f64 - 1.0)
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (floored: conservative).
pub fn t975(df: f64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    let d = df.floor().max(1.0) as usize;
    match d {
        1..=30 => TABLE[d - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Median and 95% interval of samples.
pub fn estimate(xs: &[f64]) -> Estimate {
    let n = xs.len();
    let (mid, avg) = if n == 0 { (0.0, 0.0) } else { (median(xs), mean(xs)) };
    let (lo, hi) = match n {
        0 | 1 => (None, None),
        _ if xs.iter().all(|x| *x > 0.0) => {
            let logs: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
            let hw = t975((n - 1) as f64) * (variance(&logs) / n as f64).sqrt();
            (Some((mean(&logs) - hw).exp()), Some((mean(&logs) + hw).exp()))
        }
        // A repeat that committed nothing has no logarithm: fall back to the plain interval.
        _ => {
            let hw = t975((n - 1) as f64) * (variance(xs) / n as f64).sqrt();
            (Some((avg - hw).max(0.0)), Some(avg + hw))
        }
    };
    Estimate { median: mid, mean: avg, lo, hi, n }
}

/// `a / b` (ratio of medians) with an interval from the log-scale delta method.
pub fn ratio(a: &[f64], b: &[f64]) -> Ratio {
    let value = median(a) / median(b);
    if a.len() < 2 || b.len() < 2 || a.iter().chain(b).any(|x| *x <= 0.0) {
        return Ratio { value, lo: None, hi: None, within_noise: false };
    }
    // Squared relative standard error of each mean: var / (n * mean^2).
    let rel = |x: &[f64]| variance(x) / (x.len() as f64 * mean(x).powi(2));
    let (va, vb) = (rel(a), rel(b));
    let se = (va + vb).sqrt();
    let df = if se == 0.0 {
        f64::INFINITY
    } else {
        (va + vb).powi(2) / (va.powi(2) / (a.len() as f64 - 1.0) + vb.powi(2) / (b.len() as f64 - 1.0))
    };
    let hw = t975(df) * se;
    let (lo, hi) = (value * (-hw).exp(), value * hw.exp());
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
    fn interval_of_three_repeats_by_hand() {
        // ln 100, ln 110, ln 120: mean 4.697714, s = 0.091192, t(2) = 4.303:
        // half-width 4.303 * 0.091192 / sqrt(3) = 0.226553; exp(4.697714 ∓ 0.226553).
        let e = estimate(&[100.0, 110.0, 120.0]);
        assert_eq!(e.median, 110.0);
        assert!(close(e.lo.unwrap(), 87.4583, 1e-3) && close(e.hi.unwrap(), 137.5884, 1e-3), "{e:?}");
    }

    #[test]
    fn interval_of_five_repeats_skewed_by_hand() {
        // Four logs of 10 and one of 20: mean ln 11.48698, s = 0.309990, t(4) = 2.776,
        // half-width 0.384843: [7.8176, 16.8787]; the median stays 10 and inside.
        let e = estimate(&[10.0, 10.0, 20.0, 10.0, 10.0]);
        assert_eq!(e.median, 10.0);
        assert!(close(e.lo.unwrap(), 7.8176, 1e-3) && close(e.hi.unwrap(), 16.8787, 1e-3), "{e:?}");
    }

    #[test]
    fn a_zero_repeat_falls_back_to_a_plain_interval_clipped_at_zero() {
        // mean 10, s = 10, t(2) = 4.303: 10 ± 24.843, clipped to [0, 34.843].
        let e = estimate(&[0.0, 10.0, 20.0]);
        assert!(close(e.lo.unwrap(), 0.0, 1e-9) && close(e.hi.unwrap(), 34.843, 1e-3), "{e:?}");
    }

    #[test]
    fn one_sample_has_no_interval() {
        let e = estimate(&[5.0]);
        assert_eq!((e.median, e.lo, e.hi), (5.0, None, None));
        assert!(ratio(&[5.0], &[1.0]).lo.is_none());
    }

    #[test]
    fn ratio_interval_by_hand() {
        // a = 200, 210, 220 (mean 210, var 100); b = 100, 105, 110 (mean 105, var 25).
        // rel var a = 100 / (3 * 44100) = 7.5586e-4; b = 25 / (3 * 11025) = 7.5586e-4.
        // se = sqrt(1.51172e-3) = 0.038881; df = (2v)^2 / (2 v^2 / 2) = 4; t(4) = 2.776.
        // ratio 2, interval 2 * exp(±2.776 * 0.038881) = [1.79538, 2.22795].
        let r = ratio(&[200.0, 210.0, 220.0], &[100.0, 105.0, 110.0]);
        assert_eq!(r.value, 2.0);
        assert!(close(r.lo.unwrap(), 1.79538, 1e-4) && close(r.hi.unwrap(), 2.22795, 1e-4), "{r:?}");
        assert!(!r.within_noise);
    }

    #[test]
    fn overlapping_samples_are_within_noise() {
        let r = ratio(&[100.0, 130.0, 90.0], &[95.0, 120.0, 105.0]);
        assert!(r.within_noise, "{r:?}");
    }

    #[test]
    fn identical_samples_give_a_point_interval() {
        let r = ratio(&[4.0, 4.0], &[2.0, 2.0]);
        assert_eq!((r.value, r.lo, r.hi, r.within_noise), (2.0, Some(2.0), Some(2.0), false));
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t975(1.0), 12.706);
        assert_eq!(t975(4.7), 2.776);
        assert_eq!(t975(1e9), 1.960);
    }
}
