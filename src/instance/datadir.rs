//! Per-instance data directories that never outlive the run, and a reaper for those a
//! killed run left behind. A directory is dbrace's only when it carries an owner marker
//! naming a process (pid and start time): the reaper touches nothing else, even in a
//! directory the user named.

use crate::error::Result;
use crate::platform::{files, process, procs, signal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(1);
const PREFIX: &str = "dbrace-run-";
const MARKER: &str = ".dbrace-owner";
/// File in an instance directory holding its server's pid, for the reaper.
pub const PID_FILE: &str = ".dbrace-server-pid";
/// Scratch files (fsync probe, write test) end in `-<pid>` after this prefix.
pub const SCRATCH_PREFIX: &str = ".dbrace-scratch-";

/// The RAM disk made for `exec` and `serve` (macOS), whose data sets dbrace cannot
/// foresee.
pub const RAM_DISK_BYTES: u64 = 2 << 30;

/// A data directory removed when dropped (normal end, error, or unwinding panic).
#[derive(Debug)]
pub struct DataDir {
    path: PathBuf,
}

impl DataDir {
    /// Create `<location>/dbrace-run-<pid>-<n>`, owner-only, with its owner marker.
    pub fn create(location: &Path) -> Result<DataDir> {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = location.join(format!("{PREFIX}{}-{n}", std::process::id()));
        files::private_dir(&path).map_err(|e| failed!("cannot create data directory {}: {e}", path.display()))?;
        let dir = DataDir { path };
        std::fs::write(dir.path.join(MARKER), owner_line(std::process::id()))
            .map_err(|e| failed!("cannot write in data directory {}: {e}", dir.path.display()))?;
        Ok(dir)
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hand the directory to the user a server runs as.
    pub fn give_to(&self, user: &crate::instance::user::RunAs) -> Result<()> {
        // A directory under a parent closed to the user is refused with the reason first.
        crate::instance::user::reachable(&self.path, user)?;
        files::chown(&self.path, user.uid, user.gid)
            .map_err(|e| failed!("cannot give {} to user {}: {e}", self.path.display(), user.name))
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        remove_persistently(&self.path);
    }
}

/// Copy a directory tree as `cp -a` does, keeping owners and modes (servers insist on
/// their 0700 data directories).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    // A filesystem that can share blocks (btrfs, xfs) makes the copy nearly free.
    match std::process::Command::new("cp").args(["-a", "--reflink=auto"]).arg(from).arg(to).output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(failed!("cannot copy {}: {}", from.display(), String::from_utf8_lossy(&o.stderr).trim())),
        Err(e) => Err(failed!("cannot run cp: {e}")),
    }
}

/// Write a file only its owner (the server's user) can read: it may hold a password.
pub fn write_private(path: &Path, text: &str, user: Option<&crate::instance::user::RunAs>) -> Result<()> {
    let write = || -> std::io::Result<()> {
        let mut f = files::private_file(path, std::fs::OpenOptions::new().write(true).create(true).truncate(true))?;
        std::io::Write::write_all(&mut f, text.as_bytes())?;
        if let Some(u) = user {
            files::chown(path, u.uid, u.gid)?;
        }
        Ok(())
    };
    write().map_err(|e| failed!("cannot write {}: {e}", path.display()))
}

/// Create a 0700 directory (a server's socket directory) owned by `user` when given.
pub fn private_dir(path: &Path, user: Option<&crate::instance::user::RunAs>) -> Result<PathBuf> {
    files::private_dir(path).map_err(|e| failed!("cannot create {}: {e}", path.display()))?;
    if let Some(u) = user {
        files::chown(path, u.uid, u.gid)
            .map_err(|e| failed!("cannot give {} to user {}: {e}", path.display(), u.name))?;
    }
    Ok(path.to_path_buf())
}

/// A path for a scratch file of this process in `dir`, found by the reaper if we die.
pub fn scratch(dir: &Path, what: &str) -> PathBuf {
    dir.join(format!("{SCRATCH_PREFIX}{what}-{}", std::process::id()))
}

/// "pid start-time pid-namespace" of a process: the start time tells a live owner from a
/// reused pid, the namespace tells whose pid it is (dbrace in a container sharing the
/// host's daemon or data directories has pids of its own).
pub fn owner_line(pid: u32) -> String {
    format!("{pid} {} {}", start_time(pid).unwrap_or(0), procs::pid_namespace(Some(pid)).unwrap_or(0))
}

