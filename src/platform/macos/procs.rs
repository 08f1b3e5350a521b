//! Other processes, from libproc: parents (proc_pidinfo), CPU time and storage bytes
//! (proc_pid_rusage, CPU in Mach ticks scaled by the timebase), start times and names.
//! macOS counts no waits for a CPU per process, has no control groups or pid namespaces.

use crate::platform::mach_time::Timebase;
use std::collections::HashMap;

pub use crate::platform::values::{Stat, Waits};

#[repr(C)]
struct MachTimebaseInfo {
    numer: u32,
    denom: u32,
}

unsafe extern "C" {
    fn mach_timebase_info(info: *mut MachTimebaseInfo) -> libc::c_int;
}

/// This machine's Mach timebase.
fn timebase() -> Timebase {
    let mut t = MachTimebaseInfo { numer: 0, denom: 0 };
    // SAFETY: mach_timebase_info fills the struct it is given.
    unsafe { mach_timebase_info(&mut t) };
    Timebase { numer: t.numer, denom: t.denom }
}

/// The BSD facts of a process: parent, status, start, name.
fn bsd_info(pid: u32) -> Option<libc::proc_bsdinfo> {
    // SAFETY: a zeroed proc_bsdinfo is a valid out-parameter of its size.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    let got = unsafe { libc::proc_pidinfo(pid as i32, libc::PROC_PIDTBSDINFO, 0, (&raw mut info).cast(), size) };
    (got == size).then_some(info)
}

/// A process's resource usage.
fn rusage(pid: u32) -> Option<libc::rusage_info_v2> {
    // SAFETY: a zeroed rusage_info_v2 is a valid out-parameter for the V2 flavour.
    let mut r: libc::rusage_info_v2 = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::proc_pid_rusage(pid as i32, libc::RUSAGE_INFO_V2, (&raw mut r).cast()) };
    (got == 0).then_some(r)
}

/// `pid`'s stat, if it is still there.
pub fn stat(pid: u32) -> Option<Stat> {
    let (info, r, tb) = (bsd_info(pid)?, rusage(pid)?, timebase());
    Some(Stat {
        parent: info.pbi_ppid,
        cpu_s: tb.seconds(r.ri_user_time + r.ri_system_time),
        system_cpu_s: tb.seconds(r.ri_system_time),
        children_cpu_s: tb.seconds(r.ri_child_user_time + r.ri_child_system_time),
        children_system_cpu_s: tb.seconds(r.ri_child_system_time),
    })
}

/// Every process's stat that this user may read, by pid.
pub fn all() -> HashMap<u32, Stat> {
    let mut pids = vec![0 as libc::c_int; 8192];
    let bytes = (pids.len() * std::mem::size_of::<libc::c_int>()) as libc::c_int;
    // SAFETY: the buffer holds `bytes` bytes.
    let n = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    pids.truncate(n.max(0) as usize);
    pids.into_iter().filter(|&p| p > 0).filter_map(|p| Some((p as u32, stat(p as u32)?))).collect()
}

/// Whether `pid` is one of the kernel's own (kernel_task is pid 0).
pub fn kernel_thread(pid: u32, _parent: u32) -> bool {
    pid == 0
}

/// Whether `pid` has exited (a zombie not yet reaped counts) or is not there.
pub fn exited(pid: u32) -> bool {
    bsd_info(pid).is_none_or(|i| i.pbi_status == libc::SZOMB)
}

/// Start time (microseconds since the epoch) of a live process; None for one gone or a zombie.
pub fn start_time(pid: u32) -> Option<u64> {
    let i = bsd_info(pid).filter(|i| i.pbi_status != libc::SZOMB)?;
    Some(i.pbi_start_tvsec * 1_000_000 + i.pbi_start_tvusec)
}

/// macOS has no pid namespaces: every recorded pid is this machine's.
pub fn pid_namespace(_: Option<u32>) -> Option<u64> {
    Some(0)
}

/// A process's command line: not read here, so the reaper goes by its name.
pub fn command_line(_: u32) -> Vec<u8> {
    Vec::new()
}

/// Whether a process's name is `program`'s (the kernel keeps 16 bytes of it).
pub fn named(pid: u32, program: &str) -> bool {
    bsd_info(pid).is_some_and(|i| {
        let comm = super::c_text(&i.pbi_comm);
        !comm.is_empty() && program.starts_with(&comm)
    })
}

/// No control groups on macOS.
pub fn in_cgroup(_: u32, _: &str) -> bool {
    false
}

/// Not available on this platform.
pub fn waits(_: u32) -> Waits {
    Waits::default()
}

/// The bytes a process caused to be read from and written to storage.
pub fn io(pid: u32) -> Option<(f64, f64)> {
    let r = rusage(pid)?;
    Some((r.ri_diskio_bytesread as f64, r.ri_diskio_byteswritten as f64))
}
