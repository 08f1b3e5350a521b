//! The distribution-free interval of a median from order statistics.
//!
//! Of n independent repeats sorted x(1) ≤ … ≤ x(n), the interval [x(k), x(n+1−k)] misses
//! the true median only when k or more repeats fall on one side of it, so it holds the
//! median with probability 1 − 2·P(B ≤ k−1) for B ~ Binomial(n, ½), whatever the shape of
//! the noise. The levels are discrete: min–max of 3 is 75%, of 5 is 93.75%, of 6 is 96.9%.

/// The widest-inward `k` whose interval [x(k), x(n+1−k)] still holds `level`, and the
/// level it really has. With too few repeats for `level`, min–max (k = 1) and its own,
/// lower level. `None` below two repeats.
pub fn median_rank(n: usize, level: f64) -> Option<(usize, f64)> {
    if n < 2 {
        return None;
    }
    // P(B ≤ k − 1) accumulated from the pmf in logs: 2^-n underflows past n ≈ 1000.
    let mut log_pmf = -(n as f64) * std::f64::consts::LN_2;
    let mut below = 0.0;
    Some(super::deepest_rank(n / 2, level, |k| {
        below += log_pmf.exp();
        log_pmf += ((n - k + 1) as f64 / k as f64).ln();
        below
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn small_samples_have_the_levels_worked_out_by_hand() {
        assert_eq!(median_rank(1, 0.95), None);
        // min–max: 1 − 2/2^n.
        for (n, level) in [(2, 0.5), (3, 0.75), (4, 0.875), (5, 0.9375), (6, 0.96875)] {
            let (k, l) = median_rank(n, 0.95).unwrap();
            assert!(k == 1 && close(l, level), "n={n}: {k} {l}");
        }
        // n = 9: k = 2 leaves 1 − 2·(1 + 9)/512 = 0.9609; k = 3 would be 0.8203.
        let (k, l) = median_rank(9, 0.95).unwrap();
        assert!(k == 2 && close(l, 1.0 - 20.0 / 512.0), "{k} {l}");
        // A lower target moves inward: at 80%, n = 9 takes k = 3.
        assert_eq!(median_rank(9, 0.80).unwrap().0, 3);
    }

    #[test]
    fn large_samples_stay_at_or_above_the_level() {
        for n in [20, 50, 200, 2000] {
            let (k, l) = median_rank(n, 0.95).unwrap();
            assert!((0.95..0.97).contains(&l), "n={n}: {k} {l}");
            // Close to the normal approximation n/2 − 0.98·√n.
            let approx = n as f64 / 2.0 - 0.98 * (n as f64).sqrt();
            assert!((k as f64 - approx).abs() <= 2.0, "n={n}: k={k}, approx {approx}");
        }
    }
}
