//! Filesystems on Linux: their kind by statfs's magic number, RAM-backed or not, free
//! space, swap that may move a tmpfs's pages to disk, syncfs, and /dev/shm for RAM.

pub use crate::platform::without_ram_disk::{MAKES_RAM_DISK, RamDisk, make_ram_disk, reap_ram_disks};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

pub use crate::platform::values::Filesystem;

/// The filesystem `path` is on.
pub fn filesystem(path: &Path) -> io::Result<Filesystem> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: statfs writes into a zeroed struct we own; the path is NUL-terminated.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut s) } != 0 {
        return Err(io::Error::last_os_error());
    }
    #[allow(clippy::unnecessary_cast)]
    let (magic, free_bytes) = (s.f_type as i64, s.f_bavail as u64 * s.f_bsize as u64);
    Ok(Filesystem {
        name: fs_name(magic),
        ram: Some(magic == TMPFS_MAGIC || magic == RAMFS_MAGIC),
        swappable: magic == TMPFS_MAGIC,
        free_bytes,
    })
}

fn fs_name(magic: i64) -> String {
    match magic {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        TMPFS_MAGIC => "tmpfs",
        RAMFS_MAGIC => "ramfs",
        0x794C_7630 => "overlayfs",
        0x2FC1_2FC1 => "zfs",
        0xF2F5_2010 => "f2fs",
        0x6969 => "nfs",
        0x6573_5546 => "fuse",
        0x0102_1997 => "9p",
        0x4d44 => "vfat",
        0x5346_544e => "ntfs",
        _ => return format!("fs-{magic:#x}"),
    }
    .to_string()
}

/// Where `ram` profiles keep data unless `--ram-dir` says otherwise.
pub fn default_ram_dir() -> Option<PathBuf> {
    Some(PathBuf::from("/dev/shm/dbrace"))
}

/// A RAM directory to suggest, for a message.
pub const RAM_HINT: &str = "a tmpfs directory (e.g. under /dev/shm)";

/// Write back what is dirty on `dir`'s filesystem (syncfs).
pub fn flush(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        // SAFETY: syncfs takes an open descriptor, which `d` owns until it drops.
        unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&d)) };
    }
}

/// Swap on disk that may take a swappable RAM location's pages, if the machine has any.
pub fn disk_swap_bytes() -> Option<u64> {
    let swaps = std::fs::read_to_string("/proc/swaps").ok()?;
    Some(swap_bytes(&swaps)).filter(|&b| b > 0)
}

/// The bytes of swap in use as /proc/swaps lists it (its sizes are KiB), leaving out zram
/// devices, which swap to compressed RAM.
pub fn swap_bytes(proc_swaps: &str) -> u64 {
    proc_swaps
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (name, size) = (fields.first()?, fields.get(2)?.parse::<u64>().ok()?);
            (!name.starts_with("/dev/zram")).then_some(size * 1024)
        })
        .sum()
}

/// Whether the sync an engine calls (fsync, fdatasync) also flushes the drive's volatile
/// cache: on Linux it does, where the drive has one and barriers are on.
pub const SYNC_FLUSHES_DRIVE: bool = true;

/// The sync most engines call at commit, timed by the fsync probe: fdatasync.
pub fn sync(f: &std::fs::File) -> io::Result<()> {
    f.sync_data()
}

/// None: `sync` flushes the drive already.
pub fn drive_flush(_: &std::fs::File) -> Option<io::Result<()>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_shm_is_swappable_ram() {
        let fs = filesystem(Path::new("/dev/shm")).unwrap();
        assert!(fs.ram == Some(true) && fs.swappable && fs.name == "tmpfs", "{fs:?}");
        assert_eq!(filesystem(&std::env::current_dir().unwrap()).unwrap().ram, Some(false));
    }

    #[test]
    fn swap_on_disk_is_counted_and_zram_is_not() {
        let swaps = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                     /swapfile                               file\t\t2097148\t\t0\t\t-2\n\
                     /dev/zram0                              partition\t4194300\t\t0\t\t100\n\
                     /dev/sda3                               partition\t1048572\t\t512\t\t-3\n";
        assert_eq!(swap_bytes(swaps), (2_097_148 + 1_048_572) * 1024);
        assert_eq!(swap_bytes("Filename\tType\tSize\tUsed\tPriority\n"), 0);
        assert_eq!(swap_bytes(""), 0);
    }
}
