//! Runs -> per profile mean ± σ, range and CPU, as hyperfine shows them; and each profile's
//! speed against the baseline as the ratio of median wall times with its distribution-free
//! interval at the level asked (`stats::ratio`). A difference is claimed only when that
//! interval excludes 1, which is when a Mann–Whitney U test over the runs rejects at that
//! level (stats/shift.rs): with three runs a side the widest interval is a 90% one, so at
//! 95% nothing is claimed (every run of one profile beats every run of the other one time
//! in ten by noise alone). Otherwise the answer is that the profiles make no significant
//! difference for this command, said plainly.

use crate::stats::mann_whitney;
use crate::stats::{self, Ratio};
use serde::{Deserialize, Serialize};

/// Statistics of one profile's successful timed runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Times {
    /// Mean wall time, seconds.
    pub mean_s: f64,
    /// Sample standard deviation of the wall time (0 with one run), seconds.
    pub stddev_s: f64,
    /// Median wall time, seconds.
    pub median_s: f64,
    /// Fastest run, seconds.
    pub min_s: f64,
    /// Slowest run, seconds.
    pub max_s: f64,
    /// Mean user CPU, seconds.
    pub user_s: f64,
    /// Mean system CPU, seconds.
    pub system_s: f64,
}

/// One profile's summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileSummary {
    /// The profile.
    pub profile: String,
    /// Successful timed runs.
    pub runs: usize,
    /// Timed runs that failed or timed out.
    pub failed: usize,
    /// Statistics of the successful runs (none without one).
    pub times: Option<Times>,
    /// Against the baseline (none for the baseline itself, or without successful runs).
    pub versus: Option<Versus>,
    /// How much of the runs' time the database was busy (none where not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<super::database::Share>,
}

/// One profile against the baseline.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Versus {
    /// How many times faster: the baseline's median wall time over this profile's, with
    /// its interval and the level it has.
    pub speedup: Ratio,
    /// Two-sided Mann–Whitney U test over the wall times.
    pub p: f64,
    /// What may be said.
    pub verdict: Verdict,
}

/// What may be said of a profile against the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significantly faster.
    Faster,
    /// Significantly slower.
    Slower,
    /// No significant difference.
    NoDifference,
    /// Too few runs for an interval at the level asked.
    TooFewRuns,
}

/// Compare `walls` with the baseline's at confidence `level`, judged as `judging` says.
pub fn versus(base: &stats::Repeats, walls: &stats::Repeats, level: f64, judging: stats::Judging) -> Versus {
    let speedup = stats::judge(base, walls, level, judging);
    let p = mann_whitney::test(&base.tps, &walls.tps).map_or(1.0, |t| t.p);
    // The interval excludes 1 exactly when the U test rejects at its level (stats/shift.rs).
    let verdict = match speedup.verdict {
        stats::Verdict::Faster => Verdict::Faster,
        stats::Verdict::Slower => Verdict::Slower,
        stats::Verdict::NoSignificantDifference => Verdict::NoDifference,
        stats::Verdict::TooFewRepeats => Verdict::TooFewRuns,
    };
    Versus { speedup, p, verdict }
}

/// What the runs say about the profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Difference {
    /// At least one profile is significantly faster or slower.
    Significant,
    /// No profile differs significantly.
    None,
    /// Too few runs to tell, or nothing to compare.
    Unknown,
}

/// The summary of an exec.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// The profile others are compared with.
    pub baseline: String,
    /// Every profile, in the order asked for.
    pub profiles: Vec<ProfileSummary>,
    /// Whether the profiles make a difference.
    pub difference: Difference,
    /// The confidence the intervals aim at; files from before it, 95%.
    #[serde(default = "default_level")]
    pub confidence: f64,
}

fn default_level() -> f64 {
    stats::LEVEL
}

