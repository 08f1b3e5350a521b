//! A platform that makes no RAM disk: Linux has tmpfs at /dev/shm already, Windows none
//! that dbrace could make without a driver.

use std::io;
use std::path::Path;

/// Whether dbrace makes a RAM disk itself when no `--ram-dir` is given.
pub const MAKES_RAM_DISK: bool = false;

/// Never made on this platform.
pub enum RamDisk {}

impl RamDisk {
    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        match *self {}
    }
}

/// None: this platform makes no RAM disk.
pub fn make_ram_disk(_bytes: u64) -> io::Result<Option<RamDisk>> {
    Ok(None)
}

/// Nothing to remove.
pub fn reap_ram_disks() -> Vec<String> {
    Vec::new()
}