/// When a live process started, as the platform counts; None for one that is gone or a
/// zombie (dead, not yet waited for by its new parent).
pub fn start_time(pid: u32) -> Option<u64> {
    procs::start_time(pid)
}

/// Kill a server a dead run left in `dir` (normally the parent-death signal already did)
/// and its children, which share its process group. Pids get reused, so only a group led
/// by a process that is, or was, that server: its command line names this directory, or it
/// is a zombie nobody has waited for yet with the program name the pid file records.
fn kill_server(dir: &Path) {
    let Ok(line) = std::fs::read_to_string(dir.join(PID_FILE)) else { return };
    let mut words = line.split_whitespace();
    let Some(Ok(pid)) = words.next().map(str::parse::<u32>) else { return };
    let program = words.next().unwrap_or("");
    let cmdline = procs::command_line(pid);
    let ours = String::from_utf8_lossy(&cmdline).contains(dir.to_string_lossy().as_ref())
        || (cmdline.is_empty() && !program.is_empty() && procs::named(pid, program));
    if ours {
        process::signal_group(pid, signal::KILL);
    }
}

/// Remove a directory whose dying processes may still be writing into it. Its owner marker
/// goes last: a run killed while removing a big data directory (a MariaDB one takes a
/// while) leaves one the reaper still knows as its own.
fn remove_persistently(dir: &Path) -> bool {
    for _ in 0..50 {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.file_name() != MARKER {
                let p = entry.path();
                let _ = match entry.file_type() {
                    Ok(t) if t.is_dir() => std::fs::remove_dir_all(&p),
                    _ => std::fs::remove_file(&p),
                };
            }
        }
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// Whether the owner an owner line names still runs. An unreadable line, or an owner in
/// another pid namespace (whose pids mean nothing here), counts as alive.
pub fn owner_alive(line: &str) -> bool {
    let mut it = line.split_whitespace().map(|v| v.parse::<u64>().ok());
    match (it.next().flatten(), it.next().flatten(), it.next()) {
        (_, _, Some(ns)) if ns.is_none() || ns != procs::pid_namespace(None) => true,
        (Some(pid), Some(started), _) => start_time(pid as u32) == Some(started),
        _ => true, // unreadable marker: leave it alone
    }
}

/// Remove what dead dbrace processes left in `location`: marked data directories and
/// scratch files. Returns how many were removed.
pub fn reap(location: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(location) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with(PREFIX) {
            let Ok(line) = std::fs::read_to_string(path.join(MARKER)) else { continue };
            if owner_alive(&line) {
                continue;
            }
            kill_server(&path);
            if remove_persistently(&path) {
                removed += 1;
            }
        } else if let Some(rest) = name.strip_prefix(SCRATCH_PREFIX) {
            let pid = rest.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|p| start_time(p).is_none()) && std::fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_is_removed_on_drop_and_only_marked_orphans_are_reaped() {
        let base = tempfile::tempdir().unwrap();
        let base = base.path();
        let d = DataDir::create(base).unwrap();
        let p = d.path().to_path_buf();
        assert!(p.join(MARKER).is_file());
        drop(d);
        assert!(!p.exists());
        // An orphan: marked by a process that does not exist (pid beyond pid_max).
        let orphan = base.join(format!("{PREFIX}2147483646-1"));
        std::fs::create_dir_all(orphan.join("x")).unwrap();
        std::fs::write(orphan.join(MARKER), "2147483646 12345").unwrap();
        // Not ours: the right name but no marker, and a marker of a live process.
        let foreign = base.join(format!("{PREFIX}123456-photos"));
        std::fs::create_dir_all(&foreign).unwrap();
        let mine = DataDir::create(base).unwrap();
        let probe = base.join(format!("{SCRATCH_PREFIX}fsync-2147483646"));
        std::fs::write(&probe, "x").unwrap();
        assert_eq!(reap(base), 2);
        assert!(!orphan.exists() && !probe.exists());
        assert!(foreign.exists() && mine.path().exists());
    }

    #[test]
    fn an_owner_in_another_pid_namespace_is_never_judged_dead() {
        let here = owner_line(std::process::id());
        assert!(owner_alive(&here), "{here}");
        let ns = here.split_whitespace().nth(2).unwrap();
        // Gone in this namespace, and in old two-field lines: dead.
        assert!(!owner_alive(&format!("2147483646 12345 {ns}")));
        assert!(!owner_alive("2147483646 12345"));
        // The same dead-looking pid, recorded by a dbrace in a container: not ours to judge.
        assert!(owner_alive("2147483646 12345 1"));
    }
}
