//! Volumes on Windows: the filesystem's name and free space of the volume a path is on.
//! No RAM location of its own (a RAM disk's drive is given with `--ram-dir`), and no
//! flushing a whole volume, which Windows allows an administrator alone.

use super::{from_wide, wide};
pub use crate::platform::without_ram_disk::{MAKES_RAM_DISK, RamDisk, make_ram_disk, reap_ram_disks};
use std::io;
use std::path::{Path, PathBuf};
use windows_sys::Win32::Storage::FileSystem::{GetDiskFreeSpaceExW, GetVolumeInformationW, GetVolumePathNameW};

pub use crate::platform::values::Filesystem;

/// The filesystem `path` is on.
pub fn filesystem(path: &Path) -> io::Result<Filesystem> {
    let p = wide(path);
    let mut root = [0u16; 261];
    let mut name = [0u16; 64];
    let (mut free, mut total, mut all_free) = (0u64, 0u64, 0u64);
    // SAFETY: NUL-terminated input, buffers of the lengths given, out-parameters we own.
    let ok = unsafe {
        GetVolumePathNameW(p.as_ptr(), root.as_mut_ptr(), root.len() as u32) != 0
            && GetVolumeInformationW(
                root.as_ptr(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                name.as_mut_ptr(),
                name.len() as u32,
            ) != 0
            && GetDiskFreeSpaceExW(p.as_ptr(), &mut free, &mut total, &mut all_free) != 0
    };
    if !ok {
        return Err(io::Error::last_os_error());
    }
    // A RAM disk's volume is formatted NTFS or FAT like a disk: its type does not tell.
    Ok(Filesystem { name: from_wide(&name), ram: None, swappable: false, free_bytes: free })
}

/// No RAM location of its own: `--ram-dir` names one.
pub fn default_ram_dir() -> Option<PathBuf> {
    None
}

/// A RAM directory to suggest, for a message.
pub const RAM_HINT: &str = "a RAM disk's directory";

/// Nothing: flushing a volume is an administrator's; each engine's own flushes stand.
pub fn flush(_: &Path) {}

/// Windows swaps to its page file, not a device a RAM location shares: nothing to warn of.
pub fn disk_swap_bytes() -> Option<u64> {
    None
}

/// Whether the sync an engine calls (FlushFileBuffers) also flushes the drive's cache:
/// it does, unless the drive's write cache is set to ignore flushes.
pub const SYNC_FLUSHES_DRIVE: bool = true;

/// The sync engines call at commit, timed by the fsync probe: FlushFileBuffers.
pub fn sync(f: &std::fs::File) -> io::Result<()> {
    f.sync_data()
}

/// None: `sync` flushes the drive already.
pub fn drive_flush(_: &std::fs::File) -> Option<io::Result<()>> {
    None
}
