//! CPU time of the calling thread, for client CPU per transaction.

pub use crate::platform::values::ThreadCpu;
use std::time::Duration;
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::Threading::{GetCurrentThread, GetThreadTimes};

/// The CPU time the calling thread has used so far, and its kernel part.
pub fn thread() -> ThreadCpu {
    let zero = || FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero(), zero(), zero(), zero());
    // SAFETY: the pseudo-handle of this thread and four FILETIMEs we own.
    if unsafe { GetThreadTimes(GetCurrentThread(), &mut created, &mut exited, &mut kernel, &mut user) } == 0 {
        return ThreadCpu { total: Duration::ZERO, system: None };
    }
    let system = super::duration(kernel);
    ThreadCpu { total: system + super::duration(user), system: Some(system) }
}

/// The monotonic clock perf stamps samples with: no perf here.
pub fn monotonic_s() -> Option<f64> {
    None
}
