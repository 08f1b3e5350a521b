//! The distribution-free interval of a shift from paired differences (Wilcoxon's signed
//! rank, Tukey's Walsh averages), on the logarithm of a within-round ratio.
//!
//! Two cells measured in the same round share its conditions: a drift over the run, a
//! neighbour's build, a checkpoint of the machine's. Their log-ratio in that round, d_i,
//! carries what differs between the cells and little of what they share. When the order of
//! the cells inside each round is drawn at random, d_i minus the true log-ratio is
//! symmetric about 0 whatever the drift, so the n(n+1)/2 Walsh averages (d_i + d_j)/2,
//! i ≤ j, sorted, hold the true log-ratio between the k-th smallest and the k-th largest
//! with probability 1 − 2·P(T ≤ k−1), T being the signed-rank statistic of n pairs under
//! no difference. The interval excludes 0 exactly when the two-sided signed-rank test
//! rejects at its level. Its levels are discrete: 5 pairs reach 93.75% at most, 6 pairs
//! 96.9%, 8 pairs 99.2%.

use super::normal;

/// Above this many pairs, the normal approximation replaces the exact count.
const EXACT_UP_TO: usize = 300;

/// P(T ≤ t) for t = 0 ..= n(n+1)/2 under no difference: each of the 2^n sign patterns of
/// the ranks 1..n equally likely, counted exactly.
fn t_cdf(n: usize) -> Vec<f64> {
    let top = n * (n + 1) / 2;
    // ways[t]: sign patterns of the ranks seen so far whose positive ranks sum to t,
    // divided by 2 at each rank so that the counts stay probabilities.
    let mut ways = vec![0.0; top + 1];
    ways[0] = 1.0;
    for rank in 1..=n {
        for t in (rank..=rank * (rank + 1) / 2).rev() {
            ways[t] = (ways[t] + ways[t - rank]) / 2.0;
        }
        for w in &mut ways[..rank.min(top + 1)] {
            *w /= 2.0;
        }
    }
    let mut acc = 0.0;
    ways.iter()
        .map(|w| {
            acc += w;
            acc
        })
        .collect()
}

/// The k (1-based) for which the k-th smallest and k-th largest of the n(n+1)/2 Walsh
/// averages of n pairs bound a `level` interval, and the level it really has; with too
/// few pairs for `level`, k = 1 (the extremes) at its own, lower level.
pub fn walsh_rank(n: usize, level: f64) -> Option<(usize, f64)> {
    walsh_rank_with(n, level, EXACT_UP_TO)
}

fn walsh_rank_with(n: usize, level: f64, exact_up_to: usize) -> Option<(usize, f64)> {
    if n == 0 {
        return None;
    }
    let top = n * (n + 1) / 2;
    let cdf: Box<dyn Fn(usize) -> f64> = if n <= exact_up_to {
        let c = t_cdf(n);
        Box::new(move |t| c[t])
    } else {
        let nf = n as f64;
        let (mean, sd) = (top as f64 / 2.0, (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0).sqrt());
        Box::new(move |t| normal::cdf((t as f64 + 0.5 - mean) / sd))
    };
    Some(super::deepest_rank(top.div_ceil(2), level, |k| cdf(k - 1)))
}

/// The n(n+1)/2 Walsh averages of `d`, sorted.
pub fn walsh_averages(d: &[f64]) -> Vec<f64> {
    let mut w: Vec<f64> = (0..d.len()).flat_map(|i| d[i..].iter().map(move |y| (d[i] + y) / 2.0)).collect();
    w.sort_by(f64::total_cmp);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_null_distribution_of_t_by_hand() {
        // n = 3: the 8 sign patterns give T = 0, 1, 2, 3, 3, 4, 5, 6.
        let c = t_cdf(3);
        let want = [1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0].map(|x| x / 8.0);
        assert!(c.iter().zip(want).all(|(a, b)| close(*a, b)), "{c:?}");
        // Symmetric about n(n+1)/4, and it ends at 1.
        let c = t_cdf(10);
        assert!(close(c[55], 1.0) && close(c[26], 1.0 - c[28]) && close(c[27], 0.5), "{} {}", c[26], c[28]);
    }

    #[test]
    fn levels_of_the_usual_pair_counts() {
        // The extremes of n pairs miss with probability 2/2^n.
        for (n, extremes) in [(5, 0.9375f64), (6, 0.96875), (8, 1.0 - 2.0 / 256.0)] {
            let (k, l) = walsh_rank(n, 0.95).unwrap();
            assert!(k >= 1 && l >= extremes.min(0.95) - 1e-12, "n={n}: {k} {l}");
        }
        let (k, l) = walsh_rank(5, 0.95).unwrap();
        assert!(k == 1 && close(l, 0.9375), "{k} {l}");
        // n = 10 at 95%: P(T ≤ 8) = 25/1024, P(T ≤ 9) = 31/1024, so k = 9 at 1 − 50/1024
        // (scipy.stats.wilcoxon's exact table agrees).
        let (k, l) = walsh_rank(10, 0.95).unwrap();
        assert!(k == 9 && close(l, 1.0 - 50.0 / 1024.0), "{k} {l}");
        assert_eq!(walsh_rank(0, 0.95), None);
    }

    #[test]
    fn the_normal_approximation_joins_the_exact_count() {
        for n in [60, 150] {
            let (exact, le) = walsh_rank_with(n, 0.95, 1000).unwrap();
            let (approx, la) = walsh_rank_with(n, 0.95, 0).unwrap();
            assert!((exact as i64 - approx as i64).abs() <= 2 && (le - la).abs() < 0.002, "{exact} {approx}");
        }
    }

    #[test]
    fn walsh_averages_by_hand() {
        assert_eq!(walsh_averages(&[1.0, 3.0, 2.0]), [1.0, 1.5, 2.0, 2.0, 2.5, 3.0]);
    }
}
