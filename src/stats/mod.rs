//! Repeats -> a median with an interval at the confidence it really has, and ratios
//! against a baseline with their own interval and a three-way verdict.
//!
//! Both intervals are distribution-free and exact for independent repeats: the median's
//! from order statistics (order.rs); the ratio's from the within-round log-ratios and the
//! signed-rank distribution where the two cells ran in the same rounds in a random order
//! (signed_rank.rs), else from the pairwise ratios and the Mann–Whitney distribution
//! (shift.rs). Their levels are discrete, so each says the level it has; with too few
//! repeats for the level asked, the widest interval the repeats allow is given with its
//! own, lower level, and no verdict is claimed. A run on a budget looks at its comparisons
//! as rounds come in (looks.rs). docs/statistics.md explains the choice.

pub mod looks;
pub mod mann_whitney;
pub mod normal;
pub mod order;
pub mod shift;
pub mod signed_rank;

use serde::{Deserialize, Serialize};

/// The confidence intervals aim at unless asked otherwise.
pub const LEVEL: f64 = 0.95;

/// A median with its interval (absent with fewer than two samples).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Median of the samples.
    pub median: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Lower end of the interval of the median.
    pub lo: Option<f64>,
    /// Upper end of the interval of the median.
    pub hi: Option<f64>,
    /// The probability that the interval holds the true median (e.g. 0.75 for min–max of 3).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Number of samples.
    pub n: usize,
}

impl Estimate {
    /// The interval's larger half-width as a fraction of the median (0.03 for ±3%).
    pub fn precision(&self) -> Option<f64> {
        let (lo, hi) = (self.lo?, self.hi?);
        (self.median > 0.0).then(|| (hi - self.median).max(self.median - lo) / self.median)
    }

    /// The same estimate of `k` times the quantity (rows per second from transactions per
    /// second): median, mean and interval scaled, its level and count kept.
    pub fn times(self, k: f64) -> Estimate {
        Estimate {
            median: self.median * k,
            mean: self.mean * k,
            lo: self.lo.map(|x| x * k),
            hi: self.hi.map(|x| x * k),
            ..self
        }
    }
}

/// What a ratio's interval says about the difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The interval lies above 1: the first is faster.
    Faster,
    /// The interval lies below 1: the first is slower.
    Slower,
    /// The interval holds 1: no difference can be claimed.
    NoSignificantDifference,
    /// Too few repeats for an interval at the level asked: nothing can be told.
    TooFewRepeats,
}

impl Verdict {
    /// As the reports print it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::TooFewRepeats => "too few repeats to tell",
        }
    }
}

/// A ratio of two medians with its interval and verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Ratio of medians.
    pub value: f64,
    /// Lower end of the interval.
    pub lo: Option<f64>,
    /// Upper end of the interval.
    pub hi: Option<f64>,
    /// The probability that the interval holds the true ratio.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Faster, slower, no significant difference, or too few repeats to tell.
    pub verdict: Verdict,
    /// Within-round pairs it was judged on (the signed-rank interval); absent when judged
    /// on all repeats of both cells (the Mann–Whitney interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<usize>,
    /// Looks a budgeted run took before this one (the first is 1); absent for a run
    /// judged once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks: Option<usize>,
}

impl Ratio {
    /// Whether the interval is clear of 1 at the level asked: nothing more to measure.
    pub fn settled(&self) -> bool {
        matches!(self.verdict, Verdict::Faster | Verdict::Slower)
    }
}

/// One cell's measured repeats: tps, and the round each ran in where the run drew the
/// cells' order in each round at random (absent in files from before it did).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Repeats {
    /// tps of each measured repeat.
    pub tps: Vec<f64>,
    /// The round of each, in the same order.
    pub rounds: Option<Vec<u32>>,
}

