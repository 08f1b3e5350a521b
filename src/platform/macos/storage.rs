//! Filesystems on macOS: their type name from statfs, free space, and flushing. A RAM
//! location is one the user gives with `--ram-dir` (a RAM disk); none is made here yet.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What a directory is stored on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filesystem {
    /// Its type (apfs, hfs, …).
    pub name: String,
    /// Whether it keeps its files in RAM; None where its kind cannot tell.
    pub ram: Option<bool>,
    /// Whether its pages may be swapped.
    pub swappable: bool,
    /// Free space in bytes.
    pub free_bytes: u64,
}

/// The filesystem `path` is on.
pub fn filesystem(path: &Path) -> io::Result<Filesystem> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: statfs writes into a zeroed struct we own; the path is NUL-terminated.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut s) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let name = super::c_text(&s.f_fstypename);
    // A RAM disk (hdiutil's ram://) is formatted HFS+ or APFS like a disk: its type does
    // not tell, so a location is taken as the user names it.
    Ok(Filesystem { name, ram: None, swappable: false, free_bytes: s.f_bavail * u64::from(s.f_bsize) })
}

/// No RAM location of its own yet: `--ram-dir` names one.
pub fn default_ram_dir() -> Option<PathBuf> {
    None
}

/// A RAM directory to suggest, for a message.
pub const RAM_HINT: &str = "a RAM disk's directory";

/// Write back what is dirty (sync: macOS has no per-filesystem sync).
pub fn flush(_: &Path) {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
}

/// macOS swaps to its own files, not a device a tmpfs shares: nothing to warn of.
pub fn disk_swap_bytes() -> Option<u64> {
    None
}
