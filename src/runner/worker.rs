//! One client's loop: run transactions, time each, retry conflicts, count everything;
//! with `--reconnect`, a client whose connection is lost gets a new one and goes on.
//! Nothing here allocates, formats or locks on the success path; the live counters of
//! `--progress` are plain stores, and `--log-interval` allocates once per interval.

use crate::engine::TxError;
use crate::results::{StatementLatency, Tally, TypeTally};
use crate::runner::control::{Control, MEASURE, STOP};
use crate::runner::coordinator::Coordinator;
use crate::runner::cpu::{ThreadCpu, thread_cpu};
use crate::runner::gauge::Gauge;
use crate::runner::intervals::{ClientInterval, Recorder};
use crate::runner::recovery::{Back, Reconnect, Tries};
use crate::runner::schedule::Schedule;
use crate::workload::Transactor;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one client did.
pub struct WorkerReport {
    /// Latency of measured transactions, nanoseconds.
    pub hist: Histogram<u64>,
    /// Per transaction type of a workload that mixes several (`Observe::types`, in its
    /// order): counts and latency while measured; `hist` is their sum.
    pub types: Vec<TypeTally>,
    /// Committed transactions, warm-up included (for verify).
    pub committed: u64,
    /// Committed transactions while measured.
    pub measured: u64,
    /// Measured transactions that failed, were retried or ran out of tries, and the
    /// reconnections made while measured (`--reconnect`), as a slice counts them.
    pub tally: Tally,
    /// Why the client left the run because its connection was lost (and not regained).
    pub lost: Option<String>,
    /// Client CPU time while measured.
    pub cpu: ThreadCpu,
    /// When the last measured transaction ended.
    pub last_end: Option<Instant>,
    /// Measured transactions that ended in each second since the measurement began.
    pub timeline: Vec<u64>,
    /// The first error message seen.
    pub first_error: Option<String>,
    /// Set when the client gave up after too many errors.
    pub gave_up: bool,
    /// Per-statement latency while measured, from the workload (script workloads).
    pub statements: Vec<crate::results::StatementLatency>,
    /// How late measured transactions started against their schedule (`--rate`), summed, ns.
    pub lag_sum_ns: u64,
    /// The latest of those starts, ns.
    pub lag_max_ns: u64,
    /// Measured slots skipped for being past `--latency-limit` before they started.
    pub skipped: u64,
    /// Measured transactions that finished later than `--latency-limit`.
    pub late: u64,
    /// The measured phase in `--log-interval` slices (empty without it).
    pub intervals: Vec<ClientInterval>,
}

impl WorkerReport {
    /// Nothing done yet, with `types` transaction types; an hour of seconds and every
    /// type's histogram up front, so nothing allocates while measured.
    pub(crate) fn empty(types: usize) -> WorkerReport {
        WorkerReport {
            hist: crate::results::new_histogram(),
            types: (0..types).map(|_| TypeTally::default()).collect(),
            committed: 0,
            measured: 0,
            tally: Tally::default(),
            lost: None,
            cpu: ThreadCpu::ZERO,
            last_end: None,
            timeline: Vec::with_capacity(3600),
            first_error: None,
            gave_up: false,
            statements: Vec::new(),
            lag_sum_ns: 0,
            lag_max_ns: 0,
            skipped: 0,
            late: 0,
            intervals: Vec::new(),
        }
    }
}

/// Consecutive failures after which a client gives up rather than spin on a dead engine.
const MAX_CONSECUTIVE_ERRORS: u32 = 100;
/// How long a failing client may go without a success before it gives up.
const PATIENCE: Duration = crate::runner::recovery::PATIENCE;

/// What a client does with transactions that cannot go through.
#[derive(Default)]
pub struct Recovery<'a> {
    /// How often a conflicting transaction is tried (`--max-tries`).
    pub tries: Tries,
    /// How the client gets a new connection when its own is lost (`--reconnect`); none:
    /// it leaves the run, which fails.
    pub reconnect: Option<Reconnect<'a>>,
}

/// How a transaction's tries ended, short of success.
enum Ended {
    /// The run is stopping.
    Stopped,
    /// Conflicts on every try it was given.
    OutOfTries(String),
    /// The connection is gone.
    Lost(String),
    /// Any other failure.
    Failed(String),
}

