//! One client's loop: run transactions, time each, retry conflicts, count everything.
//! Nothing here allocates, formats or locks on the success path.

use crate::engine::TxError;
use crate::runner::coordinator::Coordinator;
use crate::runner::cpu::thread_cpu;
use crate::workload::Transactor;
use hdrhistogram::Histogram;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Clients warm up.
pub const WARMUP: u8 = 0;
/// Clients are measured.
pub const MEASURE: u8 = 1;
/// Clients stop after their current transaction.
pub const STOP: u8 = 2;

/// A counter on its own cache line, so clients bumping theirs do not contend.
#[repr(align(64))]
#[derive(Default)]
pub struct Padded(pub AtomicU64);

/// What the coordinator and the clients share.
pub struct Control {
    /// WARMUP, MEASURE or STOP.
    pub phase: AtomicU8,
    /// When the measured phase began (set just before the phase flips to MEASURE).
    pub measure_start: OnceLock<Instant>,
    /// Measured transactions per client, read by the progress bar.
    pub done: Vec<Padded>,
    /// Clients that have left their loop.
    pub finished: AtomicU64,
}

impl Control {
    /// A control block for `clients` clients, in warm-up.
    pub fn new(clients: usize) -> Control {
        Control {
            phase: AtomicU8::new(WARMUP),
            measure_start: OnceLock::new(),
            done: (0..clients).map(|_| Padded::default()).collect(),
            finished: AtomicU64::new(0),
        }
    }

    /// Measured transactions over all clients so far.
    pub fn total(&self) -> u64 {
        self.done.iter().map(|d| d.0.load(Ordering::Relaxed)).sum()
    }
}

/// What one client did.
pub struct WorkerReport {
    /// Latency of measured transactions, nanoseconds.
    pub hist: Histogram<u64>,
    /// Committed transactions, warm-up included (for verify).
    pub committed: u64,
    /// Committed transactions while measured.
    pub measured: u64,
    /// Failed measured transactions.
    pub errors: u64,
    /// Retried attempts while measured.
    pub retries: u64,
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
}

/// Consecutive failures after which a client gives up rather than spin on a dead engine.
const MAX_CONSECUTIVE_ERRORS: u32 = 100;
/// How long one transaction may keep hitting conflicts, and how long a failing client
/// may go without a success, before it counts as an error / gives up.
const PATIENCE: Duration = Duration::from_secs(10);

/// Counts the client as finished however it leaves (a panic included), so the
/// coordinator never waits for a client that is gone.
struct Finished<'a>(&'a AtomicU64);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// Run `tx` until STOP, or until `limit` measured transactions are done; `coord`, when
/// given, is ticked between transactions and between retries.
pub fn run(
    mut tx: Box<dyn Transactor>,
    ctl: &Control,
    me: usize,
    limit: Option<u64>,
    mut coord: Option<&mut Coordinator>,
) -> WorkerReport {
    let _finished = Finished(&ctl.finished);
    let mut r = WorkerReport {
        hist: crate::results::new_histogram(),
        committed: 0,
        measured: 0,
        errors: 0,
        retries: 0,
        cpu: Duration::ZERO,
        last_end: None,
        // An hour of seconds up front: the timeline never allocates while measured.
        timeline: Vec::with_capacity(3600),
        first_error: None,
        gave_up: false,
        statements: Vec::new(),
    };
    let mut tick = |now: Instant| {
        if let Some(c) = coord.as_deref_mut()
            && now >= c.next
        {
            c.tick(now);
            return true;
        }
        false
    };
    let mut cpu_start = None;
    let mut measure_start = None;
    let mut consecutive = 0;
    let mut last_success = Instant::now();
    loop {
        let mut start = Instant::now();
        if tick(start) {
            // The coordinator's work is not this transaction's latency.
            start = Instant::now();
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
            start = Instant::now();
        }
        let mut attempt = 0u32;
        let outcome = loop {
            match tx.run_one(attempt > 0) {
                Ok(()) => break Ok(()),
                Err(TxError::Retry) => {
                    tx.abort();
                    attempt += 1;
                    let now = Instant::now();
                    tick(now);
                    // Counted by the phase now: a conflict that lasts into the measured
                    // window is contention in the measured window.
                    match ctl.phase.load(Ordering::Acquire) {
                        STOP => break Err(None),
                        p => r.retries += u64::from(p == MEASURE),
                    }
                    if now - start > PATIENCE {
                        break Err(Some(format!(
                            "still conflicting after {attempt} retries over {} s",
                            PATIENCE.as_secs()
                        )));
                    }
                    backoff(attempt);
                }
                Err(TxError::Fail(m) | TxError::Duplicate(m)) => {
                    tx.abort();
                    break Err(Some(m));
                }
            }
        };
        let end = Instant::now();
        match outcome {
            Ok(()) => {
                consecutive = 0;
                last_success = end;
                r.committed += 1;
                if measuring {
                    r.hist.saturating_record((end - start).as_nanos() as u64);
                    r.measured += 1;
                    r.last_end = Some(end);
                    let sec = measure_start.map_or(0, |s| end.saturating_duration_since(s).as_secs() as usize);
                    if sec >= r.timeline.len() {
                        r.timeline.resize(sec + 1, 0);
                    }
                    r.timeline[sec] += 1;
                    ctl.done[me].0.fetch_add(1, Ordering::Relaxed);
                    if limit.is_some_and(|l| r.measured >= l) {
                        break;
                    }
                }
            }
            Err(None) => break,
            Err(Some(m)) => {
                r.errors += u64::from(measuring);
                r.first_error.get_or_insert(m);
                consecutive += 1;
                if consecutive >= MAX_CONSECUTIVE_ERRORS || end - last_success > PATIENCE {
                    r.gave_up = true;
                    break;
                }
            }
        }
    }
    if let Some(c) = cpu_start {
        r.cpu = thread_cpu().saturating_sub(c);
    }
    r.statements = tx.statements();
    r
}

/// Yield first (the lock holder is probably running), then sleep a little longer each time.
fn backoff(attempt: u32) {
    if attempt < 4 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(1 << attempt.min(10)));
    }
}
