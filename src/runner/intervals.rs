//! Per-interval latency histograms behind `--log-interval` (pgbench's
//! `--aggregate-interval`): each client records its measured transactions into a
//! histogram of the current interval; when a transaction ends in a later interval, the
//! finished one is kept as its recorded (value, count) pairs and the histogram is reset.
//! That rotation is one small allocation per interval per client, never per transaction.
//! After the measurement the clients' intervals are merged into one HdrHistogram each.

use crate::error::Result;
use crate::results::{Interval, Tally, encode_histogram, new_histogram};
use hdrhistogram::Histogram;
use std::time::{Duration, Instant};

/// Distinct latencies a slice is expected to hold at most (a wider one grows the buffer).
const SCRATCH: usize = 4096;

/// One client's finished interval.
pub struct ClientInterval {
    /// Its number since the measured phase began (start = index × interval).
    pub index: u64,
    /// What it counted besides latencies.
    pub tally: Tally,
    /// The histogram's recorded values (each its bucket's highest equivalent) and counts.
    pub counts: Vec<(u64, u64)>,
}

/// One client's recorder of measured intervals.
pub struct Recorder {
    every: Duration,
    start: Option<Instant>,
    index: u64,
    boundary: Instant,
    hist: Histogram<u64>,
    tally: Tally,
    done: Vec<ClientInterval>,
    scratch: Vec<(u64, u64)>,
}

impl Recorder {
    /// A recorder of `every`-long intervals, room kept for `expected` of them.
    pub fn new(every: Duration, expected: usize) -> Recorder {
        Recorder {
            every,
            start: None,
            index: 0,
            boundary: Instant::now(),
            hist: new_histogram(),
            tally: Tally::default(),
            done: Vec::with_capacity(expected),
            scratch: Vec::with_capacity(SCRATCH),
        }
    }

    /// The measured phase began at `start`: intervals count from there.
    pub fn begin(&mut self, start: Instant) {
        self.start = Some(start);
        self.boundary = start + self.every;
    }

    /// A measured transaction of `latency_ns` ended at `end`.
    #[inline]
    pub fn commit(&mut self, end: Instant, latency_ns: u64) {
        if end >= self.boundary {
            self.rotate(end);
        }
        self.hist.saturating_record(latency_ns);
    }

    /// A measured transaction failed at `end`.
    #[inline]
    pub fn error(&mut self, end: Instant) {
        self.at(end).errors += 1;
    }

    /// A measured transaction that ends at `end` was retried `retries` times.
    pub fn retried(&mut self, end: Instant, retries: u64) {
        let t = self.at(end);
        t.retries += retries;
        t.retried += 1;
    }

    /// A measured transaction ran out of tries at `end` (its `error` is counted apart).
    pub fn failed(&mut self, end: Instant) {
        self.at(end).failed += 1;
    }

    /// A new connection was ready at `end`, `lost` after the old one was lost.
    pub fn reconnected(&mut self, end: Instant, lost: Duration) {
        let t = self.at(end);
        t.reconnects += 1;
        t.reconnect_s += lost.as_secs_f64();
    }

    /// The tally of the interval `end` falls in.
    #[inline]
    fn at(&mut self, end: Instant) -> &mut Tally {
        if end >= self.boundary {
            self.rotate(end);
        }
        &mut self.tally
    }

    #[cold]
    fn rotate(&mut self, end: Instant) {
        let Some(start) = self.start else { return };
        self.keep();
        let every = self.every.as_nanos().max(1);
        self.index = (end.saturating_duration_since(start).as_nanos() / every) as u64;
        self.boundary =
            start + Duration::from_nanos(((u128::from(self.index) + 1) * every).min(u64::MAX as u128) as u64);
    }

