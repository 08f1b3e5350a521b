//! The host's facts, from /proc and /etc/os-release.

/// A `key: value` or `key=value` line's value in `text`.
fn field(text: &str, key: &str) -> String {
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once([':', '=']))
        .map(|(_, v)| v.trim().trim_matches('"').to_string())
        .unwrap_or_default()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Total memory in bytes.
pub fn memory_bytes() -> u64 {
    let kb = field(&read("/proc/meminfo"), "MemTotal").split_whitespace().next().and_then(|v| v.parse().ok());
    kb.unwrap_or(0) * 1024
}

/// The CPU's model name.
pub fn cpu_model() -> String {
    field(&read("/proc/cpuinfo"), "model name")
}

/// The kernel's release.
pub fn kernel() -> String {
    read("/proc/sys/kernel/osrelease").trim().to_string()
}

/// The operating system's name and version.
pub fn os_name() -> String {
    field(&read("/etc/os-release"), "PRETTY_NAME")
}

/// Whether Docker's daemon, and every container, runs in a VM of its own (Docker Desktop),
/// whose host network and disk are not this machine's: on Linux it runs here.
pub const DOCKER_IN_A_VM: bool = false;

/// The figures dbrace records elsewhere that this platform cannot give.
pub const NOT_AVAILABLE: &[&str] = &[];
