//! Other processes: the figures dbrace reads of managed servers' processes, which run on
//! Linux and macOS only; here a process is asked whether it has exited, and the rest is
//! not available on this platform.

use super::Process;
use std::collections::HashMap;
use windows_sys::Win32::Foundation::STILL_ACTIVE;
use windows_sys::Win32::System::Threading::{GetExitCodeProcess, PROCESS_QUERY_LIMITED_INFORMATION};

pub use crate::platform::values::{Stat, Waits};

/// Not available on this platform.
pub fn stat(_: u32) -> Option<Stat> {
    None
}

/// Not available on this platform: no process is listed.
pub fn all() -> HashMap<u32, Stat> {
    HashMap::new()
}

/// Whether `pid` is the system's own (System Idle and System are 0 and 4).
pub fn kernel_thread(pid: u32, _parent: u32) -> bool {
    pid == 0 || pid == 4
}

/// Whether `pid` has exited or is not there.
pub fn exited(pid: u32) -> bool {
    let Some(p) = Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION) else { return true };
    let mut code = 0u32;
    // SAFETY: an open handle and a u32 we own.
    unsafe { GetExitCodeProcess(p.0, &mut code) == 0 || code != STILL_ACTIVE as u32 }
}

/// Not available on this platform.
pub fn start_time(_: u32) -> Option<u64> {
    None
}

/// Windows has no pid namespaces: every recorded pid is this machine's.
pub fn pid_namespace(_: Option<u32>) -> Option<u64> {
    Some(0)
}

/// Not read on this platform.
pub fn command_line(_: u32) -> Vec<u8> {
    Vec::new()
}

/// Not read on this platform: no process is taken for a program's.
pub fn named(_: u32, _: &str) -> bool {
    false
}

/// No control groups on Windows.
pub fn in_cgroup(_: u32, _: &str) -> bool {
    false
}

/// Not available on this platform.
pub fn waits(_: u32) -> Waits {
    Waits::default()
}

/// Not available on this platform.
pub fn io(_: u32) -> Option<(f64, f64)> {
    None
}