/// Counts the client as finished however it leaves (a panic included), so the
/// coordinator never waits for a client that is gone.
struct Finished<'a>(&'a AtomicU64);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// The longest a client waiting for its schedule sleeps before it looks at the phase again.
const WAIT_SLICE: Duration = Duration::from_millis(20);

/// Run `tx` until STOP, or until `limit` measured transactions are done; `coord`, when
/// given, is ticked between transactions and between retries.
pub fn run(
    tx: Box<dyn Transactor>,
    ctl: &Control,
    me: usize,
    limit: Option<u64>,
    coord: Option<&mut Coordinator>,
) -> WorkerReport {
    run_paced(tx, ctl, me, limit, coord, None)
}

/// As `run`; with a `schedule`, each transaction waits for its arrival and is timed from
/// it (open loop), and skipped slots count towards `limit`, as in pgbench.
pub fn run_paced(
    tx: Box<dyn Transactor>,
    ctl: &Control,
    me: usize,
    limit: Option<u64>,
    coord: Option<&mut Coordinator>,
    schedule: Option<Schedule>,
) -> WorkerReport {
    run_recovering(tx, Duty { ctl, me, limit, coord, schedule }, Recovery::default())
}

/// As `run_paced`, with conflicts tried and lost connections regained as `recovery` says.
pub fn run_recovering(tx: Box<dyn Transactor>, duty: Duty, recovery: Recovery) -> WorkerReport {
    let _finished = Finished(&duty.ctl.finished);
    Client::new(tx, duty, recovery).run()
}

/// What a client's loop is given besides its transactor and its recovery.
pub struct Duty<'a, 'c> {
    /// The phases, shared with the coordinator.
    pub ctl: &'a Control,
    /// The client's index in `ctl`.
    pub me: usize,
    /// Measured transactions (or slots, paced) after which the client stops.
    pub limit: Option<u64>,
    /// The coordinator, ticked between transactions (client 0 only).
    pub coord: Option<&'a mut Coordinator<'c>>,
    /// Arrivals to wait for (`--rate`): open loop.
    pub schedule: Option<Schedule>,
}

/// How a client leaves a failure: it goes on, or it is done.
enum Then {
    GoOn,
    Leave,
}

/// One client's loop and what it has counted so far.
struct Client<'a, 'c> {
    tx: Box<dyn Transactor>,
    duty: Duty<'a, 'c>,
    recovery: Recovery<'a>,
    /// This client's live counters for `--progress`, if any.
    gauge: Option<&'a Gauge>,
    /// `--latency-limit`, when paced.
    latency_limit: Option<Duration>,
    r: WorkerReport,
    slices: Option<Recorder>,
    cpu_start: Option<ThreadCpu>,
    measure_start: Option<Instant>,
    consecutive: u32,
    last_success: Instant,
    slots: u64,
    /// Per-statement figures of transactors replaced after a lost connection.
    replaced: Vec<StatementLatency>,
}

impl<'a, 'c> Client<'a, 'c> {
    fn new(tx: Box<dyn Transactor>, duty: Duty<'a, 'c>, recovery: Recovery<'a>) -> Self {
        let o = duty.ctl.observe;
        Client {
            tx,
            recovery,
            gauge: duty.ctl.gauges.get(duty.me),
            latency_limit: duty.schedule.as_ref().and_then(|s| s.limit),
            r: WorkerReport::empty(o.types),
            slices: o.log_interval.map(|every| Recorder::new(every, o.expected_intervals)),
            cpu_start: None,
            measure_start: None,
            consecutive: 0,
            last_success: Instant::now(),
            slots: 0,
            replaced: Vec::new(),
            duty,
        }
    }

