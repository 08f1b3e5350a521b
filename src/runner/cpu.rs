//! CPU time of the calling thread, for client CPU per transaction.

use std::time::Duration;

/// User + system CPU time consumed by the calling thread so far.
pub fn thread_cpu() -> Duration {
    crate::platform::cpu::thread()
}
