//! Per-instance data directories that never outlive the run, and a reaper for those a
//! killed run left behind.

use crate::error::Result;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(1);
const PREFIX: &str = "run-";

/// A data directory removed when dropped (normal end, error, or unwinding panic).
#[derive(Debug)]
pub struct DataDir {
    path: PathBuf,
}

impl DataDir {
    /// Create `<location>/run-<pid>-<n>`, owner-only.
    pub fn create(location: &Path) -> Result<DataDir> {
        use std::os::unix::fs::DirBuilderExt;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = location.join(format!("{PREFIX}{}-{n}", std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| failed!("cannot create data directory {}: {e}", path.display()))?;
        Ok(DataDir { path })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Remove data directories in `location` whose owning dbrace process is gone
/// (a SIGKILL or a crash skips destructors). Returns how many were removed.
pub fn reap(location: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(location) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if !alive(pid) && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_is_removed_on_drop_and_reaper_removes_orphans() {
        let base = std::env::temp_dir().join(format!("dbrace-dd-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let d = DataDir::create(&base).unwrap();
        let p = d.path().to_path_buf();
        assert!(p.is_dir());
        drop(d);
        assert!(!p.exists());
        // A directory of a process that cannot exist (pid beyond pid_max) is an orphan.
        let orphan = base.join("run-2147483646-1");
        std::fs::create_dir_all(orphan.join("x")).unwrap();
        let mine = DataDir::create(&base).unwrap();
        assert_eq!(reap(&base), 1);
        assert!(!orphan.exists() && mine.path().exists());
        drop(mine);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
