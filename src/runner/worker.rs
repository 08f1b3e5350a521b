//! One client's loop: run transactions, time each, retry conflicts, count everything;
//! with `--reconnect`, a client whose connection is lost gets a new one and goes on.
//! Nothing here allocates, formats or locks on the success path; the live counters of
//! `--progress` are plain stores, and `--log-interval` allocates once per interval.

use crate::engine::TxError;
use crate::results::Tally;
use crate::runner::control::{Control, MEASURE, STOP};
use crate::runner::coordinator::Coordinator;
use crate::runner::cpu::thread_cpu;
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
    pub cpu: Duration,
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
    run_recovering(tx, ctl, me, limit, coord, schedule, Recovery::default())
}

/// As `run_paced`, with conflicts tried and lost connections regained as `recovery` says.
pub fn run_recovering(
    mut tx: Box<dyn Transactor>,
    ctl: &Control,
    me: usize,
    limit: Option<u64>,
    mut coord: Option<&mut Coordinator>,
    mut schedule: Option<Schedule>,
    mut recovery: Recovery,
) -> WorkerReport {
    let _finished = Finished(&ctl.finished);
    let mut r = WorkerReport {
        hist: crate::results::new_histogram(),
        committed: 0,
        measured: 0,
        tally: Tally::default(),
        lost: None,
        cpu: Duration::ZERO,
        last_end: None,
        // An hour of seconds up front: the timeline never allocates while measured.
        timeline: Vec::with_capacity(3600),
        first_error: None,
        gave_up: false,
        statements: Vec::new(),
        lag_sum_ns: 0,
        lag_max_ns: 0,
        skipped: 0,
        late: 0,
        intervals: Vec::new(),
    };
    let gauge = ctl.gauges.get(me);
    let mut slices = ctl.observe.log_interval.map(|every| Recorder::new(every, ctl.observe.expected_intervals));
    // Ticks the coordinator when due; says whether it did, and when it is due next.
    let mut tick = |now: Instant| {
        let Some(c) = coord.as_deref_mut() else { return (false, None) };
        let ticked = now >= c.next;
        if ticked {
            c.tick(now);
        }
        (ticked, Some(c.next))
    };
    let mut cpu_start = None;
    let mut measure_start = None;
    let mut consecutive = 0;
    let mut last_success = Instant::now();
    let mut slots = 0u64;
    // Per-statement figures of transactors replaced after a lost connection.
    let mut replaced = Vec::new();
    let latency_limit = schedule.as_ref().and_then(|s| s.limit);
    'run: loop {
        let mut start = Instant::now();
        if tick(start).0 {
            // The coordinator's work is not this transaction's latency.
            start = Instant::now();
        }
        // Open loop: wait for the next arrival, ticking the coordinator meanwhile.
        let mut scheduled = None;
        if let Some(s) = schedule.as_mut() {
            let mut due = s.next(start);
            loop {
                let (_, next_tick) = tick(start);
                if ctl.phase.load(Ordering::Acquire) == STOP {
                    break 'run;
                }
                if start >= due {
                    break;
                }
                let wake = next_tick.map_or(due, |t| t.min(due)).min(start + WAIT_SLICE);
                crate::fiber::sleep(wake.saturating_duration_since(start));
                start = Instant::now();
            }
            // A slot already later than the limit would miss it even if it took no time:
            // skip it, and the ones after it, as pgbench does.
            while let Some(l) = s.limit
                && start.saturating_duration_since(due) > l
                && limit.is_none_or(|l| slots < l)
            {
                if ctl.phase.load(Ordering::Acquire) == MEASURE {
                    r.skipped += 1;
                    slots += 1;
                    // A client counting slots is done when its last one is, run or not.
                    r.last_end = Some(start);
                }
                due = s.next(start);
            }
            if limit.is_some_and(|l| slots >= l) {
                break;
            }
            scheduled = Some(due);
        }
        let phase = ctl.phase.load(Ordering::Acquire);
        if phase == STOP {
            break;
        }
        let measuring = phase == MEASURE;
        if measuring && cpu_start.is_none() {
            tx.measuring();
            cpu_start = Some(thread_cpu());
            measure_start = ctl.measure_start.get().copied();
            if scheduled.is_none() {
                start = Instant::now();
            }
            if let Some(s) = slices.as_mut() {
                s.begin(measure_start.unwrap_or(start));
            }
        }
        let mut tries = 1u32;
        // Tries after the first made while measuring: a transaction begun in the warm-up
        // that conflicts on into the measured phase (a writer locked out) counts there.
        let mut measured_retries = 0u64;
        let outcome = loop {
            match tx.run_one(tries > 1) {
                Ok(()) => break Ok(()),
                Err(TxError::Retry) => {
                    tx.abort();
                    let now = Instant::now();
                    tick(now);
                    if ctl.phase.load(Ordering::Acquire) == STOP {
                        break Err(Ended::Stopped);
                    }
                    if let Some(why) = recovery.tries.spent(tries, now - start) {
                        break Err(Ended::OutOfTries(why));
                    }
                    // pgbench: the latency limit bounds all tries of a transaction together.
                    if let (Some(l), Some(due)) = (latency_limit, scheduled)
                        && now.saturating_duration_since(due) > l
                    {
                        break Err(Ended::OutOfTries(format!(
                            "still conflicting past the --latency-limit after {tries} tries"
                        )));
                    }
                    backoff(tries);
                    tries += 1;
                    if measuring || ctl.phase.load(Ordering::Acquire) == MEASURE {
                        measured_retries += 1;
                    }
                }
                Err(TxError::Lost(m)) => {
                    tx.abort();
                    break Err(Ended::Lost(m));
                }
                Err(TxError::Fail(m) | TxError::Duplicate(m)) => {
                    tx.abort();
                    break Err(Ended::Failed(m));
                }
            }
        };
        let end = Instant::now();
        if measured_retries > 0 {
            r.tally.retries += measured_retries;
            r.tally.retried += 1;
            if let Some(s) = slices.as_mut() {
                s.retried(end, measured_retries);
            }
        }
        let lost = matches!(outcome, Err(Ended::Lost(_)));
        // Out of tries, the engine answered: that counts against the patience, not as
        // one of the errors in a row that say the engine is gone.
        let answered = matches!(outcome, Err(Ended::OutOfTries(_)));
        let failure = match outcome {
            Ok(()) => {
                consecutive = 0;
                last_success = end;
                r.committed += 1;
                // Open loop: from the scheduled start, so a backlog shows as latency.
                let latency = (end - scheduled.unwrap_or(start)).as_nanos() as u64;
                if let Some(g) = gauge {
                    g.commit(latency);
                }
                if measuring {
                    r.hist.saturating_record(latency);
                    if let Some(s) = slices.as_mut() {
                        s.commit(end, latency);
                    }
                    r.measured += 1;
                    slots += 1;
                    if let Some(due) = scheduled {
                        let lag = start.saturating_duration_since(due).as_nanos() as u64;
                        r.lag_sum_ns += lag;
                        r.lag_max_ns = r.lag_max_ns.max(lag);
                        let limit = schedule.as_ref().and_then(|s| s.limit);
                        r.late += u64::from(limit.is_some_and(|l| latency > l.as_nanos() as u64));
                    }
                    r.last_end = Some(end);
                    let sec = measure_start.map_or(0, |s| end.saturating_duration_since(s).as_secs() as usize);
                    if sec >= r.timeline.len() {
                        r.timeline.resize(sec + 1, 0);
                    }
                    r.timeline[sec] += 1;
                    ctl.done[me].0.fetch_add(1, Ordering::Relaxed);
                    if limit.is_some_and(|l| slots >= l) {
                        break;
                    }
                }
                continue;
            }
            Err(Ended::Stopped) => break,
            Err(Ended::OutOfTries(m)) => {
                r.tally.failed += u64::from(measuring);
                if let (true, Some(s)) = (measuring, slices.as_mut()) {
                    s.failed(end);
                }
                m
            }
            Err(Ended::Lost(m) | Ended::Failed(m)) => m,
        };
        // The transaction failed: counted as such, never as a success.
        r.tally.errors += u64::from(measuring);
        if let Some(g) = gauge {
            g.error();
        }
        if let (true, Some(s)) = (measuring, slices.as_mut()) {
            s.error(end);
        }
        consecutive += u32::from(!answered);
        if lost {
            let Some(rc) = recovery.reconnect.as_mut() else {
                r.lost = Some(format!("a client lost its connection: {failure}; --reconnect reconnects and goes on"));
                r.first_error.get_or_insert(failure);
                break;
            };
            let stopped = || ctl.phase.load(Ordering::Acquire) == STOP || crate::signals::pending().is_some();
            match rc.again(stopped, |now| {
                tick(now);
            }) {
                Back::Connected(new) => {
                    crate::results::merge_statements(&mut replaced, &tx.statements());
                    tx = new;
                    if cpu_start.is_some() {
                        tx.measuring();
                    }
                    let back = Instant::now();
                    if measuring {
                        r.tally.reconnects += 1;
                        r.tally.reconnect_s += (back - end).as_secs_f64();
                        if let Some(s) = slices.as_mut() {
                            s.reconnected(back, back - end);
                        }
                    }
                    // A new connection starts the wait for a success afresh.
                    last_success = back;
                }
                Back::Stopped => break,
                Back::GaveUp(why) => {
                    r.lost = Some(format!("a client lost its connection ({failure}) and {why}"));
                    r.first_error.get_or_insert(failure);
                    break;
                }
            }
        }
        r.first_error.get_or_insert(failure);
        if consecutive >= MAX_CONSECUTIVE_ERRORS || end - last_success > PATIENCE {
            r.gave_up = true;
            break;
        }
    }
    if let Some(c) = cpu_start {
        r.cpu = thread_cpu().saturating_sub(c);
    }
    r.statements = tx.statements();
    crate::results::merge_statements(&mut r.statements, &replaced);
    r.intervals = slices.map_or_else(Vec::new, Recorder::finish);
    r
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
