//! Processes as Windows has them: a new process group (a Ctrl-C at the console reaches
//! dbrace alone), ending a process outright, waiting on its handle, its CPU times. A stop
//! ends the process itself, not the processes it started.

use super::{Process, duration};
use std::io;
use std::os::windows::process::CommandExt;
use std::process::{Command, Stdio};
use windows_sys::Win32::Foundation::{FILETIME, STILL_ACTIVE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, GetExitCodeProcess, GetProcessTimes, INFINITE, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, PROCESS_TERMINATE, TerminateProcess, WaitForSingleObject,
};

/// Why managed servers cannot run here: starting and stopping a server's processes
/// as dbrace does needs process groups, signals and unix sockets.
pub const NO_MANAGED_SERVERS: Option<&str> =
    Some("managed servers do not run on Windows yet: give a running server with --url, or run dbrace inside WSL2");

/// Start `cmd` in a process group of its own; nothing ends it should dbrace die first.
pub fn own_group(cmd: &mut Command, _death: i32) {
    new_group(cmd);
}

/// Start `cmd` in a process group of its own: a Ctrl-C at the console reaches dbrace alone.
pub fn new_group(cmd: &mut Command) {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// Nothing: dbrace is never root here, so it never runs a server as another user.
pub fn run_as(_: &mut Command, _: u32, _: u32) {}

/// End the process `pid` (Windows has no signal to send it another process).
pub fn signal(pid: u32, _sig: i32) {
    if let Some(p) = Process::open(pid, PROCESS_TERMINATE) {
        // SAFETY: an open handle with the right to terminate.
        unsafe { TerminateProcess(p.0, 1) };
    }
}

/// End the process `pid` (the processes it started are not reached).
pub fn signal_group(pid: u32, sig: i32) {
    signal(pid, sig);
}

/// Whether a process `pid` is still running.
pub fn alive(pid: u32) -> bool {
    pid > 0 && !super::procs::exited(pid)
}

pub use crate::platform::values::Reaped;

/// Block until `pid` has exited.
pub fn wait_exit(pid: u32) -> bool {
    let Some(p) = Process::open(pid, PROCESS_SYNCHRONIZE) else { return false };
    // SAFETY: an open handle with the right to wait on it.
    unsafe { WaitForSingleObject(p.0, INFINITE) == WAIT_OBJECT_0 }
}

/// Wait for `pid` to end: its exit code and the CPU it used (not its children's).
pub fn reap(pid: u32) -> io::Result<Reaped> {
    let p = Process::open(pid, PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION)
        .ok_or_else(io::Error::last_os_error)?;
    let zero = || FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero(), zero(), zero(), zero());
    let mut code = STILL_ACTIVE as u32;
    // SAFETY: an open handle with both rights; out-parameters we own.
    let ok = unsafe {
        WaitForSingleObject(p.0, INFINITE) == WAIT_OBJECT_0
            && GetExitCodeProcess(p.0, &mut code) != 0
            && GetProcessTimes(p.0, &mut created, &mut exited, &mut kernel, &mut user) != 0
    };
    if !ok {
        return Err(io::Error::last_os_error());
    }
    Ok(Reaped { ending: Ok(code as i32), user: duration(user), system: duration(kernel) })
}

/// A copy of dbrace's stderr, for a child's output.
pub fn stderr_copy() -> io::Result<Stdio> {
    use std::os::windows::io::AsHandle;
    Ok(Stdio::from(io::stderr().as_handle().try_clone_to_owned()?))
}

/// Point stdout at the null device (its buffer flushed, its lock released before).
pub fn stdout_to_null() {
    use std::os::windows::io::IntoRawHandle;
    use windows_sys::Win32::System::Console::{STD_OUTPUT_HANDLE, SetStdHandle};
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("NUL") {
        // SAFETY: the handle is ours to give away; stdout keeps it from now on.
        unsafe { SetStdHandle(STD_OUTPUT_HANDLE, null.into_raw_handle()) };
    }
}

/// Nothing to raise: Windows sets no soft limit of open sockets.
pub fn raise_open_files() {}
