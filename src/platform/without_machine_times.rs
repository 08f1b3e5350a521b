//! A platform that counts no steal and no I/O wait for the whole machine (macOS,
//! Windows): the noise of a repeat is not available, rather than a zero that would look
//! measured.

pub use super::values::CpuTimes;

/// Not available on this platform.
pub fn cpu_times() -> Option<CpuTimes> {
    None
}
