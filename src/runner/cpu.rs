//! CPU time of the calling thread, for client CPU per transaction.

use std::time::Duration;

/// User + system CPU time consumed by the calling thread so far.
pub fn thread_cpu() -> Duration {
    // SAFETY: getrusage fills a zeroed struct we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}