    fn run(mut self) -> WorkerReport {
        while let Some((start, scheduled)) = self.next_start() {
            let phase = self.duty.ctl.phase.load(Ordering::Acquire);
            if phase == STOP {
                break;
            }
            let measuring = phase == MEASURE;
            let start =
                if measuring && self.cpu_start.is_none() { self.begin_measuring(start, scheduled) } else { start };
            let (outcome, retries) = self.try_until_done(start, scheduled, measuring);
            let end = Instant::now();
            // Read before a lost connection replaces the transactor.
            let kind = self.tx.last_type();
            self.count_retries(end, retries, kind);
            let then = match outcome {
                Ok(()) => self.committed(start, end, scheduled, measuring, kind),
                Err(Ended::Stopped) => Then::Leave,
                Err(e) => self.failed(e, end, measuring, kind),
            };
            if let Then::Leave = then {
                break;
            }
            self.pause();
        }
        self.finish()
    }

    /// Wait as long as the transactor asks before its next transaction (tpcc's keying and
    /// think times), in slices that tick the coordinator and see a stop: time between
    /// transactions, not any transaction's latency.
    fn pause(&mut self) {
        let want = self.tx.pause();
        if !want.is_zero() {
            let now = Instant::now();
            let _ = self.sleep_until(now, now + want);
        }
    }

    /// Sleep from `now` until `until`, in slices that tick the coordinator: when it woke
    /// past `until`, or none when the run stops first.
    fn sleep_until(&mut self, mut now: Instant, until: Instant) -> Option<Instant> {
        loop {
            let (_, next_tick) = self.tick(now);
            if self.stopping() {
                return None;
            }
            if now >= until {
                return Some(now);
            }
            let wake = next_tick.map_or(until, |t| t.min(until)).min(now + WAIT_SLICE);
            crate::fiber::sleep(wake.saturating_duration_since(now));
            now = Instant::now();
        }
    }

    fn tick(&mut self, now: Instant) -> (bool, Option<Instant>) {
        tick(&mut self.duty.coord, now)
    }

    fn stopping(&self) -> bool {
        self.duty.ctl.phase.load(Ordering::Acquire) == STOP
    }

    /// When the next transaction starts, and when it was due (paced): `None` when the
    /// run stops or the client's slots are spent first.
    fn next_start(&mut self) -> Option<(Instant, Option<Instant>)> {
        let mut start = Instant::now();
        if self.tick(start).0 {
            // The coordinator's work is not this transaction's latency.
            start = Instant::now();
        }
        if self.duty.schedule.is_none() {
            return Some((start, None));
        }
        self.wait_for_arrival(start).map(|(start, due)| (start, Some(due)))
    }

    /// Open loop: wait for the next arrival, ticking the coordinator meanwhile; skip the
    /// slots already past `--latency-limit`.
    fn wait_for_arrival(&mut self, mut start: Instant) -> Option<(Instant, Instant)> {
        let mut due = self.duty.schedule.as_mut()?.next(start);
        start = self.sleep_until(start, due)?;
        let s = self.duty.schedule.as_mut()?;
        // A slot already later than the limit would miss it even if it took no time:
        // skip it, and the ones after it, as pgbench does.
        while let Some(l) = s.limit
            && start.saturating_duration_since(due) > l
            && self.duty.limit.is_none_or(|l| self.slots < l)
        {
            if self.duty.ctl.phase.load(Ordering::Acquire) == MEASURE {
                self.r.skipped += 1;
                self.slots += 1;
                // A client counting slots is done when its last one is, run or not.
                self.r.last_end = Some(start);
            }
            due = s.next(start);
        }
        self.duty.limit.is_none_or(|l| self.slots < l).then_some((start, due))
    }

    /// The first measured transaction: start the client's CPU clock and its slices; the
    /// transaction's start, taken again unless it is paced.
    fn begin_measuring(&mut self, start: Instant, scheduled: Option<Instant>) -> Instant {
        self.tx.measuring();
        self.cpu_start = Some(thread_cpu());
        self.measure_start = self.duty.ctl.measure_start.get().copied();
        let start = if scheduled.is_none() { Instant::now() } else { start };
        if let Some(s) = self.slices.as_mut() {
            s.begin(self.measure_start.unwrap_or(start));
        }
        start
    }

