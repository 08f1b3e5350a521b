//! CPU time of the calling thread, for client CPU per transaction.

pub use crate::platform::cpu::ThreadCpu;

/// The CPU time the calling thread has used so far, and its kernel part where the
/// platform splits it.
pub fn thread_cpu() -> ThreadCpu {
    crate::platform::cpu::thread()
}
