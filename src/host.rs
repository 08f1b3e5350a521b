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
    /// The figures this platform cannot give, which the results then leave out rather
    /// than show as zeros (none on Linux).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_available: Vec<String>,
}

impl Host {
    /// Read the host facts the platform gives.
    pub fn detect() -> Host {
        use crate::platform::host;
        Host {
            cpus: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            cpu_model: host::cpu_model(),
            memory_bytes: host::memory_bytes(),
            kernel: host::kernel(),
            os: host::os_name(),
            not_available: host::NOT_AVAILABLE.iter().map(|s| s.to_string()).collect(),
        }
    }
}