    /// Run one transaction, trying it again on conflicts as `--max-tries` allows: how it
    /// ended, and the tries after the first made while measuring.
    fn try_until_done(
        &mut self,
        start: Instant,
        scheduled: Option<Instant>,
        measuring: bool,
    ) -> (Result<(), Ended>, u64) {
        let mut tries = 1u32;
        // A transaction begun in the warm-up that conflicts on into the measured phase (a
        // writer locked out) counts its retries there.
        let mut measured_retries = 0u64;
        let outcome = loop {
            match self.tx.run_one(tries > 1) {
                Ok(()) => break Ok(()),
                Err(TxError::Retry) => {
                    self.tx.abort();
                    let now = Instant::now();
                    self.tick(now);
                    if self.stopping() {
                        break Err(Ended::Stopped);
                    }
                    if let Some(why) = self.recovery.tries.spent(tries, now - start) {
                        break Err(Ended::OutOfTries(why));
                    }
                    // pgbench: the latency limit bounds all tries of a transaction together.
                    if let (Some(l), Some(due)) = (self.latency_limit, scheduled)
                        && now.saturating_duration_since(due) > l
                    {
                        break Err(Ended::OutOfTries(format!(
                            "still conflicting past the --latency-limit after {tries} tries"
                        )));
                    }
                    backoff(tries);
                    tries += 1;
                    if measuring || self.duty.ctl.phase.load(Ordering::Acquire) == MEASURE {
                        measured_retries += 1;
                    }
                }
                Err(TxError::Lost(m)) => {
                    self.tx.abort();
                    break Err(Ended::Lost(m));
                }
                Err(TxError::Fail(m) | TxError::Duplicate(m)) => {
                    self.tx.abort();
                    break Err(Ended::Failed(m));
                }
            }
        };
        (outcome, measured_retries)
    }

    fn count_retries(&mut self, end: Instant, measured_retries: u64, kind: usize) {
        if measured_retries > 0 {
            if let Some(t) = self.r.types.get_mut(kind) {
                t.retries += measured_retries;
            }
            self.r.tally.retries += measured_retries;
            self.r.tally.retried += 1;
            if let Some(s) = self.slices.as_mut() {
                s.retried(end, measured_retries);
            }
        }
    }

    /// A committed transaction of type `kind`, timed from its scheduled start when paced so
    /// a backlog shows as latency; leave once the client's count is done.
    fn committed(
        &mut self,
        start: Instant,
        end: Instant,
        scheduled: Option<Instant>,
        measuring: bool,
        kind: usize,
    ) -> Then {
        self.consecutive = 0;
        self.last_success = end;
        self.r.committed += 1;
        let latency = (end - scheduled.unwrap_or(start)).as_nanos() as u64;
        if let Some(g) = self.gauge {
            g.commit(latency);
        }
        if !measuring {
            return Then::GoOn;
        }
        let r = &mut self.r;
        // One histogram recorded either way: a typed transaction's is its type's, which
        // add up to `hist` when the client finishes.
        match r.types.get_mut(kind) {
            Some(t) => {
                t.hist.saturating_record(latency);
                t.transactions += 1;
            }
            None => r.hist.saturating_record(latency),
        }
        if let Some(s) = self.slices.as_mut() {
            s.commit(end, latency);
        }
        r.measured += 1;
        self.slots += 1;
        if let Some(due) = scheduled {
            let lag = start.saturating_duration_since(due).as_nanos() as u64;
            r.lag_sum_ns += lag;
            r.lag_max_ns = r.lag_max_ns.max(lag);
            r.late += u64::from(self.latency_limit.is_some_and(|l| latency > l.as_nanos() as u64));
        }
        r.last_end = Some(end);
        let sec = self.measure_start.map_or(0, |s| end.saturating_duration_since(s).as_secs() as usize);
        if sec >= r.timeline.len() {
            r.timeline.resize(sec + 1, 0);
        }
        r.timeline[sec] += 1;
        self.duty.ctl.done[self.duty.me].0.fetch_add(1, Ordering::Relaxed);
        if self.duty.limit.is_some_and(|l| self.slots >= l) { Then::Leave } else { Then::GoOn }
    }

