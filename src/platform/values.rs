//! The values every OS's modules give in the same shape: a filesystem's facts, the
//! machine's CPU times, a process's CPU and waits, how a reaped process ended. Defined
//! once, here.

use std::time::Duration;

/// What a directory is stored on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filesystem {
    /// Its type (ext4, tmpfs, apfs, NTFS, …).
    pub name: String,
    /// Whether it keeps its files in RAM; None where its kind cannot tell (a RAM disk is
    /// formatted like a disk on macOS and Windows).
    pub ram: Option<bool>,
    /// Whether its pages may be swapped (tmpfs; ramfs never is).
    pub swappable: bool,
    /// Free space in bytes.
    pub free_bytes: u64,
}

/// The machine's CPU time since boot, in ticks; only ratios of two samples mean anything.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    /// All of it: user, nice, system, idle, iowait, irq, softirq, steal.
    pub total: u64,
    /// Idle, waiting for I/O.
    pub iowait: u64,
    /// Taken by the hypervisor for others.
    pub steal: u64,
}

/// How a reaped process ended, and the CPU it (and, on unix, the children it waited for)
/// used.
#[derive(Clone, Copy, Debug)]
pub struct Reaped {
    /// Its exit code, or the signal that ended it (`Err`; never on Windows).
    pub ending: Result<i32, i32>,
    /// User CPU.
    pub user: Duration,
    /// System (kernel) CPU.
    pub system: Duration,
}

/// A thread's CPU time, and the kernel's part of it where the OS splits it per thread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThreadCpu {
    /// User + system.
    pub total: Duration,
    /// The system (kernel) part; None where the platform does not split a thread's time.
    pub system: Option<Duration>,
}

impl ThreadCpu {
    /// None used yet.
    pub const ZERO: ThreadCpu = ThreadCpu { total: Duration::ZERO, system: Some(Duration::ZERO) };

    /// What was used since `start`; the kernel's part never more than the whole (the two
    /// come from different clocks).
    pub fn since(self, start: ThreadCpu) -> ThreadCpu {
        let total = self.total.saturating_sub(start.total);
        let system = self.system.zip(start.system).map(|(now, then)| now.saturating_sub(then).min(total));
        ThreadCpu { total, system }
    }
}

impl std::ops::Add for ThreadCpu {
    type Output = ThreadCpu;

    fn add(self, other: ThreadCpu) -> ThreadCpu {
        ThreadCpu { total: self.total + other.total, system: self.system.zip(other.system).map(|(a, b)| a + b) }
    }
}

/// One process's parent and CPU time.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    /// Its parent's pid.
    pub parent: u32,
    /// User + system CPU seconds of the process itself.
    pub cpu_s: f64,
    /// The system (kernel) part of `cpu_s`.
    pub system_cpu_s: f64,
    /// User + system CPU seconds of its children it has waited for.
    pub children_cpu_s: f64,
    /// The system part of `children_cpu_s`.
    pub children_system_cpu_s: f64,
}

/// What a process's threads alive now have waited for, in seconds; None where the OS
/// does not count it (or, on Linux, its delay accounting is off).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Waits {
    /// Ready to run, waiting for a CPU.
    pub cpu_s: Option<f64>,
    /// Off the CPU, waiting for storage: reads, and the writes and flushes an fsync waits
    /// for.
    pub io_s: Option<f64>,
}
