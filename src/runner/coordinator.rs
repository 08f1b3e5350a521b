//! The coordinator: flips the phases on time, samples the clients' counters for the
//! progress bar and the `--progress` lines, and watches for signals.
//!
//! It runs inside client 0's loop, between transactions, so a one-client cell is a
//! single-threaded process like the native peers it is compared with: measured here, a
//! second, sleeping thread alone slows a syscall-heavy SQLite commit loop by ~6% (the
//! kernel takes slower paths for a shared file table).

use super::Settings;
use super::control::{Control, MEASURE, STOP};
use super::counters::{Sample, Snapshot};
use super::live::Lines;
use crate::signals;
use indicatif::ProgressBar;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

const TICK: Duration = Duration::from_millis(20);

/// What the coordinator saw of one measurement.
pub struct Measurement {
    /// When the measured phase began.
    pub start: Instant,
    /// When the clients were told to stop.
    pub stop: Instant,
    /// The wall clock when the measured phase began, for lining up shards.
    pub started: SystemTime,
    /// The signal that cut the measurement short.
    pub interrupted: Option<i32>,
    /// What else the machine did meanwhile.
    pub noise: Option<crate::noise::Noise>,
    /// What the measured phase cost the server, its processes and the disk.
    pub counters: Option<crate::counters::Counters>,
    /// The same for each `--log-interval` slice, in order.
    pub slices: Vec<crate::counters::Counters>,
}

/// Phase and sampling state; `tick` it whenever `next` has passed.
pub struct Coordinator<'a> {
    ctl: &'a Control,
    bar: &'a ProgressBar,
    duration: Option<Duration>,
    warm_end: Instant,
    /// When the next tick is due.
    pub next: Instant,
    start: Option<Instant>,
    started: Option<SystemTime>,
    stop: Option<Instant>,
    window: (Instant, u64),
    interrupted: Option<i32>,
    lines: Option<Lines<'a>>,
    /// The machine just before the measured phase, and just after it.
    machine: (Option<crate::noise::Sample>, Option<crate::noise::Sample>),
    /// What reads the counters, and its readings before and after the measured phase.
    probe: Option<&'a mut (dyn Sample + 'a)>,
    readings: (Option<Snapshot>, Option<Snapshot>),
    /// With `--log-interval`: the slices' length, and the readings at their ends.
    slice: Option<Duration>,
    slice_ends: Vec<Snapshot>,
}

