//! The RAM disk dbrace makes for the ram location when no `--ram-dir` is given: made with
//! hdiutil and diskutil (the commands in platform/ram_disk.rs), removed when dropped, and
//! a killed run's removed by the next run or `dbrace clean`.

use crate::platform::ram_disk;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether dbrace makes a RAM disk itself when no `--ram-dir` is given.
pub const MAKES_RAM_DISK: bool = true;

/// A mounted RAM disk of this process, detached (its memory freed) when dropped.
pub struct RamDisk {
    device: String,
    path: PathBuf,
}

impl RamDisk {
    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RamDisk {
    fn drop(&mut self) {
        detach(&self.device);
    }
}

/// A RAM disk of at least `bytes`, formatted HFS+ and mounted at /Volumes/dbrace-ram-PID.
pub fn make_ram_disk(bytes: u64) -> io::Result<Option<RamDisk>> {
    let out = run("hdiutil", &ram_disk::attach_args(bytes))?;
    let device = ram_disk::attached_device(&out)
        .ok_or_else(|| io::Error::other(format!("hdiutil attach named no device: {}", out.trim())))?;
    // Owned from here: a failure below detaches it.
    let mut disk = RamDisk { device, path: PathBuf::new() };
    let name = ram_disk::volume_name(std::process::id());
    let out = run("diskutil", &ram_disk::erase_args(&name, &disk.device))?;
    disk.path = ram_disk::mounted_at(&out, &name)
        .filter(|p| p.is_dir())
        .ok_or_else(|| io::Error::other(format!("diskutil erasevolume did not mount {name}: {}", out.trim())))?;
    Ok(Some(disk))
}

/// Detach the RAM disks killed runs left (their pid gone); what was removed, in words.
pub fn reap_ram_disks() -> Vec<String> {
    let Ok(info) = run("hdiutil", &["info".to_string()]) else { return Vec::new() };
    ram_disk::ours(&info)
        .into_iter()
        .filter(|(_, pid)| !crate::platform::process::alive(*pid))
        .map(|(device, pid)| {
            detach(&device);
            format!("the RAM disk {device} of killed run {pid}")
        })
        .collect()
}

/// Detach `device`, forced when a process still holds a file on it.
fn detach(device: &str) {
    if run("hdiutil", &ram_disk::detach_args(device, false)).is_err() {
        let _ = run("hdiutil", &ram_disk::detach_args(device, true));
    }
}

/// Run `program` with `args`; its stdout, or an error with its stderr.
fn run(program: &str, args: &[String]) -> io::Result<String> {
    let out = Command::new(program).args(args).output()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(io::Error::other(format!("{program} {}: {}", args.join(" "), err.trim())));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