impl Repeats {
    /// The repeats of `self` and `other` that ran in the same round, in round order:
    /// (self's, other's).
    pub fn pairs(&self, other: &Repeats) -> Option<Vec<(f64, f64)>> {
        let (mine, theirs) = (self.rounds.as_ref()?, other.rounds.as_ref()?);
        let mut out: Vec<(u32, f64, f64)> = mine
            .iter()
            .zip(&self.tps)
            .filter_map(|(r, a)| theirs.iter().position(|x| x == r).map(|j| (*r, *a, other.tps[j])))
            .collect();
        out.sort_by_key(|(r, _, _)| *r);
        Some(out.into_iter().map(|(_, a, b)| (a, b)).collect())
    }
}

/// How a run's comparisons are judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Judging {
    /// Once, on everything measured (`--repeat N`, `--precision`, compare, a file of old).
    Once,
    /// At the looks of a budgeted run, stopping at the first settled one (looks.rs).
    Looks,
}

/// `a / b` as one verdict for run, compare and exec: on the within-round pairs where the
/// two ran in the same randomly ordered rounds and enough of them can reach `level` (or a
/// budgeted run looked at them), else on all repeats of each.
pub fn judge(a: &Repeats, b: &Repeats, level: f64, judging: Judging) -> Ratio {
    match (a.pairs(b), judging) {
        (Some(p), Judging::Looks) => sequential_ratio(&p, level),
        (Some(p), Judging::Once) if paired_reaches(p.len(), level) => paired_ratio(&p, level),
        _ => ratio(&a.tps, &b.tps, level),
    }
}

/// Whether `n` pairs can give a paired interval at `level` (6 at 95%).
fn paired_reaches(n: usize, level: f64) -> bool {
    signed_rank::walsh_rank(n, level).is_some_and(|(_, l)| l >= level)
}

/// The largest k in 1..=max_k whose two-sided interval, missing with probability
/// 2·`tail(k)` (`tail` asked for k = 1, 2, … in turn), still holds `level`, with the level
/// it holds; k = 1 at its own, lower level when even that falls short.
fn deepest_rank(max_k: usize, level: f64, mut tail: impl FnMut(usize) -> f64) -> (usize, f64) {
    let mut best = (1, 1.0 - 2.0 * tail(1));
    for k in 2..=max_k {
        let coverage = 1.0 - 2.0 * tail(k);
        if coverage < level {
            break;
        }
        best = (k, coverage);
    }
    best
}

/// The median of a slice (0 when empty).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let (below, m, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let m = *m;
    if n % 2 == 1 { m } else { (below.iter().copied().fold(f64::MIN, f64::max) + m) / 2.0 }
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// Median of samples and its interval at `level` (or the level the samples allow).
pub fn estimate(xs: &[f64], level: f64) -> Estimate {
    let n = xs.len();
    let mean = if n == 0 { 0.0 } else { xs.iter().sum::<f64>() / n as f64 };
    let (mut lo, mut hi, mut confidence) = (None, None, None);
    if let Some((k, l)) = order::median_rank(n, level) {
        let v = sorted(xs);
        (lo, hi, confidence) = (Some(v[k - 1]), Some(v[n - k]), Some(l));
    }
    Estimate { median: median(xs), mean, lo, hi, confidence, n }
}

/// `a / b` as a ratio of medians, with the interval at `level` of the factor between them
/// (or the level the repeats allow) and what it says.
pub fn ratio(a: &[f64], b: &[f64], level: f64) -> Ratio {
    let value = median(a) / median(b);
    let none = Ratio {
        value,
        lo: None,
        hi: None,
        confidence: None,
        verdict: Verdict::TooFewRepeats,
        pairs: None,
        looks: None,
    };
    if b.iter().any(|x| *x <= 0.0) {
        return none;
    }
    let Some((k, l)) = shift::ratio_rank(a.len(), b.len(), level).filter(|(_, l)| *l > 0.0) else {
        return none;
    };
    let pairs = sorted(&a.iter().flat_map(|x| b.iter().map(move |y| x / y)).collect::<Vec<_>>());
    let (lo, hi) = (pairs[k - 1], pairs[pairs.len() - k]);
    Ratio {
        value,
        lo: Some(lo),
        hi: Some(hi),
        confidence: Some(l),
        verdict: verdict(lo, hi, l, level),
        pairs: None,
        looks: None,
    }
}

