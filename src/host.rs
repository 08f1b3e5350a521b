//! Facts about the machine, recorded with every result: numbers mean little without them.

use serde::{Deserialize, Serialize};

/// The machine a run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    /// Logical CPUs available to dbrace.
    pub cpus: usize,
    /// CPU model name.
    pub cpu_model: String,
    /// Total memory in bytes.
    pub memory_bytes: u64,
    /// Kernel release.
    pub kernel: String,
    /// Operating system name.
    pub os: String,
}

impl Host {
    /// Read the host facts from /proc and /etc.
    pub fn detect() -> Host {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let field = |text: &str, key: &str| {
            text.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_once([':', '=']))
                .map(|(_, v)| v.trim().trim_matches('"').to_string())
                .unwrap_or_default()
        };
        let meminfo = read("/proc/meminfo");
        let mem_kb: u64 =
            field(&meminfo, "MemTotal").split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0);
        Host {
            cpus: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            cpu_model: field(&read("/proc/cpuinfo"), "model name"),
            memory_bytes: mem_kb * 1024,
            kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
            os: field(&read("/etc/os-release"), "PRETTY_NAME"),
        }
    }
}
