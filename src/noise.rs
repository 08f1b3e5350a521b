//! What else the machine did while a repeat was measured: the CPU time the hypervisor
//! took (steal), the time CPUs sat waiting for I/O (iowait), and the CPU of processes that
//! are neither dbrace nor a server it started. Read before and after the measured phase,
//! never inside it; on a platform that cannot tell, nothing is recorded.

use crate::platform::{machine, procs, tree};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Instant;

/// The machine's state at one moment.
#[derive(Clone, Debug)]
pub struct Sample {
    at: Instant,
    /// The machine's CPU times.
    cpu: machine::CpuTimes,
    /// CPU seconds of each process outside dbrace's tree and the kernel's own threads.
    others: HashMap<u32, f64>,
}

/// What the machine did between two samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// Share of all CPU time the hypervisor gave to others (steal), 0–1.
    pub steal: f64,
    /// Share of all CPU time spent idle waiting for I/O, 0–1.
    pub iowait: f64,
    /// CPU used by processes other than dbrace and the servers it started, in cores
    /// (1.0: one core busy all the time); absent where the server is not dbrace's child
    /// (a `--url` server, a container), whose work would count here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_cpu: Option<f64>,
}

/// CPU steal from which a repeat counts as disturbed: a tenth of the machine's CPU time.
pub const STEAL: f64 = 0.10;

/// Other processes' CPU from which a repeat counts as disturbed, in cores.
pub const OTHERS: f64 = 0.5;

impl Noise {
    /// Whether the machine was busy elsewhere enough to slow the repeat.
    pub fn disturbed(&self) -> bool {
        self.steal >= STEAL || self.others_cpu.is_some_and(|c| c >= OTHERS)
    }
}

/// The machine's CPU counters and every other process's CPU, now.
pub fn sample() -> Option<Sample> {
    Some(Sample { at: Instant::now(), cpu: machine::cpu_times()?, others: others() })
}

/// CPU seconds of every process that is not in dbrace's tree and not a kernel thread.
fn others() -> HashMap<u32, f64> {
    let all = procs::all();
    let me = std::process::id();
    let parent = |pid: u32| all.get(&pid).map(|s| s.parent);
    all.iter()
        .filter(|&(&pid, s)| !procs::kernel_thread(pid, s.parent) && !tree::descends(pid, me, parent))
        .map(|(&pid, s)| (pid, s.cpu_s))
        .collect()
}

/// What the machine did from `a` to `b`.
pub fn between(a: &Sample, b: &Sample) -> Noise {
    let total = b.cpu.total.saturating_sub(a.cpu.total);
    let share = |x: u64, y: u64| if total > 0 { x.saturating_sub(y) as f64 / total as f64 } else { 0.0 };
    let seconds = b.at.duration_since(a.at).as_secs_f64();
    // A process that started in between counts from zero; one that ended is not seen.
    let others: f64 = b.others.iter().map(|(pid, t)| (t - a.others.get(pid).unwrap_or(&0.0)).max(0.0)).sum();
    let others_cpu = if seconds > 0.0 { others / seconds } else { 0.0 };
    Noise {
        steal: share(b.cpu.steal, a.cpu.steal),
        iowait: share(b.cpu.iowait, a.cpu.iowait),
        others_cpu: Some(others_cpu),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_neighbour_shows_as_others_cpu() {
        // A process outside dbrace's tree: setsid -f forks it off and exits, so its
        // parent becomes init.
        std::process::Command::new("setsid")
            .args(["-f", "timeout", "1.5", "sh", "-c", "while :; do :; done"])
            .status()
            .expect("setsid runs");
        std::thread::sleep(std::time::Duration::from_millis(100));
        let a = sample().expect("/proc is readable");
        std::thread::sleep(std::time::Duration::from_millis(800));
        let b = sample().expect("/proc is readable");
        let n = between(&a, &b);
        // A spinning shell gets a core, or a share of one on a loaded machine.
        assert!(n.others_cpu.unwrap() > 0.2, "{n:?}");
        assert!((0.0..=1.0).contains(&n.steal) && (0.0..=1.0).contains(&n.iowait), "{n:?}");
    }

    #[test]
    fn dbrace_and_its_children_are_not_others() {
        let mut child = std::process::Command::new("sleep").arg("2").spawn().expect("sleep runs");
        let s = sample().expect("/proc is readable");
        let _ = child.kill();
        let _ = child.wait();
        assert!(!s.others.contains_key(&std::process::id()));
        assert!(!s.others.contains_key(&child.id()));
        // init is someone else's.
        assert!(s.others.contains_key(&1), "{:?}", s.others.keys().take(5).collect::<Vec<_>>());
    }
}
