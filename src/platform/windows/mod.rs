//! Windows: the Win32 calls for processes, threads' CPU, memory and volumes. dbrace runs
//! the embedded engine and `--url` servers here; managed servers are Linux's and macOS's
//! (WSL2 runs them), so the facts only they need are `None` or empty.

pub mod cpu;
pub mod files;
pub mod host;
pub mod packages;
pub mod process;
pub mod procs;
pub mod signal;
pub mod socket;
pub mod storage;
pub mod timer;
pub mod user;

use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE};

/// A FILETIME's count of 100-nanosecond intervals as a duration.
fn duration(t: FILETIME) -> std::time::Duration {
    let ticks = (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    std::time::Duration::from_nanos(ticks.saturating_mul(100))
}

/// A process handle, closed when dropped.
struct Process(HANDLE);

impl Process {
    /// The process `pid`, opened for `access`.
    fn open(pid: u32, access: u32) -> Option<Process> {
        // SAFETY: OpenProcess returns a handle we own, or null.
        let h = unsafe { windows_sys::Win32::System::Threading::OpenProcess(access, 0, pid) };
        (!h.is_null()).then_some(Process(h))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: the handle is open and ours.
        unsafe { CloseHandle(self.0) };
    }
}

/// `path` as a NUL-terminated wide string.
fn wide(path: &std::path::Path) -> Vec<u16> {
    use std::os::windows::ffi::OsStrExt;
    path.as_os_str().encode_wide().chain([0]).collect()
}

/// A NUL-terminated wide buffer's text.
fn from_wide(buf: &[u16]) -> String {
    String::from_utf16_lossy(&buf[..buf.iter().position(|&c| c == 0).unwrap_or(buf.len())])
}
