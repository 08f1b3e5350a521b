//! What the clients of one repeat did, added up.

use super::worker::WorkerReport;
use crate::error::Result;
use crate::results::{StatementLatency, Tally, TypeTally};
use hdrhistogram::Histogram;
use std::time::Instant;

/// The clients' reports of one repeat, added up.
pub struct Totals {
    /// Latency of every measured transaction, nanoseconds.
    pub hist: Histogram<u64>,
    /// Per transaction type (a workload that mixes several), in the workload's order.
    pub types: Vec<TypeTally>,
    /// Measured transactions per second of the measured phase.
    pub timeline: Vec<u64>,
    /// Measured transactions.
    pub measured: u64,
    /// Committed transactions, warm-up included.
    pub committed: u64,
    /// Client CPU while measured.
    pub cpu: crate::runner::cpu::ThreadCpu,
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
            types: Vec::new(),
            timeline: Vec::new(),
            measured: 0,
            committed: 0,
            cpu: crate::runner::cpu::ThreadCpu::ZERO,
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
        if self.types.len() < r.types.len() {
            self.types.resize_with(r.types.len(), TypeTally::default);
        }
        for (t, more) in self.types.iter_mut().zip(&r.types) {
            t.add(more)?;
        }
        self.measured += r.measured;
        self.committed += r.committed;
        self.tally += &r.tally;
        self.cpu = self.cpu + r.cpu;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A client that committed reads and updates of these latencies (ns), and failed one
    /// update after two retries, its `hist` their sum as the worker leaves it.
    fn client(reads: &[u64], updates: &[u64]) -> WorkerReport {
        let mut r = WorkerReport::empty(2);
        for (t, lat) in r.types.iter_mut().zip([reads, updates]) {
            for l in lat {
                t.hist.record(*l).unwrap();
                t.transactions += 1;
            }
            r.measured += t.transactions;
            r.hist.add(&t.hist).unwrap();
        }
        r.types[1].errors = 1;
        r.types[1].retries = 2;
        r
    }

    #[test]
    fn clients_add_up_type_by_type() {
        let t = Totals::of(&[client(&[1000, 2000], &[10_000]), client(&[3000], &[20_000, 30_000])]).unwrap();
        let [read, update] = &t.types[..] else { panic!("{} types", t.types.len()) };
        assert_eq!((read.transactions, update.transactions), (3, 3));
        assert_eq!((update.errors, update.retries), (2, 4));
        assert_eq!(read.transactions + update.transactions, t.measured);
        // Each type's histogram holds its own, the whole one all of them.
        assert!(read.hist.equivalent(read.hist.max(), 3000) && update.hist.equivalent(update.hist.min(), 10_000));
        assert_eq!(t.hist.len(), read.hist.len() + update.hist.len());
        // A workload of one type: none.
        assert!(Totals::of(&[WorkerReport::empty(0)]).unwrap().types.is_empty());
    }
}
