//! Disk and RAM locations, checked to be what they claim: a "disk" on tmpfs would make
//! the comparison silently false.

use crate::error::Result;
use crate::instance::fsync_probe::{self, FsyncProbe};
use crate::platform::storage;
use crate::profile::LocationKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A checked place where instances keep their data.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Location {
    /// disk or ram.
    pub kind: LocationKind,
    /// The directory dbrace creates instance data dirs in.
    pub path: PathBuf,
    /// The filesystem type (ext4, xfs, tmpfs, …).
    pub fs_type: String,
    /// Free space in bytes when checked.
    pub free_bytes: u64,
    /// Measured fsync (fdatasync) latency, when probed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<FsyncProbe>,
    /// A tmpfs ram location on a machine with swap on a device other than RAM (zram):
    /// the bytes of that swap, where the kernel may move the location's pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap_bytes: Option<u64>,
}

impl Location {
    /// What is wrong with this location, in one line, when something is: a tmpfs ram
    /// location that may be swapped out to disk.
    pub fn warning(&self) -> Option<String> {
        let swap = self.swap_bytes?;
        Some(format!(
            "the {} location {} is tmpfs, and this machine swaps to disk ({:.1} GiB): the kernel may move its pages there, so {} cells may run partly at disk speed (swapoff, or a ramfs --ram-dir, keeps them in RAM)",
            self.kind,
            self.path.display(),
            swap as f64 / (1u64 << 30) as f64,
            self.kind
        ))
    }
}

/// The disk and RAM locations of a run.
#[derive(Clone)]
pub struct Locations {
    /// Where `disk` profiles keep data.
    pub disk: Location,
    /// Where `ram` profiles keep data; None where this platform has no RAM location of its
    /// own and `--ram-dir` gave none.
    pub ram: Option<Location>,
    /// The RAM disk made for the ram location, removed when the last copy goes.
    _made: Option<std::sync::Arc<storage::RamDisk>>,
}

impl Locations {
    /// The location for a profile's location kind; refused for ram where there is none.
    pub fn get(&self, kind: LocationKind) -> Result<&Location> {
        match kind {
            LocationKind::Disk => Ok(&self.disk),
            LocationKind::Ram => {
                let why =
                    no_ram_location().unwrap_or_else(|| "no ram location was made; give one with --ram-dir".into());
                self.ram.as_ref().ok_or_else(|| bad_input!("{why}"))
            }
        }
    }

    /// Both locations, or the disk alone where there is no ram location.
    pub fn all(&self) -> Vec<&Location> {
        std::iter::once(&self.disk).chain(&self.ram).collect()
    }

    /// Resolve, create and check both locations; `probe` also measures fsync latency.
    /// Where the platform makes its RAM disk (macOS) and `--ram-dir` is not given, one of
    /// `ram_bytes` is made; None makes none (the ram location is then absent).
    pub fn resolve(
        disk_dir: Option<&Path>,
        ram_dir: Option<&Path>,
        probe: bool,
        ram_bytes: Option<u64>,
    ) -> Result<Locations> {
        let disk = match disk_dir {
            Some(p) => check(LocationKind::Disk, p, false)?,
            None => check(LocationKind::Disk, &default_disk_dir()?, true)?,
        };
        let default_ram = storage::default_ram_dir();
        let made = match (ram_dir, &default_ram, ram_bytes) {
            (None, None, Some(bytes)) if storage::MAKES_RAM_DISK => storage::make_ram_disk(bytes)
                .map_err(|e| bad_input!("cannot make a RAM disk for the ram location: {e}; give one with --ram-dir"))?,
            _ => None,
        };
        let ram_path = ram_dir.map(Path::to_path_buf).or(default_ram);
        let ram = match (ram_path, &made) {
            (Some(p), _) => Some(check(LocationKind::Ram, &p, ram_dir.is_none())?),
            (None, Some(m)) => Some(check(LocationKind::Ram, m.path(), false)?),
            (None, None) => None,
        };
        let mut l = Locations { disk, ram, _made: made.map(std::sync::Arc::new) };
        if probe {
            for loc in std::iter::once(&mut l.disk).chain(&mut l.ram) {
                loc.fsync = Some(fsync_probe::probe(&loc.path)?);
            }
        }
        Ok(l)
    }
}

impl Locations {
    /// Write back what is dirty on the disk location's filesystem, so that the kernel's
    /// writeback of earlier work (a template copied, a load, another cell's unsynced
    /// commits) is paid here rather than inside the next measured phase.
    pub fn settle(&self) {
        storage::flush(&self.disk.path);
    }
}

/// The user's cache dir for dbrace: $XDG_CACHE_HOME/dbrace or ~/.cache/dbrace (on
/// Windows, %LOCALAPPDATA%\dbrace).
pub fn cache_dir() -> Result<PathBuf> {
    match crate::platform::user::cache_home() {
        Ok(base) => Ok(base.join("dbrace")),
        Err(why) => Err(bad_input!("{why}; give a disk location with --disk-dir DIR")),
    }
}

