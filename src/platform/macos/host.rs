//! The host's facts, from sysctl.

use super::sysctl;

fn text(name: &str) -> String {
    sysctl(name).map(|b| String::from_utf8_lossy(&b).trim_end_matches('\0').trim().to_string()).unwrap_or_default()
}

/// Total memory in bytes.
pub fn memory_bytes() -> u64 {
    sysctl("hw.memsize").and_then(|b| Some(u64::from_ne_bytes(b.get(..8)?.try_into().ok()?))).unwrap_or(0)
}

/// The CPU's model name.
pub fn cpu_model() -> String {
    text("machdep.cpu.brand_string")
}

/// The kernel's release (Darwin's).
pub fn kernel() -> String {
    text("kern.osrelease")
}

/// The operating system's name and version.
pub fn os_name() -> String {
    format!("macOS {}", text("kern.osproductversion"))
}

/// Whether Docker's daemon, and every container, runs in a VM of its own (Docker Desktop),
/// whose host network and disk are not this machine's: on macOS it does.
pub const DOCKER_IN_A_VM: bool = true;

/// The figures dbrace records elsewhere that this platform cannot give.
pub const NOT_AVAILABLE: &[&str] =
    &["disk device counters", "steal and other processes' CPU (noise)", "time waiting for a CPU"];