    /// A transaction that failed: counted as such, never as a success; a lost connection
    /// regained or the client gone; and the client gives up on an engine that stopped
    /// answering.
    fn failed(&mut self, ended: Ended, end: Instant, measuring: bool, kind: usize) -> Then {
        // Out of tries, the engine answered: that counts against the patience, not as
        // one of the errors in a row that say the engine is gone.
        let answered = matches!(ended, Ended::OutOfTries(_));
        let lost = matches!(ended, Ended::Lost(_));
        let (Ended::OutOfTries(failure) | Ended::Lost(failure) | Ended::Failed(failure)) = ended else {
            return Then::Leave;
        };
        if answered {
            self.r.tally.failed += u64::from(measuring);
            if let (true, Some(s)) = (measuring, self.slices.as_mut()) {
                s.failed(end);
            }
        }
        self.r.tally.errors += u64::from(measuring);
        if let (true, Some(t)) = (measuring, self.r.types.get_mut(kind)) {
            t.errors += 1;
        }
        if let Some(g) = self.gauge {
            g.error();
        }
        if let (true, Some(s)) = (measuring, self.slices.as_mut()) {
            s.error(end);
        }
        self.consecutive += u32::from(!answered);
        if lost && let Then::Leave = self.regain(&failure, end, measuring) {
            return Then::Leave;
        }
        self.r.first_error.get_or_insert(failure);
        if self.consecutive >= MAX_CONSECUTIVE_ERRORS || end - self.last_success > PATIENCE {
            self.r.gave_up = true;
            return Then::Leave;
        }
        Then::GoOn
    }

    /// A new connection for a lost one (`--reconnect`), or why the client leaves the run
    /// (a stopping run leaves without an error to report).
    fn regain(&mut self, failure: &str, end: Instant, measuring: bool) -> Then {
        let Some(rc) = self.recovery.reconnect.as_mut() else {
            self.r.lost = Some(format!("a client lost its connection: {failure}; --reconnect reconnects and goes on"));
            self.r.first_error.get_or_insert_with(|| failure.to_string());
            return Then::Leave;
        };
        let ctl = self.duty.ctl;
        let stopped = || ctl.phase.load(Ordering::Acquire) == STOP || crate::signals::pending().is_some();
        let coord = &mut self.duty.coord;
        match rc.again(stopped, |now| {
            tick(coord, now);
        }) {
            Back::Connected(new) => {
                crate::results::merge_statements(&mut self.replaced, &self.tx.statements());
                self.tx = new;
                if self.cpu_start.is_some() {
                    self.tx.measuring();
                }
                let back = Instant::now();
                if measuring {
                    self.r.tally.reconnects += 1;
                    self.r.tally.reconnect_s += (back - end).as_secs_f64();
                    if let Some(s) = self.slices.as_mut() {
                        s.reconnected(back, back - end);
                    }
                }
                // A new connection starts the wait for a success afresh.
                self.last_success = back;
                Then::GoOn
            }
            Back::Stopped => Then::Leave,
            Back::GaveUp(why) => {
                self.r.lost = Some(format!("a client lost its connection ({failure}) and {why}"));
                self.r.first_error.get_or_insert_with(|| failure.to_string());
                Then::Leave
            }
        }
    }

    fn finish(mut self) -> WorkerReport {
        if let Some(c) = self.cpu_start {
            self.r.cpu = thread_cpu().since(c);
        }
        for t in &self.r.types {
            // The same bounds: adding cannot fail.
            let _ = self.r.hist.add(&t.hist);
        }
        self.r.statements = self.tx.statements();
        crate::results::merge_statements(&mut self.r.statements, &self.replaced);
        self.r.intervals = self.slices.map_or_else(Vec::new, Recorder::finish);
        self.r
    }
}

/// Tick the coordinator, if this client has it, when it is due: whether it ticked, and
/// when it is due next.
fn tick(coord: &mut Option<&mut Coordinator>, now: Instant) -> (bool, Option<Instant>) {
    let Some(c) = coord.as_deref_mut() else { return (false, None) };
    let ticked = now >= c.next;
    if ticked {
        c.tick(now);
    }
    (ticked, Some(c.next))
}

/// Yield first (the lock holder is probably running), then sleep a little longer each
/// time: `attempt` is the try that just failed.
fn backoff(attempt: u32) {
    if attempt < 4 {
        crate::fiber::yield_now();
    } else {
        crate::fiber::sleep(Duration::from_micros(1 << attempt.min(10)));
    }
}
