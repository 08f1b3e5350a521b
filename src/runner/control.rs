//! What the coordinator and a repeat's clients share: the phase they are in and what
//! they count for the coordinator to read.

use crate::padding::Padded;
use crate::runner::gauge::Gauge;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Clients warm up.
pub const WARMUP: u8 = 0;
/// Clients are measured.
pub const MEASURE: u8 = 1;
/// Clients stop after their current transaction.
pub const STOP: u8 = 2;

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
    /// Live counters per client for `--progress`; empty without it.
    pub gauges: Vec<Gauge>,
    /// What the clients record beyond the measurement itself.
    pub observe: Observe,
}

/// What clients record for `--progress` and `--log-interval`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Observe {
    /// Bump live counters for progress lines.
    pub progress: bool,
    /// Keep a histogram per interval of this length from the measured phase's start.
    pub log_interval: Option<Duration>,
    /// Intervals to make room for up front (the measured time over the interval, if known).
    pub expected_intervals: usize,
    /// Transaction types the workload mixes (`Workload::types`), each recorded apart with
    /// a histogram of its own; 0 when it runs one.
    pub types: usize,
}

impl Control {
    /// A control block for `clients` clients, in warm-up.
    pub fn new(clients: usize) -> Control {
        Control::observed(clients, Observe::default())
    }

    /// A control block for `clients` clients that also record what `observe` asks.
    pub fn observed(clients: usize, observe: Observe) -> Control {
        Control {
            phase: AtomicU8::new(WARMUP),
            measure_start: OnceLock::new(),
            done: (0..clients).map(|_| Padded::default()).collect(),
            finished: AtomicU64::new(0),
            gauges: if observe.progress { (0..clients).map(|_| Gauge::default()).collect() } else { Vec::new() },
            observe,
        }
    }

    /// Measured transactions over all clients so far.
    pub fn total(&self) -> u64 {
        self.done.iter().map(|d| d.0.load(Ordering::Relaxed)).sum()
    }
}