    /// Keep the current interval if anything happened in it, and empty the histogram.
    fn keep(&mut self) {
        if self.hist.is_empty() && self.tally.is_empty() {
            return;
        }
        // Gathered in a buffer kept for the purpose, then copied at its exact size: one
        // allocation per slice, one pass over the histogram.
        self.scratch.clear();
        self.scratch.extend(self.hist.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())));
        let counts = self.scratch.to_vec();
        self.done.push(ClientInterval { index: self.index, tally: self.tally, counts });
        self.hist.reset();
        self.tally = Tally::default();
    }

    /// Every interval this client recorded, the current one included.
    pub fn finish(mut self) -> Vec<ClientInterval> {
        self.keep();
        self.done
    }
}

/// The clients' intervals merged, one per `every` from the measured phase's start over
/// `duration` (the last one may be partial; an interval where nothing ended is kept, with
/// zero transactions: a stall is a fact).
pub fn merge(clients: Vec<Vec<ClientInterval>>, every: Duration, duration: Duration) -> Result<Vec<Interval>> {
    let mut all: Vec<ClientInterval> = clients.into_iter().flatten().collect();
    all.sort_by_key(|c| c.index);
    let covered = (duration.as_secs_f64() / every.as_secs_f64() - 1e-9).ceil().max(0.0) as u64;
    let n = all.last().map_or(0, |c| c.index + 1).max(covered);
    // One histogram at a time, reset between intervals: thousands of intervals must not
    // mean thousands of full histograms in memory at once.
    let mut hist = new_histogram();
    let mut out = Vec::with_capacity(n as usize);
    let mut it = all.into_iter().peekable();
    for index in 0..n {
        hist.reset();
        let mut tally = Tally::default();
        while let Some(c) = it.next_if(|c| c.index == index) {
            tally += &c.tally;
            for (v, k) in c.counts {
                hist.record_n(v, k).map_err(|e| failed!("cannot merge interval histograms: {e:?}"))?;
            }
        }
        out.push(Interval {
            start_s: index as f64 * every.as_secs_f64(),
            transactions: hist.len(),
            tally,
            histogram: encode_histogram(&hist),
            counters: None,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::decode_histogram;

    #[test]
    fn intervals_split_by_end_time_and_merge_across_clients_exactly() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let every = ms(100);
        let mut a = Recorder::new(every, 4);
        let mut b = Recorder::new(every, 4);
        a.begin(t0);
        b.begin(t0);
        for i in 0..50u64 {
            a.commit(t0 + ms(i * 5), 1_000 + i);
            if i == 24 {
                a.error(t0 + ms(122));
            }
        }
        // b skips the second interval entirely and has one in the third.
        b.commit(t0 + ms(1), 7_777);
        b.commit(t0 + ms(230), 123_456_789);
        // Retries, failures and reconnections count where they end.
        b.retried(t0 + ms(230), 3);
        b.failed(t0 + ms(240));
        b.reconnected(t0 + ms(245), ms(40));
        let merged = merge(vec![a.finish(), b.finish()], every, ms(250)).unwrap();
        let counts: Vec<(f64, u64, u64)> = merged.iter().map(|i| (i.start_s, i.transactions, i.tally.errors)).collect();
        assert_eq!(counts, vec![(0.0, 21, 0), (0.1, 20, 1), (0.2, 11, 0)]);
        let third = &merged[2];
        let t = third.tally;
        assert_eq!((t.retries, t.retried, t.failed, t.reconnects), (3, 1, 1, 1));
        assert!((t.reconnect_s - 0.04).abs() < 1e-9 && merged[1].tally.reconnects == 0);
        let h = decode_histogram(&merged[2].histogram).unwrap();
        assert_eq!(h.len(), 11);
        assert!(h.equivalent(h.max(), 123_456_789), "{}", h.max());
        let first = decode_histogram(&merged[0].histogram).unwrap();
        assert!(first.equivalent(first.min(), 1_000) && first.equivalent(first.max(), 7_777));
        // A stall: nothing ended after the first interval, yet the time is covered.
        let mut c = Recorder::new(every, 1);
        c.begin(t0);
        c.commit(t0, 5);
        let merged = merge(vec![c.finish()], every, ms(300)).unwrap();
        assert_eq!(merged.iter().map(|i| i.transactions).collect::<Vec<_>>(), vec![1, 0, 0]);
    }
}
