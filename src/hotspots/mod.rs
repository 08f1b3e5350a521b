//! `--hotspots`: where a cell's server spends its CPU. During the measured phase, Linux
//! `perf` samples the server's processes (never the clients' threads) on the cpu-clock
//! with their call stacks; the stacks are kept folded, the heaviest first, and the
//! report names the functions the samples end in and draws a flame graph per cell.

pub mod folded;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Kernel functions that re-enable interrupts. Without a hardware PMU (a VM's usual
/// case) the cpu-clock timer's sample waits for interrupts to come back on, so it lands
/// on these and not on the work done with them off: that work is their caller's.
const SKID: &[&str] = &["_raw_spin_unlock_irqrestore_[k]", "_raw_spin_unlock_irq_[k]", "finish_task_switch"];

/// Stacks kept per repeat: the rest are summed into one "[other stacks]" line.
pub const KEPT_STACKS: usize = 400;

/// Time between two polls of the sessions' wait events: often enough for a hundred in
/// a second's phase, rarely enough that the polls cost the server little.
pub const WAIT_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

/// A repeat's samples of its server's CPU.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Hotspots {
    /// Samples taken (cpu-clock, 999 a second of a thread on a CPU).
    pub samples: u64,
    /// perf's own CPU seconds over the repeat: what sampling took from the machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf_cpu_s: Option<f64>,
    /// Folded stacks, outermost frame first, separated by ';' (kernel frames end in
    /// "_[k]"), with their samples, the heaviest first.
    pub stacks: Vec<(String, u64)>,
    /// Per wait event the server names (PostgreSQL's pg_stat_activity; "CPU" for none),
    /// the client sessions seen in it when polled from a side connection, the most first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waits: Vec<(String, u64)>,
    /// How many times the sessions were polled.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wait_polls: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A function the samples ended in.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name ("_[k]" for the kernel's).
    pub name: String,
    /// The share of the samples that ended in it.
    pub share: f64,
}

impl Hotspots {
    /// Another repeat's samples added in.
    pub fn add(&mut self, o: &Hotspots) {
        self.stacks = summed(std::mem::take(&mut self.stacks), &o.stacks);
        self.waits = summed(std::mem::take(&mut self.waits), &o.waits);
        self.samples += o.samples;
        self.wait_polls += o.wait_polls;
        self.perf_cpu_s = match (self.perf_cpu_s, o.perf_cpu_s) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }

    /// The `n` functions most samples ended in (past the interrupt re-enabling ones).
    pub fn top(&self, n: usize) -> Vec<Function> {
        let mut by: HashMap<&str, u64> = HashMap::new();
        for (stack, count) in &self.stacks {
            let leaf = stack.rsplit(';').find(|f| !SKID.iter().any(|s| f.starts_with(s))).unwrap_or(stack);
            *by.entry(leaf).or_default() += count;
        }
        let total = self.samples.max(1) as f64;
        let mut all: Vec<(&str, u64)> = by.into_iter().collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        all.into_iter().take(n).map(|(name, c)| Function { name: name.to_string(), share: c as f64 / total }).collect()
    }

    /// Each wait event's share of the sessions polled, the most first.
    pub fn wait_shares(&self) -> Vec<(&str, f64)> {
        let total = self.waits.iter().map(|(_, n)| n).sum::<u64>().max(1) as f64;
        self.waits.iter().map(|(w, n)| (w.as_str(), *n as f64 / total)).collect()
    }

    /// The stacks as inferno reads them, one "frames count" line each.
    pub fn folded_lines(&self) -> Vec<String> {
        self.stacks.iter().map(|(s, n)| format!("{s} {n}")).collect()
    }
}

/// Two tallies by name added up, the heaviest first.
fn summed(mine: Vec<(String, u64)>, theirs: &[(String, u64)]) -> Vec<(String, u64)> {
    let mut by: HashMap<String, u64> = mine.into_iter().collect();
    for (s, n) in theirs {
        *by.entry(s.clone()).or_default() += n;
    }
    folded::heaviest(by.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_functions_are_where_the_samples_end_over_repeats() {
        let one = Hotspots {
            samples: 10,
            perf_cpu_s: Some(0.1),
            stacks: vec![
                ("postgres;exec_simple_query;base_yyparse".into(), 6),
                ("postgres;fsync_k;ext4_sync_file_[k]".into(), 4),
            ],
            waits: vec![("IO:WalSync".into(), 3), ("CPU".into(), 1)],
            wait_polls: 2,
        };
        let mut all = one.clone();
        let skid = "postgres;PostgresMain;ext4_sync_file_[k];_raw_spin_unlock_irqrestore_[k]";
        let waits = vec![("CPU".into(), 4)];
        all.add(&Hotspots {
            samples: 10,
            stacks: vec![(skid.into(), 10)],
            waits,
            wait_polls: 2,
            ..Hotspots::default()
        });
        assert_eq!((all.samples, all.perf_cpu_s, all.wait_polls), (20, Some(0.1), 4));
        assert_eq!(all.wait_shares(), [("CPU", 5.0 / 8.0), ("IO:WalSync", 3.0 / 8.0)]);
        let top = all.top(5);
        assert_eq!(top[0], Function { name: "ext4_sync_file_[k]".into(), share: 0.7 });
        assert_eq!(top[1].name, "base_yyparse");
        assert_eq!(top.len(), 2);
        assert_eq!(all.folded_lines()[0], format!("{skid} 10"));
    }
}