/// One profile's speed against the baseline in words: "ran 2.90 times faster than disk
/// (96.8% interval 2.81–3.02, p = 0.008)", or that no difference can be claimed at `level`,
/// and why.
pub fn speed_sentence(profile: &str, baseline: &str, v: &Versus, level: f64) -> String {
    let r = &v.speedup;
    let own = stats::percent(r.confidence.unwrap_or(0.0));
    let detail = match (r.lo, r.hi) {
        (Some(lo), Some(hi)) if r.value >= 1.0 => format!("{own} interval {lo:.2}–{hi:.2}, p = {:.3}", v.p),
        (Some(lo), Some(hi)) => format!("{own} interval {:.2}–{:.2}, p = {:.3}", 1.0 / hi, 1.0 / lo, v.p),
        _ => "one run each: no interval".to_string(),
    };
    let (times, how) = if r.value >= 1.0 { (r.value, "faster") } else { (1.0 / r.value, "slower") };
    match v.verdict {
        Verdict::Faster | Verdict::Slower => format!("{profile} ran {times:.2} times {how} than {baseline} ({detail})"),
        Verdict::NoDifference => {
            format!("{profile}: no significant difference from {baseline} (measured {times:.2} times {how}; {detail})")
        }
        Verdict::TooFewRuns => format!(
            "{profile}: too few runs to tell it from {baseline} at {} (measured {times:.2} times {how}; {detail}); use --repeat {} or more",
            stats::percent(level),
            stats::repeats_for(level)
        ),
    }
}

/// The closing line: what the runs say about the profiles, plainly.
pub fn verdict(s: &Summary) -> Option<String> {
    match s.difference {
        Difference::None => Some("The profiles make no significant difference for this command.".into()),
        Difference::Unknown
            if s.profiles.iter().any(|p| p.versus.is_some_and(|v| v.verdict == Verdict::TooFewRuns)) =>
        {
            Some(format!(
                "Too few successful runs to claim a difference at {}: the ratio's interval needs {} runs a side to reach it; use --repeat {} or more.",
                stats::percent(s.confidence),
                stats::repeats_for(s.confidence),
                stats::repeats_for(s.confidence)
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LEVEL;

    /// Runs without rounds (a file from before), judged once.
    fn versus(base: &[f64], walls: &[f64], level: f64) -> Versus {
        let once = |xs: &[f64]| stats::Repeats { tps: xs.to_vec(), rounds: None };
        super::versus(&once(base), &once(walls), level, stats::Judging::Once)
    }

    #[test]
    fn a_difference_needs_the_interval_and_the_test() {
        let base = [3.0, 3.1, 2.9, 3.05, 2.95];
        let fast = [1.0, 1.1, 0.9, 1.05, 0.95];
        let v = versus(&base, &fast, LEVEL);
        assert_eq!(v.verdict, Verdict::Faster);
        assert!(v.p < 0.01 && v.speedup.value == 3.0, "{v:?}");
        let s = speed_sentence("ram-nosync", "disk", &v, LEVEL);
        assert!(s.starts_with("ram-nosync ran 3.00 times faster than disk (96.8% interval "), "{s}");
        assert_eq!(versus(&fast, &base, LEVEL).verdict, Verdict::Slower);
        assert!(
            speed_sentence("disk", "ram", &versus(&fast, &base, LEVEL), LEVEL).contains("3.00 times slower than ram")
        );
        // Interleaved: no difference, said so.
        let same = [3.02, 2.92, 3.08, 2.97, 3.0];
        let v = versus(&base, &same, LEVEL);
        assert_eq!(v.verdict, Verdict::NoDifference);
        assert!(speed_sentence("ram", "disk", &v, LEVEL).starts_with("ram: no significant difference from disk"));
        // Three a side, every run apart: the widest interval they allow excludes 1, but it
        // is a 90% interval (p is 0.1), so nothing is claimed.
        let v = versus(&[3.0, 3.1, 2.9], &[1.0, 1.1, 0.9], LEVEL);
        assert!(v.speedup.lo.unwrap() > 1.0 && v.speedup.confidence == Some(0.9) && (v.p - 0.1).abs() < 1e-12);
        assert_eq!(v.verdict, Verdict::TooFewRuns);
        assert_eq!(versus(&[3.0], &[1.0], LEVEL).verdict, Verdict::TooFewRuns);
    }
}
