//! The distribution-free interval of a ratio between two cells (Moses' interval for a
//! shift, on the logarithm of throughput).
//!
//! If one cell's repeats are the other's scaled by a factor r (the same noise, a
//! different speed), the m·n ratios a_i / b_j sorted hold r between the k-th smallest and
//! the k-th largest with probability 1 − 2·P(U ≤ k−1), U being the Mann–Whitney statistic
//! of two samples from one distribution. That interval excludes 1 exactly when the
//! two-sided U test rejects at its level, so the interval and the verdict cannot disagree.
//! Its levels are discrete: 3 against 3 reaches 90% at most (min–max of the nine ratios),
//! 4 against 4 97.1%, 5 against 5 96.8% with the third ratio from each end.

use super::normal;

/// Above this many values in all, the normal approximation replaces the exact count.
const EXACT_UP_TO: usize = 100;

/// P(U ≤ u) for u = 0 ..= m·n under the null (no ties), counted exactly.
fn u_cdf(m: usize, n: usize) -> Vec<f64> {
    // ways[i]: arrangements of i values of the first sample among j of the second, by U.
    // Adding a second-sample value above all: U unchanged (ways[i] of j − 1); below all:
    // every first-sample value gains one pair (ways[i − 1] of j, shifted by j).
    let mut ways = vec![vec![1.0]; m + 1];
    for j in 1..=n {
        for i in 1..=m {
            let mut next = vec![0.0; i * j + 1];
            for (u, w) in ways[i].iter().enumerate() {
                next[u] += w;
            }
            for (u, w) in ways[i - 1].iter().enumerate() {
                next[u + j] += w;
            }
            ways[i] = next;
        }
    }
    let total: f64 = ways[m].iter().sum();
    let mut acc = 0.0;
    ways[m]
        .iter()
        .map(|w| {
            acc += w;
            acc / total
        })
        .collect()
}

/// The k (1-based) for which the k-th smallest and k-th largest of the m·n pairwise
/// ratios bound a `level` interval, and the level it really has; with too few repeats
/// for `level`, k = 1 (the extremes) at its own, lower level.
pub fn ratio_rank(m: usize, n: usize, level: f64) -> Option<(usize, f64)> {
    ratio_rank_with(m, n, level, EXACT_UP_TO)
}

fn ratio_rank_with(m: usize, n: usize, level: f64, exact_up_to: usize) -> Option<(usize, f64)> {
    if m == 0 || n == 0 {
        return None;
    }
    let mn = m * n;
    let cdf: Box<dyn Fn(usize) -> f64> = if m + n <= exact_up_to {
        let c = u_cdf(m, n);
        Box::new(move |u| c[u])
    } else {
        let (mean, sd) = (mn as f64 / 2.0, (mn as f64 * (m + n + 1) as f64 / 12.0).sqrt());
        Box::new(move |u| normal::cdf((u as f64 + 0.5 - mean) / sd))
    };
    Some(super::deepest_rank(mn / 2, level, |k| cdf(k - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_null_distribution_of_u_by_hand() {
        // 2 against 2: U = 0, 1, 2, 2, 3, 4 over the C(4, 2) = 6 orders.
        let c = u_cdf(2, 2);
        let want = [1.0, 2.0, 4.0, 5.0, 6.0].map(|x| x / 6.0);
        assert!(c.iter().zip(want).all(|(a, b)| close(*a, b)), "{c:?}");
        // It agrees with the two-sided p of the exact U test for fully separated samples.
        for (m, n) in [(3, 3), (4, 4), (3, 5), (6, 7)] {
            assert!(close(2.0 * u_cdf(m, n)[0], super::super::mann_whitney::min_p(m, n)));
        }
    }

    #[test]
    fn levels_of_the_usual_repeat_counts() {
        // 3 v 3: the extremes hold 1 − 2/20 = 90%.
        let (k, l) = ratio_rank(3, 3, 0.95).unwrap();
        assert!(k == 1 && close(l, 0.9), "{k} {l}");
        // 5 v 5: P(U ≤ 2) = 4/252, P(U ≤ 3) = 7/252, so k = 3 at 1 − 8/252.
        let (k, l) = ratio_rank(5, 5, 0.95).unwrap();
        assert!(k == 3 && close(l, 1.0 - 8.0 / 252.0), "{k} {l}");
        assert_eq!(ratio_rank(0, 5, 0.95), None);
        assert_eq!(ratio_rank(1, 1, 0.95).unwrap(), (1, 0.0));
    }

    #[test]
    fn the_normal_approximation_joins_the_exact_count() {
        for (m, n) in [(50, 50), (30, 60)] {
            let (exact, le) = ratio_rank_with(m, n, 0.95, 100).unwrap();
            let (approx, la) = ratio_rank_with(m, n, 0.95, 0).unwrap();
            assert!((exact as i64 - approx as i64).abs() <= 1 && (le - la).abs() < 0.002, "{exact} {approx}");
        }
    }
}
