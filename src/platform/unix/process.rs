//! Processes as POSIX has them: groups of their own that die with dbrace, signals,
//! waiting without reaping, the CPU a reaped process and its children used.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Why managed servers cannot run here, when they cannot: they can on Linux and macOS.
pub const NO_MANAGED_SERVERS: Option<&str> = None;

/// Start `cmd` in a process group of its own (a Ctrl-C at the terminal reaches dbrace
/// alone; a stop reaches the whole tree it starts), sent `death` if dbrace dies first
/// where the platform can (Linux's parent-death signal; elsewhere the next run's reaper
/// stops what a killed run left).
pub fn own_group(cmd: &mut Command, death: i32) {
    new_group(cmd);
    die_with_parent(cmd, death);
}

/// Start `cmd` in a process group of its own: a Ctrl-C at the terminal reaches dbrace alone.
pub fn new_group(cmd: &mut Command) {
    cmd.process_group(0);
}

#[cfg(target_os = "linux")]
fn die_with_parent(cmd: &mut Command, death: i32) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl and getppid are async-signal-safe; they run in the child between fork
    // and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, death as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            // dbrace killed between the fork and the prctl sends no signal: the child,
            // already an orphan, must not start.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut Command, _: i32) {}

/// Run `cmd` as the user `uid` of group `gid`.
pub fn run_as(cmd: &mut Command, uid: u32, gid: u32) {
    cmd.uid(uid).gid(gid);
}

/// Send `sig` to the process `pid`.
pub fn signal(pid: u32, sig: i32) {
    // SAFETY: kill has no memory effects.
    unsafe { libc::kill(pid as i32, sig) };
}

/// Send `sig` to the process group led by `pid` (a child of ours not yet reaped, so its
/// id names no one else's group).
pub fn signal_group(pid: u32, sig: i32) {
    // SAFETY: kill has no memory effects.
    unsafe { libc::kill(-(pid as i32), sig) };
}

/// Whether a process `pid` exists (a zombie counts).
pub fn alive(pid: u32) -> bool {
    // SAFETY: kill(2) with signal 0 only asks whether the process exists.
    pid > 0
        && (unsafe { libc::kill(pid as i32, 0) } == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH))
}

pub use crate::platform::values::Reaped;

/// Block until `pid` has exited, without reaping it (its group can still be signalled).
pub fn wait_exit(pid: u32) -> bool {
    loop {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 {
            return true;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false;
        }
    }
}

/// Reap `pid`: how it ended and what it used.
pub fn reap(pid: u32) -> io::Result<Reaped> {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
        if r == pid as i32 {
            return Ok(Reaped { ending: ending(status), user: since(usage.ru_utime), system: since(usage.ru_stime) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// A wait status as an exit code or the signal that ended the process.
fn ending(status: i32) -> Result<i32, i32> {
    if libc::WIFSIGNALED(status) {
        Err(libc::WTERMSIG(status))
    } else if libc::WIFEXITED(status) {
        Ok(libc::WEXITSTATUS(status))
    } else {
        Ok(status)
    }
}

/// A `timeval` of `getrusage` as a duration.
fn since(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000)
}

/// A copy of dbrace's stderr, for a child's output.
pub fn stderr_copy() -> io::Result<Stdio> {
    use std::os::fd::AsFd;
    Ok(Stdio::from(io::stderr().as_fd().try_clone_to_owned()?))
}

/// Point stdout at the null device (its buffer flushed, its lock released before).
pub fn stdout_to_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto fd 1.
        unsafe { libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) };
    }
}

/// Raise the soft limit of open files to the hard limit: hundreds of clients need a
/// socket each, and many systems start processes at a soft limit of 1,024.
pub fn raise_open_files() {
    // SAFETY: getrlimit and setrlimit read and write a struct we own.
    let mut l: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) } == 0 && l.rlim_cur < l.rlim_max {
        l.rlim_cur = l.rlim_max;
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &l) };
    }
}
