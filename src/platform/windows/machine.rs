//! The whole machine's CPU time: not read on Windows, so the noise of a repeat is not
//! available here rather than a zero that would look measured.

/// The machine's CPU time, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    /// All of it.
    pub total: u64,
    /// Idle, waiting for I/O.
    pub iowait: u64,
    /// Taken by the hypervisor for others.
    pub steal: u64,
}

/// Not available on this platform.
pub fn cpu_times() -> Option<CpuTimes> {
    None
}
