//! The Mann–Whitney U test (Wilcoxon rank-sum), two-sided, over per-repeat tps.
//!
//! Chosen over Welch's t because repeats are few (3–10) and throughput noise is skewed and
//! has outliers (a disturbed repeat is slow, rarely fast): the U test assumes no shape, a
//! single wild repeat moves it by one rank only, and with few repeats its p-value is exact
//! — computed from the permutation distribution of the rank sum, ties included — instead of
//! leaning on normality no one can check in five numbers. Its price: it needs at least 4
//! repeats on each side (or 3 against 5) to reach p < 0.05 at all; with 3 and 3 its
//! smallest p is 0.10, and `min_p` says so before any data is looked at.

use serde::Serialize;

/// The test's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct UTest {
    /// U of the first sample: pairs (a, b) with a > b, ties counting half.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Exact permutation p-value (else the normal approximation with tie correction).
    pub exact: bool,
}

/// Above this many values in all, the normal approximation replaces the exact count.
const EXACT_UP_TO: usize = 100;

/// Binomial coefficient as a float (exact for the sizes used here).
fn choose(n: usize, k: usize) -> f64 {
    (0..k.min(n - k)).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The smallest two-sided p-value samples of sizes `n` and `m` can give: both extreme
/// rank orders, out of all C(n+m, n).
pub fn min_p(n: usize, m: usize) -> f64 {
    if n == 0 || m == 0 { 1.0 } else { (2.0 / choose(n + m, n)).min(1.0) }
}

/// Test whether `a` and `b` come from the same distribution; `None` if either is empty.
pub fn test(a: &[f64], b: &[f64]) -> Option<UTest> {
    test_with(a, b, EXACT_UP_TO)
}

fn test_with(a: &[f64], b: &[f64], exact_up_to: usize) -> Option<UTest> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return None;
    }
    let total = n + m;
    // Doubled mid-ranks: integers even with ties (rank 2.5 -> 5).
    let mut all: Vec<(f64, bool)> = a.iter().map(|x| (*x, true)).chain(b.iter().map(|x| (*x, false))).collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut ranks2 = vec![0i64; total];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < total {
        let j = (i..total).find(|&j| all[j].0 != all[i].0).unwrap_or(total);
        let mid2 = (i + 1 + j) as i64; // 2 × the mean of ranks i+1 ..= j
        ranks2[i..j].iter_mut().for_each(|r| *r = mid2);
        ties.push(j - i);
        i = j;
    }
    let w2: i64 = (0..total).filter(|&k| all[k].1).map(|k| ranks2[k]).sum();
    let mean2 = (n * (total + 1)) as i64;
    let u = w2 as f64 / 2.0 - (n * (n + 1)) as f64 / 2.0;
    let dist = (w2 - mean2).abs();

    if total <= exact_up_to {
        // count[k][s]: ways to pick k of the values seen so far with doubled rank sum s.
        let max_sum = total * (total + 1);
        let mut count = vec![vec![0.0f64; max_sum + 1]; n + 1];
        count[0][0] = 1.0;
        for (seen, &r) in ranks2.iter().enumerate() {
            for k in (1..=n.min(seen + 1)).rev() {
                let (lower, upper) = count.split_at_mut(k);
                for s in (r as usize..=max_sum).rev() {
                    upper[0][s] += lower[k - 1][s - r as usize];
                }
            }
        }
        let all_ways: f64 = count[n].iter().sum();
        let extreme: f64 =
            count[n].iter().enumerate().filter(|(s, _)| (*s as i64 - mean2).abs() >= dist).map(|(_, c)| c).sum();
        return Some(UTest { u, p: (extreme / all_ways).min(1.0), exact: true });
    }
    let (nf, mf, tf) = (n as f64, m as f64, total as f64);
    let tie_term: f64 = ties.iter().map(|&t| (t as f64).powi(3) - t as f64).sum::<f64>() / (tf * (tf - 1.0));
    let var = nf * mf / 12.0 * ((tf + 1.0) - tie_term);
    if var <= 0.0 {
        return Some(UTest { u, p: 1.0, exact: false });
    }
    // Continuity correction: the rank sum moves in steps of (at least) one half.
    let z = ((dist as f64 / 2.0) - 0.5).max(0.0) / var.sqrt();
    Some(UTest { u, p: super::normal::erfc(z / std::f64::consts::SQRT_2).min(1.0), exact: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn fully_separated_samples_give_the_smallest_p() {
        // 3 vs 3: the two extreme orders of C(6,3) = 20 -> 0.1, never below 0.05.
        let t = test(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!(t.exact && close(t.p, 0.1, 1e-12) && t.u == 0.0, "{t:?}");
        assert!(close(min_p(3, 3), 0.1, 1e-12));
        // 4 vs 4: 2 / 70.
        let t = test(&[5.0, 6.0, 7.0, 8.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(t.p, 2.0 / 70.0, 1e-12) && t.u == 16.0, "{t:?}");
        assert!(min_p(3, 4) > 0.05 && min_p(4, 4) < 0.05 && min_p(3, 5) < 0.05);
    }

    #[test]
    fn ties_use_mid_ranks_and_count_exactly() {
        // Ranks 1, 2.5, 2.5, 4; a = {1, 2.5}: of the 6 pairs of ranks, sums 3.5, 3.5 and
        // 6.5, 6.5 are as far from the mean 5 as a's 3.5: p = 4/6.
        let t = test(&[1.0, 2.0], &[2.0, 3.0]).unwrap();
        assert!(close(t.p, 4.0 / 6.0, 1e-12) && t.u == 0.5, "{t:?}");
        // Identical samples: no evidence of any difference.
        let t = test(&[100.0, 100.0, 100.0], &[100.0, 100.0, 100.0]).unwrap();
        assert_eq!((t.p, t.u), (1.0, 4.5));
        let same = [3.0, 9.0, 4.0, 7.0, 5.0];
        assert_eq!(test(&same, &same).unwrap().p, 1.0);
    }

    #[test]
    fn one_wild_repeat_moves_one_rank_only() {
        let slow = [80.0, 81.0, 79.0, 80.5, 80.2];
        let fast = [100.0, 101.0, 99.0, 100.5, 1e9];
        assert!(close(test(&slow, &fast).unwrap().p, 2.0 / 252.0, 1e-12));
    }

    #[test]
    fn the_normal_approximation_agrees_with_the_exact_count_where_both_apply() {
        let a: Vec<f64> = (0..50).map(|i| f64::from(i) * 1.1).collect();
        let b: Vec<f64> = (0..50).map(|i| f64::from(i) * 1.1 + 9.05).collect();
        let exact = test_with(&a, &b, 100).unwrap();
        let approx = test_with(&a, &b, 99).unwrap();
        assert!(exact.exact && !approx.exact);
        // scipy.stats.mannwhitneyu(a, b, method='exact') gives 0.0070218993713882, and
        // 0.0074008172950910 with method='asymptotic' (continuity-corrected).
        assert!(close(exact.p, 0.007_021_899_371_388_2, 1e-12), "{exact:?}");
        assert!(close(approx.p, 0.007_400_817_295_091, 1e-6), "{approx:?}");
    }

    #[test]
    fn empty_samples_have_no_test() {
        assert!(test(&[], &[1.0]).is_none());
        assert_eq!(min_p(0, 5), 1.0);
    }
}
