//! `--progress` lines (pgbench's `-P`): every N seconds one line per running cell on
//! stderr, drawn by the coordinator from the clients' gauges between client 0's
//! transactions. Windows count from the warm-up's start, then again from the measured
//! phase's start (so measured lines line up with `--log-interval` slices); a warm-up
//! window cut short by the measurement is dropped.

use super::gauge::{Gauge, Snapshot, Window};
use indicatif::ProgressBar;
use std::time::{Duration, Instant};

/// The progress-line state of one cell repeat.
pub struct Lines<'a> {
    every: Duration,
    label: &'a str,
    bar: &'a ProgressBar,
    gauges: &'a [Gauge],
    warm_up: bool,
    phase_start: Instant,
    window_start: Instant,
    due: Instant,
    before: Snapshot,
    now: Snapshot,
}

impl<'a> Lines<'a> {
    /// Lines every `every` for the clients of `gauges`, warm-up starting `now`.
    pub fn new(every: Duration, label: &'a str, bar: &'a ProgressBar, gauges: &'a [Gauge], now: Instant) -> Self {
        let mut lines = Lines {
            every,
            label,
            bar,
            gauges,
            warm_up: true,
            phase_start: now,
            window_start: now,
            due: now + every,
            before: Snapshot::default(),
            now: Snapshot::default(),
        };
        lines.before.take(gauges);
        lines
    }

    /// The measured phase began at `now`: windows count from here.
    pub fn measure(&mut self, now: Instant) {
        self.warm_up = false;
        self.phase_start = now;
        self.window_start = now;
        self.due = now + self.every;
        self.before.take(self.gauges);
    }

    /// Print a line if one is due.
    pub fn tick(&mut self, now: Instant) {
        if now < self.due {
            return;
        }
        self.now.take(self.gauges);
        let w = self.now.since(&self.before);
        let line = format(self.label, self.warm_up, now - self.phase_start, now - self.window_start, &w);
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
        std::mem::swap(&mut self.before, &mut self.now);
        self.window_start = now;
        // Keep the cadence: a late tick does not push every later line back.
        while self.due <= now {
            self.due += self.every;
        }
    }
}

/// One line: `progress: CELL #R [warm-up ]ELAPSED s: TPS tps, lat avg A ms, p95 P ms, E errors`.
pub fn format(label: &str, warm_up: bool, elapsed: Duration, window: Duration, w: &Window) -> String {
    let tps = w.committed as f64 / window.as_secs_f64().max(1e-9);
    format!(
        "progress: {label} {}{:.1} s: {tps:.1} tps, lat avg {} ms, p95 {} ms, {} error{}",
        if warm_up { "warm-up " } else { "" },
        elapsed.as_secs_f64(),
        ms(w.avg_ms),
        ms(w.p95_ms),
        w.errors,
        if w.errors == 1 { "" } else { "s" }
    )
}

/// Milliseconds to three decimals as pgbench prints them, or three significant digits
/// below a millisecond, so microsecond latencies (the memory engine) do not read as 0.
fn ms(v: f64) -> String {
    let decimals = if v > 0.0 { (2 - v.log10().floor() as i32).clamp(3, 6) as usize } else { 3 };
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_the_cell_phase_and_window() {
        let w = Window { committed: 1500, errors: 1, avg_ms: 0.6666, p95_ms: 1.25 };
        let s = Duration::from_secs_f64;
        assert_eq!(
            format("sqlite/disk/tpcb/c1 #2", false, s(3.004), s(1.5), &w),
            "progress: sqlite/disk/tpcb/c1 #2 3.0 s: 1000.0 tps, lat avg 0.667 ms, p95 1.250 ms, 1 error"
        );
        let idle = Window { committed: 0, errors: 0, avg_ms: 0.0, p95_ms: 0.0 };
        assert!(format("c #1", true, s(1.0), s(1.0), &idle).starts_with("progress: c #1 warm-up 1.0 s: 0.0 tps,"));
        assert_eq!(
            (ms(12.34567), ms(0.0123456), ms(0.00098765), ms(0.0)),
            ("12.346".into(), "0.0123".into(), "0.000988".into(), "0.000".into())
        );
    }
}
