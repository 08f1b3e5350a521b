//! How much of a command's time was the database: over each timed run, the server's CPU
//! and its waits (for storage, for a CPU) from the OS, its commits, flushes and log bytes
//! from the server; the share is that busy time over the run's wall time. Removing every
//! bit of the server's work shortens the command's critical path by at most its busy time,
//! so no profile can make the command more than 1/(1−share) times faster (Amdahl): the
//! bound is checked against the ratios the same exec measured.

use crate::counters::{Counters, Figures};
use crate::stats::{self, Ratio};
use serde::{Deserialize, Serialize};

/// A measured ratio agrees with the bound up to this much above it: the share is itself
/// a median of noisy runs.
const SLACK: f64 = 1.15;

/// What the server did over one profile's timed runs, medians of the runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Seconds the server was busy per run: its CPU, plus its waits where counted.
    pub busy_s: f64,
    /// Its CPU seconds (user + system) per run.
    pub cpu_s: f64,
    /// Its seconds off the CPU waiting for storage per run, the larger of the kernel's
    /// count and the server's timing of its flushes; absent where neither counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_wait_s: Option<f64>,
    /// Its seconds waiting for a CPU per run, where the scheduler counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_s: Option<f64>,
    /// Busy time over the run's wall time.
    pub share: f64,
    /// The most any profile could make the command faster, 1/(1−share): absent when the
    /// waits for storage are not counted (the share is then only a floor) or when the
    /// server was busy on several CPUs for as long as the command ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    /// Transactions committed per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<f64>,
    /// fsync-like calls per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsyncs: Option<f64>,
    /// Log bytes written per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_bytes: Option<f64>,
}

/// One run's server figures.
struct Busy {
    /// The run's wall time.
    wall_s: f64,
    busy_s: f64,
    cpu_s: f64,
    storage_wait_s: Option<f64>,
    cpu_wait_s: Option<f64>,
    figures: Figures,
}

impl Busy {
    /// A run's figures from its wall time and counters, where its server's CPU was read.
    fn of(wall_s: f64, c: &Counters) -> Option<Busy> {
        let p = c.processes?;
        let cpu_s = p.cpu_s?;
        let storage_wait_s = storage_wait(c);
        let busy_s = cpu_s + storage_wait_s.unwrap_or(0.0) + p.cpu_wait_s.unwrap_or(0.0);
        Some(Busy { wall_s, busy_s, cpu_s, storage_wait_s, cpu_wait_s: p.cpu_wait_s, figures: c.figures })
    }
}

/// A run's seconds waiting for storage, the larger of two counts that each miss some: the
/// kernel's (delay accounting, which loses the threads that exited during the run, such as
/// a short connection's backend) and the server's own timing of its flushes (which misses
/// its other waits); zero where the server flushed nothing and the kernel counted nothing.
fn storage_wait(c: &Counters) -> Option<f64> {
    let kernel = c.processes.and_then(|p| p.io_wait_s);
    let flushed_nothing = c.figures.fsyncs.is_some_and(|n| n == 0.0).then_some(0.0);
    match (kernel, c.figures.fsync_s.or(flushed_nothing)) {
        (Some(k), Some(t)) => Some(k.max(t)),
        (k, t) => k.or(t),
    }
}

/// The share of the measured runs, each its wall time and counters; none when no run has
/// the server's CPU (a `--url` server's processes are not dbrace's to read).
pub fn share(runs: &[(f64, &Counters)]) -> Option<Share> {
    let read: Vec<Busy> = runs.iter().filter_map(|(w, c)| Busy::of(*w, c)).collect();
    if read.is_empty() {
        return None;
    }
    // A median where every run has the figure, else none.
    let med = |f: &dyn Fn(&Busy) -> Option<f64>| {
        let xs: Vec<f64> = read.iter().filter_map(f).collect();
        (xs.len() == read.len()).then(|| stats::median(&xs))
    };
    let share = stats::median(&read.iter().map(|b| b.busy_s / b.wall_s.max(1e-9)).collect::<Vec<_>>());
    let storage_wait_s = med(&|b| b.storage_wait_s);
    Some(Share {
        busy_s: stats::median(&read.iter().map(|b| b.busy_s).collect::<Vec<_>>()),
        cpu_s: stats::median(&read.iter().map(|b| b.cpu_s).collect::<Vec<_>>()),
        storage_wait_s,
        cpu_wait_s: med(&|b| b.cpu_wait_s),
        share,
        at_most: (storage_wait_s.is_some() && share < 1.0).then(|| 1.0 / (1.0 - share)),
        commits: med(&|b| b.figures.commits),
        fsyncs: med(&|b| b.figures.fsyncs),
        log_bytes: med(&|b| b.figures.log_bytes),
    })
}

/// The share in words: "the database was busy 0.21 s of each run (6%): no profile can make
/// this command more than 1.06× faster".
pub fn sentence(profile: &str, s: &Share) -> String {
    let head = format!(
        "under {profile} the database was busy {:.3} s of each run ({} of its time)",
        s.busy_s,
        percent(s.share)
    );
    match (s.at_most, s.storage_wait_s) {
        (Some(m), _) => format!("{head}: no profile can make this command more than {} faster", times(m)),
        (None, None) => format!(
            "{head} at least: its waits for storage are not counted here (sysctl kernel.task_delayacct=1 counts them), so no bound on a profile's gain"
        ),
        (None, Some(_)) => {
            format!("{head}: busy on several CPUs for as long as the command ran, so no bound on a profile's gain")
        }
    }
}

