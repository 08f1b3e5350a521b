//! An exec's runs -> its summary: each profile's times and its speed against the baseline.

use super::results::{ExecResults, Run};
use super::summary::{Difference, ProfileSummary, Summary, Times, Verdict, versus};
use crate::stats;

/// Summarize the runs of `r` against its baseline.
pub fn summarize(r: &ExecResults) -> Summary {
    let walls = |runs: &[Run]| -> stats::Repeats {
        let timed: Vec<&Run> = runs.iter().filter(|x| x.measured()).collect();
        stats::Repeats {
            tps: timed.iter().map(|x| x.wall_s).collect(),
            rounds: timed.iter().map(|x| x.round).collect(),
        }
    };
    let (baseline, level, judging) = (r.options.baseline.clone(), r.options.confidence, r.options.judging());
    let base = r.profiles.iter().find(|p| p.profile.name == baseline).map(|p| walls(&p.runs)).unwrap_or_default();
    let profiles: Vec<ProfileSummary> = r
        .profiles
        .iter()
        .map(|p| {
            let ok: Vec<&Run> = p.runs.iter().filter(|x| x.measured()).collect();
            let failed = p.runs.iter().filter(|x| !x.warmup && !x.measured()).count();
            let w = walls(&p.runs);
            let versus = (p.profile.name != baseline && !w.tps.is_empty() && !base.tps.is_empty())
                .then(|| versus(&base, &w, level, judging));
            let served: Vec<_> = ok.iter().filter_map(|r| r.server.as_ref().map(|c| (r.wall_s, c))).collect();
            let database = super::database::share(&served);
            ProfileSummary {
                profile: p.profile.name.clone(),
                runs: ok.len(),
                failed,
                times: times(&ok),
                versus,
                database,
            }
        })
        .collect();
    let verdicts: Vec<Verdict> = profiles.iter().filter_map(|p| p.versus.map(|v| v.verdict)).collect();
    let difference = if verdicts.iter().any(|v| matches!(v, Verdict::Faster | Verdict::Slower)) {
        Difference::Significant
    } else if !verdicts.is_empty() && verdicts.iter().all(|v| *v == Verdict::NoDifference) {
        Difference::None
    } else {
        Difference::Unknown
    };
    Summary { baseline, profiles, difference, confidence: level }
}

fn times(ok: &[&Run]) -> Option<Times> {
    if ok.is_empty() {
        return None;
    }
    let n = ok.len() as f64;
    let wall: Vec<f64> = ok.iter().map(|r| r.wall_s).collect();
    let mean = wall.iter().sum::<f64>() / n;
    let var = if ok.len() > 1 { wall.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    Some(Times {
        mean_s: mean,
        stddev_s: var.sqrt(),
        median_s: stats::median(&wall),
        min_s: wall.iter().copied().fold(f64::INFINITY, f64::min),
        max_s: wall.iter().copied().fold(0.0, f64::max),
        user_s: ok.iter().map(|r| r.user_s).sum::<f64>() / n,
        system_s: ok.iter().map(|r| r.system_s).sum::<f64>() / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_stddev_and_range_as_hyperfine() {
        let run = |w: f64| Run {
            repeat: 1,
            round: None,
            warmup: false,
            status: crate::exec::results::RunOutcome::Ok,
            exit_code: Some(0),
            signal: None,
            wall_s: w,
            user_s: w / 2.0,
            system_s: 0.1,
            started_at: String::new(),
            server_start_s: None,
            prepare_s: None,
            output_tail: None,
            server: None,
        };
        let runs = [run(1.0), run(2.0), run(3.0), run(6.0)];
        let t = times(&runs.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!((t.mean_s, t.median_s, t.min_s, t.max_s), (3.0, 2.5, 1.0, 6.0));
        // Sample variance: (4 + 1 + 0 + 9) / 3.
        assert!((t.stddev_s - (14.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(t.user_s, 1.5);
        assert!(times(&[]).is_none());
    }
}