/// `a / b` from within-round pairs (a_i, b_i): the exponential of the Hodges–Lehmann
/// estimate of the log-ratios (the median of their Walsh averages), with the signed-rank
/// interval at `level` (or the level the pairs allow).
pub fn paired_ratio(pairs: &[(f64, f64)], level: f64) -> Ratio {
    let none = Ratio {
        value: median(&pairs.iter().map(|(a, b)| a / b).collect::<Vec<_>>()),
        lo: None,
        hi: None,
        confidence: None,
        verdict: Verdict::TooFewRepeats,
        pairs: Some(pairs.len()),
        looks: None,
    };
    if pairs.iter().any(|(a, b)| *a <= 0.0 || *b <= 0.0) {
        return none;
    }
    let d: Vec<f64> = pairs.iter().map(|(a, b)| (a / b).ln()).collect();
    let Some((k, l)) = signed_rank::walsh_rank(d.len(), level).filter(|(_, l)| *l > 0.0) else {
        return none;
    };
    let w = signed_rank::walsh_averages(&d);
    let (lo, hi) = (w[k - 1].exp(), w[w.len() - k].exp());
    Ratio {
        value: median(&w).exp(),
        lo: Some(lo),
        hi: Some(hi),
        confidence: Some(l),
        verdict: verdict(lo, hi, l, level),
        ..none
    }
}

/// Pairs as a budgeted run judged them: the first look whose interval is clear of 1, or
/// the last look when none is; the level stated is the one over all looks (looks.rs).
pub fn sequential_ratio(pairs: &[(f64, f64)], level: f64) -> Ratio {
    let (mut last, mut spent) = (paired_ratio(pairs, level), 0.0);
    for (j, look) in looks::schedule(level, pairs.len()).iter().enumerate() {
        last = Ratio { looks: Some(j + 1), ..paired_ratio(&pairs[..look.pairs], look.level) };
        // A look that reached its own level holds, with all the others, `level`; one that
        // could not (too few pairs) holds what is left after the looks before it.
        last.confidence = last.confidence.map(|c| if c >= look.level { level } else { c - spent });
        if last.settled() {
            break;
        }
        spent += 1.0 - look.level;
    }
    last
}

/// What an interval at `l` says, asked for `level`.
fn verdict(lo: f64, hi: f64, l: f64, level: f64) -> Verdict {
    if l < level {
        Verdict::TooFewRepeats
    } else if lo > 1.0 {
        Verdict::Faster
    } else if hi < 1.0 {
        Verdict::Slower
    } else {
        Verdict::NoSignificantDifference
    }
}

/// The fewest repeats a side whose ratio interval reaches `level`: what a verdict needs
/// (4 at 95%, 5 at 99%).
pub fn repeats_for(level: f64) -> usize {
    (2..1000).find(|&n| shift::ratio_rank(n, n, level).is_some_and(|(_, l)| l >= level)).unwrap_or(1000)
}

/// Parse `--confidence`: `95%` or `0.95` (a bare number above 1 is a percentage).
pub fn parse_level(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, pct) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (t, false),
    };
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a confidence level; write e.g. 95% or 0.95"))?;
    let level = if pct || v > 1.0 { v / 100.0 } else { v };
    if !(level > 0.0 && level < 1.0) {
        return Err(format!("confidence '{s}' must be above 0% and below 100%, e.g. 95%"));
    }
    Ok(level)
}

/// A level as the reports print it: 75%, 93.8%, 96.9%.
pub fn percent(level: f64) -> String {
    let p = level * 100.0;
    if (p - p.round()).abs() < 0.05 { format!("{p:.0}%") } else { format!("{p:.1}%") }
}

