//! Looking at a comparison again as rounds come in, without raising its error rate.
//!
//! A run on a budget judges each comparison after some rounds and stops measuring it once
//! its verdict is settled. Looking after every round and stopping at the first interval
//! clear of 1 would call identical cells different far more often than 5%. So the looks
//! are fixed in advance (after `FIRST` pairs, then each about a third more) and each
//! spends a share of the error the level allows: the j-th look's interval is at level
//! 1 − α/2^j, α = 1 − level. The chance that any look's interval misses the truth is at
//! most α/2 + α/4 + … < α (Bonferroni over the looks), so the interval a comparison stops
//! with holds the truth at least at the level stated, however many looks were taken.
//! A comparison never settled is judged once more on all its pairs when the run ends,
//! spending the next share.

/// Pairs before the first look: the fewest whose extremes (2/2^n) fit the first share of
/// a 5% error.
pub const FIRST: usize = 7;

/// One look: after how many pairs, at what level of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Pairs judged at this look.
    pub pairs: usize,
    /// The level of this look's own interval.
    pub level: f64,
}

/// The scheduled looks of a comparison aiming at `level` overall, in order, without end.
pub fn scheduled(level: f64) -> impl Iterator<Item = Look> {
    let alpha = 1.0 - level;
    std::iter::successors(Some((FIRST, alpha / 2.0)), |&(n, share)| Some(((n * 4).div_ceil(3), share / 2.0)))
        .map(|(pairs, share)| Look { pairs, level: 1.0 - share })
}

/// The looks of a comparison with `most` pairs in all: the scheduled ones up to `most`,
/// and one at `most` itself when it falls between them (the run's end), spending the next
/// share.
pub fn schedule(level: f64, most: usize) -> Vec<Look> {
    let mut looks = scheduled(level);
    let mut out: Vec<Look> = looks.by_ref().take_while(|l| l.pairs <= most).collect();
    if out.last().map_or(0, |l| l.pairs) < most {
        // The first look past `most` was taken by take_while: its share is the next one.
        let share = 1.0 - scheduled(level).nth(out.len()).map_or(level, |l| l.level);
        out.push(Look { pairs: most, level: 1.0 - share });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_add_up_to_less_than_the_error_allowed() {
        let looks = schedule(0.95, 1000);
        let spent: f64 = looks.iter().map(|l| 1.0 - l.level).sum();
        assert!(spent < 0.05, "{spent}");
        let pairs: Vec<usize> = looks.iter().take(6).map(|l| l.pairs).collect();
        assert_eq!(pairs, [7, 10, 14, 19, 26, 35]);
        assert!((looks[0].level - 0.975).abs() < 1e-12);
    }

    #[test]
    fn the_run_s_end_is_one_more_look() {
        let looks = schedule(0.95, 12);
        assert_eq!(looks.iter().map(|l| l.pairs).collect::<Vec<_>>(), [7, 10, 12]);
        assert!((looks[2].level - (1.0 - 0.05 / 8.0)).abs() < 1e-12);
        assert_eq!(schedule(0.95, 10).len(), 2);
        assert_eq!(schedule(0.95, 6), [Look { pairs: 6, level: 0.975 }]);
        assert!(schedule(0.95, 0).is_empty());
    }
}
