//! CPU time of the calling thread, for client CPU per transaction.

use std::time::Duration;
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::Threading::{GetCurrentThread, GetThreadTimes};

/// User + kernel CPU time consumed by the calling thread so far.
pub fn thread() -> Duration {
    let zero = || FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero(), zero(), zero(), zero());
    // SAFETY: the pseudo-handle of this thread and four FILETIMEs we own.
    if unsafe { GetThreadTimes(GetCurrentThread(), &mut created, &mut exited, &mut kernel, &mut user) } == 0 {
        return Duration::ZERO;
    }
    super::duration(kernel) + super::duration(user)
}

/// The monotonic clock perf stamps samples with: no perf here.
pub fn monotonic_s() -> Option<f64> {
    None
}