/// A fraction as a percentage with the digits that matter: 0.03 → 3%, 0.0214 → 2.14%.
pub fn precision_percent(x: f64) -> String {
    let p = x * 100.0;
    let digits = if p >= 10.0 {
        1
    } else if p >= 0.1 {
        2
    } else {
        4
    };
    let s = format!("{p:.digits$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn three_repeats_span_smallest_to_largest_at_75_percent() {
        let e = estimate(&[110.0, 100.0, 120.0], LEVEL);
        assert_eq!((e.median, e.lo, e.hi, e.confidence), (110.0, Some(100.0), Some(120.0), Some(0.75)));
        assert_eq!(e.precision(), Some(10.0 / 110.0));
    }

    #[test]
    fn nine_repeats_drop_one_from_each_end() {
        let xs = [9.0, 1.0, 8.0, 2.0, 7.0, 3.0, 6.0, 4.0, 5.0];
        let e = estimate(&xs, LEVEL);
        assert_eq!((e.median, e.lo, e.hi), (5.0, Some(2.0), Some(8.0)));
        assert!((e.confidence.unwrap() - (1.0 - 20.0 / 512.0)).abs() < 1e-12);
    }

    #[test]
    fn ratio_of_five_repeats_by_hand() {
        // 5 v 5 at 95%: the 3rd smallest and 3rd largest of the 25 ratios (96.8%).
        let a = [200.0, 210.0, 220.0, 230.0, 240.0];
        let b = [100.0; 5];
        let r = ratio(&a, &b, LEVEL);
        assert_eq!((r.value, r.lo, r.hi, r.verdict), (2.2, Some(2.0), Some(2.4), Verdict::Faster));
        assert!((r.confidence.unwrap() - (1.0 - 8.0 / 252.0)).abs() < 1e-12);
        assert_eq!(ratio(&b, &a, LEVEL).verdict, Verdict::Slower);
    }

    #[test]
    fn three_repeats_a_side_are_too_few_to_tell() {
        let r = ratio(&[300.0, 310.0, 320.0], &[95.0, 120.0, 105.0], LEVEL);
        assert_eq!(r.verdict, Verdict::TooFewRepeats);
        assert_eq!((r.lo, r.hi, r.confidence), (Some(300.0 / 120.0), Some(320.0 / 95.0), Some(0.9)));
        // At the 90% they can reach, they can tell.
        assert_eq!(ratio(&[300.0, 310.0, 320.0], &[95.0, 120.0, 105.0], 0.9).verdict, Verdict::Faster);
    }

    #[test]
    fn overlapping_samples_show_no_significant_difference() {
        let r = ratio(&[100.0, 130.0, 90.0, 110.0, 105.0], &[95.0, 120.0, 105.0, 98.0, 112.0], LEVEL);
        assert_eq!(r.verdict, Verdict::NoSignificantDifference, "{r:?}");
        let same = [4.0, 4.0, 4.0, 4.0, 4.0];
        assert_eq!(ratio(&same, &same, LEVEL).verdict, Verdict::NoSignificantDifference);
    }

    #[test]
    fn one_sample_has_no_interval() {
        let e = estimate(&[5.0], LEVEL);
        assert_eq!((e.median, e.lo, e.hi, e.confidence), (5.0, None, None, None));
        let r = ratio(&[5.0], &[1.0], LEVEL);
        assert_eq!((r.lo, r.verdict), (None, Verdict::TooFewRepeats));
        assert_eq!(ratio(&[5.0, 6.0], &[0.0, 1.0], LEVEL).lo, None);
    }

    #[test]
    fn repeats_a_verdict_needs() {
        assert_eq!([0.9, 0.95, 0.99, 0.999].map(repeats_for), [3, 4, 5, 7]);
    }

    #[test]
    fn pairs_are_the_repeats_of_the_same_rounds_in_round_order() {
        let a = Repeats { tps: vec![10.0, 30.0, 20.0], rounds: Some(vec![1, 3, 2]) };
        let b = Repeats { tps: vec![1.0, 2.0], rounds: Some(vec![2, 1]) };
        assert_eq!(a.pairs(&b), Some(vec![(10.0, 2.0), (20.0, 1.0)]));
        assert_eq!(a.pairs(&Repeats { tps: vec![1.0], rounds: None }), None);
    }

    #[test]
    fn paired_ratio_by_hand() {
        // Log-ratios ln 2 ± a little: every Walsh average is above 0, so faster; six
        // pairs at 95% give the extremes at 96.9%.
        let pairs: Vec<(f64, f64)> = [2.0, 2.1, 1.9, 2.05, 1.95, 2.0].iter().map(|r| (100.0 * r, 100.0)).collect();
        let r = paired_ratio(&pairs, LEVEL);
        assert_eq!((r.verdict, r.pairs), (Verdict::Faster, Some(6)));
        assert!((r.value - 2.0).abs() < 0.01 && r.lo == Some(1.9) && (r.hi.unwrap() - 2.1).abs() < 1e-9, "{r:?}");
        assert!((r.confidence.unwrap() - 0.96875).abs() < 1e-12);
        // Five pairs cannot reach 95%.
        assert_eq!(paired_ratio(&pairs[..5], LEVEL).verdict, Verdict::TooFewRepeats);
        // One pair the other way, among many, holds the verdict; the ranks, not the sizes.
        let mut mixed = pairs.clone();
        mixed.extend([(60.0, 100.0), (210.0, 100.0), (190.0, 100.0)]);
        assert_eq!(paired_ratio(&mixed, LEVEL).verdict, Verdict::Faster);
    }

    #[test]
    fn judged_on_pairs_where_the_rounds_allow_else_on_all_repeats() {
        let rounds = |n: u32| Some((1..=n).collect::<Vec<_>>());
        let a = Repeats { tps: vec![200.0, 210.0, 190.0, 205.0, 195.0, 200.0], rounds: rounds(6) };
        let b = Repeats { tps: vec![100.0; 6], rounds: rounds(6) };
        assert_eq!(judge(&a, &b, LEVEL, Judging::Once).pairs, Some(6));
        // Five rounds cannot give a paired verdict at 95%: Mann–Whitney's 96.8% can.
        let five = |r: &Repeats| Repeats { tps: r.tps[..5].to_vec(), rounds: rounds(5) };
        let r = judge(&five(&a), &five(&b), LEVEL, Judging::Once);
        assert_eq!((r.pairs, r.verdict), (None, Verdict::Faster));
        // A file without rounds is judged as before.
        let old = |r: &Repeats| Repeats { tps: r.tps.clone(), rounds: None };
        assert_eq!(judge(&old(&a), &old(&b), LEVEL, Judging::Once).pairs, None);
    }

    #[test]
    fn a_budget_s_looks_stop_at_the_first_settled_one_and_state_the_overall_level() {
        // Clearly faster: settled at the first look, 7 pairs, stated at 95%.
        let pairs: Vec<(f64, f64)> = (0..20).map(|i| (200.0 + f64::from(i % 3), 100.0)).collect();
        let r = sequential_ratio(&pairs, LEVEL);
        assert_eq!((r.verdict, r.pairs, r.looks, r.confidence), (Verdict::Faster, Some(7), Some(1), Some(LEVEL)));
        // Identical: never settled; the last look, at all 12 pairs, the third.
        let same: Vec<(f64, f64)> = (0..12).map(|i| (100.0 + f64::from(i % 5), 102.0 - f64::from(i % 4))).collect();
        let r = sequential_ratio(&same, LEVEL);
        assert_eq!((r.verdict, r.pairs, r.looks), (Verdict::NoSignificantDifference, Some(12), Some(3)));
        // Too few for any look's level: what is left after no look is its own level.
        let r = sequential_ratio(&pairs[..6], LEVEL);
        assert_eq!(r.verdict, Verdict::TooFewRepeats);
        assert!((r.confidence.unwrap() - 0.96875).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn levels_parse_as_people_write_them() {
        assert_eq!(parse_level("95%"), Ok(0.95));
        assert_eq!(parse_level("0.9"), Ok(0.9));
        assert_eq!(parse_level(" 99.5 % "), Ok(0.995));
        assert_eq!(parse_level("80"), Ok(0.8));
        for bad in ["0", "0%", "1", "100%", "150", "-5%", "high", "", "nan"] {
            assert!(parse_level(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn levels_print_as_people_write_them() {
        assert_eq!(
            [0.75, 0.9375, 0.96875, 0.95].map(percent),
            ["75%".to_string(), "93.8%".into(), "96.9%".into(), "95%".into()]
        );
    }
}
