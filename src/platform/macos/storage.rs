//! Filesystems on macOS: their type name from statfs, free space, and flushing. The RAM
//! location is a RAM disk dbrace makes (ram_disk.rs), or the user's `--ram-dir`.

pub use super::ram_disk::{MAKES_RAM_DISK, RamDisk, make_ram_disk, reap_ram_disks};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub use crate::platform::values::Filesystem;

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

/// No standing RAM location: a RAM disk is made per run (`make_ram_disk`).
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

/// Whether the sync an engine calls flushes the drive's volatile cache: on macOS fsync()
/// does not (Apple's fsync(2)); only fcntl(F_FULLFSYNC) does.
pub const SYNC_FLUSHES_DRIVE: bool = false;

/// The sync most engines call at commit, timed by the fsync probe: plain fsync(), which
/// std's sync_data would not give (it calls F_FULLFSYNC here).
pub fn sync(f: &std::fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: fsync on a descriptor the File owns.
    if unsafe { libc::fsync(f.as_raw_fd()) } != 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// fcntl(F_FULLFSYNC): the sync that empties the drive's cache, as PostgreSQL's
/// fsync_writethrough, SQLite's fullfsync, Redis and WiredTiger call it.
pub fn drive_flush(f: &std::fs::File) -> Option<io::Result<()>> {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a descriptor the File owns; F_FULLFSYNC takes no argument.
    let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_FULLFSYNC) };
    Some(if r == -1 { Err(io::Error::last_os_error()) } else { Ok(()) })
}
