//! Per-statement latency of script workloads (`--report-per-statement`).

use serde::{Deserialize, Serialize};

/// One command of a script and its latency while measured, as pgbench -r reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementLatency {
    /// The script file, as given.
    pub script: String,
    /// The command's line in it.
    pub line: u32,
    /// The command as written (its first line).
    pub command: String,
    /// Times it completed.
    pub executions: u64,
    /// Transactions that failed at this command.
    pub failures: u64,
    /// Conflicts at this command that made the transaction run again.
    #[serde(default)]
    pub retries: u64,
    /// Time of those executions together, seconds.
    pub total_s: f64,
    /// Average latency, milliseconds.
    pub avg_ms: f64,
}

impl StatementLatency {
    /// A command's figures (executions, failures, retries); the average follows from them.
    pub fn new(script: String, line: u32, command: String, counts: [u64; 3], total_s: f64) -> Self {
        let [executions, failures, retries] = counts;
        let avg_ms = if executions > 0 { total_s * 1e3 / executions as f64 } else { 0.0 };
        StatementLatency { script, line, command, executions, failures, retries, total_s, avg_ms }
    }
}

/// Add `more` into `into`, command by command (the same script and line).
pub fn merge_statements(into: &mut Vec<StatementLatency>, more: &[StatementLatency]) {
    for m in more {
        match into.iter_mut().find(|s| s.script == m.script && s.line == m.line && s.command == m.command) {
            Some(s) => {
                *s = StatementLatency::new(
                    std::mem::take(&mut s.script),
                    s.line,
                    std::mem::take(&mut s.command),
                    [s.executions + m.executions, s.failures + m.failures, s.retries + m.retries],
                    s.total_s + m.total_s,
                );
            }
            None => into.push(m.clone()),
        }
    }
}