/// A share as a percentage, a tenth of a percent where it is small.
pub fn percent(share: f64) -> String {
    let pct = 100.0 * share;
    if pct < 10.0 { format!("{pct:.1}%") } else { format!("{pct:.0}%") }
}

/// A bound on a speed-up, with the digits that tell it from 1.
fn times(bound: f64) -> String {
    if bound < 1.1 { format!("{bound:.3}×") } else { format!("{bound:.2}×") }
}

/// A profile's measured speed-up against the baseline's bound: within it, or beyond it
/// (then something other than the server's work changed).
pub fn checked(profile: &str, speedup: &Ratio, bound: f64) -> String {
    let measured = match (speedup.lo, speedup.hi) {
        (Some(lo), Some(hi)) => format!("{:.2}× ({lo:.2}–{hi:.2})", speedup.value),
        _ => format!("{:.2}×", speedup.value),
    };
    let lowest = speedup.lo.unwrap_or(speedup.value);
    if lowest <= bound * SLACK {
        format!("{profile}: measured {measured}, within that bound")
    } else {
        format!(
            "{profile}: measured {measured}, beyond that bound: time outside the server's work changed too (its start, the command's own waits)"
        )
    }
}

/// One run's server figures as CSV fields: CPU, storage wait, CPU wait, commits, fsyncs,
/// log bytes (empty where not read).
pub fn csv_fields(c: Option<&Counters>) -> String {
    let p = c.and_then(|c| c.processes);
    let f = c.map(|c| c.figures).unwrap_or_default();
    [p.and_then(|p| p.cpu_s), c.and_then(storage_wait), p.and_then(|p| p.cpu_wait_s), f.commits, f.fsyncs, f.log_bytes]
        .iter()
        .map(|v| v.map_or(String::new(), |v| format!("{v:.6}")))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::Usage;

    fn run(wall_s: f64, cpu_s: f64, io_wait_s: Option<f64>) -> (f64, Counters) {
        let processes = Usage { cpu_s: Some(cpu_s), io_wait_s, ..Usage::default() };
        let figures = Figures { commits: Some(2000.0), ..Figures::default() };
        (wall_s, Counters { processes: Some(processes), figures, ..Counters::default() })
    }

    /// The share of `runs`.
    fn of(runs: &[(f64, Counters)]) -> Option<Share> {
        share(&runs.iter().map(|(w, c)| (*w, c)).collect::<Vec<_>>())
    }

    #[test]
    fn the_share_bounds_the_gain_only_where_storage_waits_count() {
        let runs = [run(4.0, 0.2, Some(0.2)), run(5.0, 0.3, Some(0.2)), run(4.0, 0.1, Some(0.3))];
        let s = of(&runs).unwrap();
        assert!((s.share - 0.1).abs() < 1e-12 && (s.busy_s - 0.4).abs() < 1e-12, "{s:?}");
        assert!((s.at_most.unwrap() - 1.0 / 0.9).abs() < 1e-12);
        assert_eq!(s.commits, Some(2000.0));
        assert!(
            sentence("disk", &s)
                .ends_with("(10% of its time): no profile can make this command more than 1.11× faster")
        );
        // Without its waits for storage the share is a floor, and no bound is claimed.
        let floor = of(&[run(4.0, 0.4, None)]).unwrap();
        assert_eq!(floor.at_most, None);
        assert!(sentence("disk", &floor).contains("(10% of its time) at least: its waits for storage are not counted"));
        let light = of(&[run(8.0, 0.01, Some(0.006))]).unwrap();
        assert!(
            sentence("disk", &light)
                .contains("(0.2% of its time): no profile can make this command more than 1.002× faster")
        );
        // The kernel lost an exited backend's waits that the server timed: the larger counts.
        let mut timed = run(4.0, 0.2, Some(0.0));
        timed.1.figures.fsync_s = Some(0.2);
        assert_eq!(of(&[timed]).unwrap().storage_wait_s, Some(0.2));
        // Busy on both CPUs all along: no bound either.
        assert_eq!(of(&[run(1.0, 1.5, Some(0.5))]).unwrap().at_most, None);
        assert_eq!(of(&[(1.0, Counters::default())]), None);
    }

    #[test]
    fn a_ratio_beyond_the_bound_is_said_to_be() {
        let r = |value: f64, lo: f64, hi: f64| Ratio {
            value,
            lo: Some(lo),
            hi: Some(hi),
            confidence: Some(0.95),
            verdict: stats::Verdict::Faster,
            pairs: None,
            looks: None,
        };
        assert!(checked("ram", &r(1.05, 0.98, 1.10), 1.06).ends_with("within that bound"));
        assert!(checked("ram", &r(1.30, 1.25, 1.40), 1.06).contains("beyond that bound"));
        // The slack: a share measured a little low still agrees.
        assert!(checked("ram", &r(1.25, 1.20, 1.30), 1.06).ends_with("within that bound"));
    }
}