/// Where dbrace keeps what servers must reach: root's home is 0700, so as root this is
/// /var/tmp/dbrace (on disk on Debian and most systems), elsewhere the user's cache dir.
pub fn shared_dir() -> Result<PathBuf> {
    if crate::instance::user::is_root() { Ok(PathBuf::from("/var/tmp/dbrace")) } else { cache_dir() }
}

fn default_disk_dir() -> Result<PathBuf> {
    Ok(shared_dir()?.join("data"))
}

/// Why `ram` profiles cannot run when `--ram-dir` is not given, where that is so.
pub fn no_ram_location() -> Option<String> {
    let has = storage::default_ram_dir().is_some() || storage::MAKES_RAM_DISK;
    (!has).then(|| format!("this platform has no RAM location of its own; give {} with --ram-dir", storage::RAM_HINT))
}

fn flag(kind: LocationKind) -> &'static str {
    match kind {
        LocationKind::Disk => "--disk-dir",
        LocationKind::Ram => "--ram-dir",
    }
}

/// Check one location; dbrace's own defaults are created, a user's directory must exist.
fn check(kind: LocationKind, path: &Path, create: bool) -> Result<Location> {
    // Servers start in directories of their own: a relative path would name another place.
    let path = &std::path::absolute(path)
        .map_err(|e| bad_input!("cannot resolve the {kind} location {}: {e}", path.display()))?;
    if create {
        std::fs::create_dir_all(path).map_err(|e| {
            bad_input!("cannot create the {kind} location {}: {e}; choose another with {}", path.display(), flag(kind))
        })?;
    } else if !path.is_dir() {
        return Err(bad_input!(
            "the {kind} location {} is not an existing directory; create it or choose another with {}",
            path.display(),
            flag(kind)
        ));
    }
    let fs = storage::filesystem(path)
        .map_err(|e| bad_input!("cannot inspect the {kind} location {}: {e}", path.display()))?;
    // Where the platform cannot tell a RAM filesystem, the location is what the user says.
    let is_ram = fs.ram.unwrap_or(kind == LocationKind::Ram);
    let fs_type = fs.name.clone();
    match kind {
        LocationKind::Disk if is_ram => {
            return Err(bad_input!(
                "the disk location {} is on {fs_type}, i.e. in RAM: disk numbers would be RAM numbers; choose a directory on a real disk with --disk-dir",
                path.display()
            ));
        }
        LocationKind::Ram if !is_ram => {
            return Err(bad_input!(
                "the ram location {} is on {fs_type}, not tmpfs: RAM numbers would be disk numbers; choose {} with --ram-dir",
                path.display(),
                storage::RAM_HINT
            ));
        }
        _ => {}
    }
    // Prove we can write here now, rather than failing in the middle of a run.
    let probe = crate::instance::datadir::scratch(path, "write");
    std::fs::write(&probe, b"x").map_err(|e| {
        bad_input!(
            "cannot write to the {kind} location {}: {e}; choose a writable directory with {}",
            path.display(),
            flag(kind)
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    let swap_bytes = if kind == LocationKind::Ram && fs.swappable { storage::disk_swap_bytes() } else { None };
    Ok(Location { kind, path: path.to_path_buf(), fs_type, free_bytes: fs.free_bytes, fsync: None, swap_bytes })
}

/// The filesystem type a path is on (ext4, tmpfs, …).
pub fn fs_type(path: &Path) -> String {
    storage::filesystem(path).map_or_else(|e| format!("unknown ({e})"), |fs| fs.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_shm_is_ram_and_refused_as_disk() {
        let shm = Path::new("/dev/shm");
        assert!(check(LocationKind::Ram, shm, false).is_ok());
        let e = check(LocationKind::Disk, shm, false).unwrap_err().to_string();
        assert!(e.contains("tmpfs") && e.contains("--disk-dir"), "{e}");
    }

    #[test]
    fn a_swapped_ram_location_says_so_in_one_line() {
        let mut l = check(LocationKind::Ram, Path::new("/dev/shm"), false).unwrap();
        l.swap_bytes = None;
        assert_eq!(l.warning(), None);
        l.swap_bytes = Some(3 << 30);
        let w = l.warning().unwrap();
        assert!(
            w.contains("/dev/shm") && w.contains("3.0 GiB") && w.contains("disk speed") && !w.contains('\n'),
            "{w}"
        );
        // What this machine says: a warning exactly when it swaps to disk.
        let checked = check(LocationKind::Ram, Path::new("/dev/shm"), false).unwrap();
        assert_eq!(checked.swap_bytes, storage::disk_swap_bytes());
    }

    #[test]
    fn a_disk_directory_is_refused_as_ram() {
        let dir = std::env::current_dir().unwrap();
        let e = check(LocationKind::Ram, &dir, false).unwrap_err().to_string();
        assert!(e.contains("not tmpfs") && e.contains("--ram-dir"), "{e}");
    }
}
