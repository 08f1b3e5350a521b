//! What the clients of one repeat did, added up.

use super::worker::WorkerReport;
use crate::error::Result;
use crate::results::{StatementLatency, Tally};
use hdrhistogram::Histogram;
use std::time::{Duration, Instant};

/// The clients' reports of one repeat, added up.
pub struct Totals {
    /// Latency of every measured transaction, nanoseconds.
    pub hist: Histogram<u64>,
    /// Measured transactions per second of the measured phase.
    pub timeline: Vec<u64>,
    /// Measured transactions.
    pub measured: u64,
    /// Committed transactions, warm-up included.
    pub committed: u64,
    /// Client CPU while measured.
    pub cpu: Duration,
    /// Errors, retries, reconnections.
    pub tally: Tally,
    /// Schedule lag summed, and its largest, ns (`--rate`).
    pub lag_sum_ns: u64,
    pub lag_max_ns: u64,
    /// Slots skipped past `--latency-limit`, and transactions that ended past it.
    pub skipped: u64,
    pub late: u64,
    /// When the last measured transaction ended.
    pub last_end: Option<Instant>,
    /// Why the repeat failed: a client that lost its connection or gave up.
    pub failure: Option<String>,
    /// Per-statement latency (script workloads).
    pub statements: Vec<StatementLatency>,
}

impl Totals {
    /// Add up `reports`.
    pub fn of(reports: &[WorkerReport]) -> Result<Totals> {
        let mut t = Totals {
            hist: crate::results::new_histogram(),
            timeline: Vec::new(),
            measured: 0,
            committed: 0,
            cpu: Duration::ZERO,
            tally: Tally::default(),
            lag_sum_ns: 0,
            lag_max_ns: 0,
            skipped: 0,
            late: 0,
            last_end: None,
            failure: None,
            statements: Vec::new(),
        };
        for r in reports {
            t.add(r)?;
        }
        Ok(t)
    }

    fn add(&mut self, r: &WorkerReport) -> Result<()> {
        crate::results::merge_statements(&mut self.statements, &r.statements);
        self.hist.add(&r.hist).map_err(|e| failed!("cannot merge latency histograms: {e:?}"))?;
        self.measured += r.measured;
        self.committed += r.committed;
        self.tally += &r.tally;
        self.cpu += r.cpu;
        self.lag_sum_ns += r.lag_sum_ns;
        self.lag_max_ns = self.lag_max_ns.max(r.lag_max_ns);
        self.skipped += r.skipped;
        self.late += r.late;
        self.last_end = self.last_end.max(r.last_end);
        if self.timeline.len() < r.timeline.len() {
            self.timeline.resize(r.timeline.len(), 0);
        }
        for (t, n) in self.timeline.iter_mut().zip(&r.timeline) {
            *t += n;
        }
        if self.failure.is_none() {
            self.failure = r.lost.clone();
        }
        if r.gave_up && self.failure.is_none() {
            self.failure = r.first_error.as_ref().map(|e| format!("a client gave up after repeated errors: {e}"));
        }
        Ok(())
    }
}
