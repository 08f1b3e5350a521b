//! `--start-at`: wait, clients connected, until the warm-up must begin, so the measured
//! phase starts at the given moment in every process that was given it.

use crate::error::Result;
use crate::signals;
use indicatif::ProgressBar;
use std::time::{Duration, Instant, SystemTime};

/// The longest sleep before the signals are looked at again.
const SLICE: Duration = Duration::from_millis(50);

/// Sleep until `warmup` before `at` (a shorter warm-up if less time is left) and return
/// the instant the measured phase must begin; fail when `at` has passed already.
pub fn wait_for(at: SystemTime, warmup: Duration, bar: &ProgressBar) -> Result<Instant> {
    let left = at.duration_since(SystemTime::now()).map_err(|late| {
        failed!(
            "the measured phase was due at {} (--start-at), {:.1} s before this process was ready for it; give a later --start-at",
            humantime::format_rfc3339_millis(at),
            late.duration().as_secs_f64()
        )
    })?;
    // The wall clock is read once: from here on the monotonic clock counts, so a clock
    // step cannot move the start.
    let start = Instant::now() + left;
    bar.set_message("waiting for --start-at");
    while let Some(idle) = start.checked_duration_since(Instant::now()).and_then(|d| d.checked_sub(warmup)) {
        signals::check()?;
        if idle.is_zero() {
            break;
        }
        std::thread::sleep(idle.min(SLICE));
    }
    Ok(start)
}
