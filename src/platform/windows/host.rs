//! The host's facts: memory from GlobalMemoryStatusEx, the CPU as Windows names it to
//! every process.

use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};

/// Total memory in bytes.
pub fn memory_bytes() -> u64 {
    // SAFETY: a zeroed MEMORYSTATUSEX with its length set is what the call asks for.
    let mut m: MEMORYSTATUSEX = unsafe { std::mem::zeroed() };
    m.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
    if unsafe { GlobalMemoryStatusEx(&mut m) } == 0 { 0 } else { m.ullTotalPhys }
}

/// The CPU's name, as Windows gives it in the environment.
pub fn cpu_model() -> String {
    std::env::var("PROCESSOR_IDENTIFIER").unwrap_or_default()
}

/// The kernel's release: not read on this platform.
pub fn kernel() -> String {
    String::new()
}

/// The operating system's name.
pub fn os_name() -> String {
    "Windows".into()
}

/// Whether Docker's daemon, and every container, runs in a VM of its own (Docker Desktop,
/// WSL2), whose host network and disk are not this machine's: on Windows it does.
pub const DOCKER_IN_A_VM: bool = true;

/// The figures dbrace records elsewhere that this platform cannot give.
pub const NOT_AVAILABLE: &[&str] = &[
    "server CPU per process",
    "disk device counters",
    "steal and other processes' CPU (noise)",
    "time waiting for a CPU",
];
