//! CPU time of the calling thread, for client CPU per transaction.

pub use crate::platform::values::ThreadCpu;
use std::time::Duration;

/// The CPU time the calling thread has used so far, and its kernel part where the OS
/// splits a thread's (Linux).
pub fn thread() -> ThreadCpu {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills a timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return ThreadCpu { total: Duration::ZERO, system: None };
    }
    ThreadCpu { total: Duration::new(t.tv_sec as u64, t.tv_nsec as u32), system: thread_system() }
}

/// The kernel's part of the calling thread's CPU time: its own rusage.
#[cfg(target_os = "linux")]
fn thread_system() -> Option<Duration> {
    // SAFETY: an all-zero rusage is valid; getrusage fills the one we own.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut r) } != 0 {
        return None;
    }
    Some(Duration::new(r.ru_stime.tv_sec as u64, r.ru_stime.tv_usec as u32 * 1000))
}

/// macOS keeps no per-thread rusage (its thread_info would do): not split here.
#[cfg(not(target_os = "linux"))]
fn thread_system() -> Option<Duration> {
    None
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