impl<'a> Coordinator<'a> {
    /// Start the warm-up now, to end after `--warmup` or at `measure_at` (`--start-at`);
    /// `label` names the cell and repeat in `--progress` lines.
    pub fn new(
        ctl: &'a Control,
        s: &Settings,
        bar: &'a ProgressBar,
        label: &'a str,
        measure_at: Option<Instant>,
        probe: Option<&'a mut (dyn Sample + 'a)>,
    ) -> Coordinator<'a> {
        bar.set_message("warm-up");
        let now = Instant::now();
        let lines = match (s.progress, ctl.gauges.is_empty()) {
            (Some(every), false) => Some(Lines::new(every, label, bar, &ctl.gauges, now)),
            _ => None,
        };
        let mut c = Coordinator {
            ctl,
            bar,
            duration: s.driving.duration,
            warm_end: measure_at.unwrap_or(now + s.driving.warmup),
            next: now,
            start: None,
            started: None,
            stop: None,
            window: (now, 0),
            interrupted: None,
            lines,
            machine: (None, None),
            probe,
            readings: (None, None),
            slice: s.driving.log_interval,
            slice_ends: Vec::new(),
        };
        // No warm-up: measure from the first transaction of any client, not from the
        // first tick (other clients' threads may start before client 0 does).
        if c.warm_end <= now {
            c.begin(now);
        }
        c
    }

    fn begin(&mut self, now: Instant) {
        // Read at the end of the warm-up, so the reading costs the measurement nothing.
        let sliced = self.slice.is_some();
        self.readings.0 = self.probe.as_mut().map(|p| p.snapshot(sliced));
        if let Some(p) = self.probe.as_mut() {
            p.measuring(true);
        }
        self.machine.0 = crate::noise::sample();
        let now = if self.machine.0.is_some() || self.readings.0.is_some() { Instant::now() } else { now };
        let _ = self.ctl.measure_start.set(now);
        self.ctl.phase.store(MEASURE, Ordering::Release);
        self.start = Some(now);
        self.started = Some(SystemTime::now());
        self.window = (now, 0);
        if let Some(l) = self.lines.as_mut() {
            l.measure(now);
        }
    }

    /// Advance the phases and sample the counters.
    pub fn tick(&mut self, now: Instant) {
        self.next = now + TICK;
        if self.stop.is_some() {
            return;
        }
        let all_finished = self.ctl.finished.load(Ordering::Acquire) >= self.ctl.done.len() as u64;
        if let Some(sig) = signals::pending() {
            self.interrupted = Some(sig);
            return self.halt(now);
        }
        let Some(start) = self.start else {
            if now >= self.warm_end || all_finished {
                self.begin(now);
            } else {
                // A tick at the warm-up's end, not up to a tick later: shards line up.
                self.next = self.next.min(self.warm_end);
                if let Some(l) = self.lines.as_mut() {
                    l.tick(now);
                }
            }
            return;
        };
        // Before the stop below, so a line due at the end of the run is printed.
        if let Some(l) = self.lines.as_mut() {
            l.tick(now);
        }
        self.read_slice(start, now);
        let elapsed = now - start;
        let total = self.ctl.total();
        if now - self.window.0 >= Duration::from_millis(500) {
            let tps = (total - self.window.1) as f64 / (now - self.window.0).as_secs_f64();
            self.bar.set_message(format!("{tps:.0} tps"));
            self.window = (now, total);
        }
        match self.duration {
            Some(d) => {
                self.bar.set_position((elapsed.as_secs_f64() / d.as_secs_f64() * 1000.0) as u64);
                if elapsed >= d {
                    return self.halt(now);
                }
            }
            None => self.bar.set_position(total),
        }
        if all_finished {
            self.halt(now);
        }
    }

    /// Read the counters at the end of a `--log-interval` slice, once its end has passed.
    fn read_slice(&mut self, start: Instant, now: Instant) {
        let (Some(every), Some(p)) = (self.slice, self.probe.as_mut()) else { return };
        if self.readings.0.is_some() && now >= start + every * (self.slice_ends.len() as u32 + 1) {
            self.slice_ends.push(p.snapshot(true));
        }
    }

    fn halt(&mut self, now: Instant) {
        self.ctl.phase.store(STOP, Ordering::Release);
        let _ = self.ctl.measure_start.set(now);
        self.start.get_or_insert(now);
        self.stop = Some(now);
        if self.machine.0.is_some() {
            self.machine.1 = crate::noise::sample();
        }
        if let Some(p) = self.probe.as_mut() {
            p.measuring(false);
        }
        if self.readings.0.is_some() {
            let sliced = self.slice.is_some();
            self.readings.1 = self.probe.as_mut().map(|p| p.snapshot(sliced));
        }
    }

    /// Keep ticking on a timer until the clients are stopped (client 0 has left its loop;
    /// in a fiber, its worker's other clients go on meanwhile).
    pub fn finish(mut self) -> Measurement {
        while self.stop.is_none() {
            crate::fiber::sleep(self.next.saturating_duration_since(Instant::now()));
            self.tick(Instant::now());
        }
        let (start, stop) = (self.start.unwrap_or(self.warm_end), self.stop.unwrap_or(self.warm_end));
        let started = self.started.unwrap_or_else(SystemTime::now);
        let noise = match &self.machine {
            (Some(a), Some(b)) => Some(crate::noise::between(a, b)),
            _ => None,
        };
        let (counters, slices) = match (&self.probe, &self.readings) {
            (Some(p), (Some(a), Some(b))) => {
                let ends: Vec<&Snapshot> = std::iter::once(a).chain(&self.slice_ends).chain([b]).collect();
                let slices = if self.slice.is_some() {
                    ends.windows(2).map(|w| p.between(w[0], w[1])).collect()
                } else {
                    Vec::new()
                };
                (Some(p.between(a, b)), slices)
            }
            _ => (None, Vec::new()),
        };
        Measurement { start, stop, started, interrupted: self.interrupted, noise, counters, slices }
    }

    /// Stop everything at once (client 0 panicked).
    pub fn abort(&mut self) {
        self.halt(Instant::now());
    }
}
