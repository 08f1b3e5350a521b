//! CPU time of the calling thread, for client CPU per transaction.

use std::time::Duration;

/// User + system CPU time consumed by the calling thread so far.
pub fn thread() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills a timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The monotonic clock now, in seconds: the clock perf's `-k monotonic` stamps samples with.
pub fn monotonic_s() -> Option<f64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills a timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) } != 0 {
        return None;
    }
    Some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}
