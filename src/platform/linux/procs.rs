//! Other processes, from /proc: parents and CPU time, waits for a CPU, storage bytes,
//! control groups, start times, pid namespaces and command lines.

use std::collections::HashMap;

pub use crate::platform::values::{Stat, Waits};

/// The fields of /proc/PID/stat after the command, which may hold spaces and parentheses.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(text.get(text.rfind(')')? + 2..)?.split_whitespace().map(str::to_string).collect())
}

/// `pid`'s stat, if it is still there.
pub fn stat(pid: u32) -> Option<Stat> {
    let f = stat_fields(pid)?;
    let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    // After the command: state (0), ppid (1), …, utime (11), stime (12), cutime (13),
    // cstime (14), in clock ticks.
    let hz = ticks_per_second();
    Some(Stat {
        parent: n(1)? as u32,
        cpu_s: (n(11)? + n(12)?) as f64 / hz,
        system_cpu_s: n(12)? as f64 / hz,
        children_cpu_s: (n(13)? + n(14)?) as f64 / hz,
        children_system_cpu_s: n(14)? as f64 / hz,
    })
}

/// Every process's stat, by pid.
pub fn all() -> HashMap<u32, Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return HashMap::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// Whether `pid` (whose parent is `parent`) is one of the kernel's own threads.
pub fn kernel_thread(pid: u32, parent: u32) -> bool {
    pid == 2 || parent == 2
}

/// Whether `pid` has exited (a zombie not yet reaped counts) or is not there.
pub fn exited(pid: u32) -> bool {
    matches!(stat_fields(pid).as_deref().and_then(<[String]>::first).map(String::as_str), None | Some("Z" | "X"))
}

/// Start time (clock ticks since boot) of a live process; None for one that is gone or a
/// zombie: with the pid, it tells a live owner from a reused pid.
pub fn start_time(pid: u32) -> Option<u64> {
    let f = stat_fields(pid)?;
    if matches!(f.first().map(String::as_str), Some("Z" | "X")) {
        return None;
    }
    f.get(19)?.parse().ok()
}

/// The inode of a process's pid namespace (/proc/PID/ns/pid links to "pid:[INODE]"), or of
/// this process's own for `None`: whose pids a recorded pid is.
pub fn pid_namespace(pid: Option<u32>) -> Option<u64> {
    let who = pid.map_or("self".to_string(), |p| p.to_string());
    let link = std::fs::read_link(format!("/proc/{who}/ns/pid")).ok()?;
    link.to_str()?.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// A process's command line, its arguments joined by NULs; empty for a zombie.
pub fn command_line(pid: u32) -> Vec<u8> {
    std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()
}

/// Whether a process's short name (the kernel keeps 15 bytes) is `program`'s.
pub fn named(pid: u32, program: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.contains(&format!("({})", program.get(..program.len().min(15)).unwrap_or(program)))
}

/// Whether `pid` is in the control group whose path holds `id` (a container's).
pub fn in_cgroup(pid: u32, id: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|c| c.contains(id))
}

/// What `pid`'s threads alive now waited for: a CPU (/proc/PID/task/TID/schedstat's
/// second field, nanoseconds) and storage (the stat's delayacct_blkio_ticks, kept only
/// while delay accounting, `kernel.task_delayacct`, is on). Some kernels keep no run-queue
/// times until delay accounting has been on once since boot: a thread that ran but shows
/// no run time there, or accounting off, is not counted rather than counted zero.
/// Some kernels add a whole uptime to a thread's I/O delay now and then (a wait whose start
/// was never stamped): a thread that waited longer than it has lived makes the I/O wait
/// not counted.
pub fn waits(pid: u32) -> Waits {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Waits::default() };
    // Without delay accounting the threads' I/O delays are not kept: not read either.
    let (mut ran_ns, mut cpu_ns, mut io_ticks) = (0.0, 0.0, delay_accounting().then_some(0u64));
    let now = uptime_ticks();
    for t in tasks.flatten() {
        let sched = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
        let mut ns = sched.split_whitespace().map(|x| x.parse::<f64>().unwrap_or(0.0));
        ran_ns += ns.next().unwrap_or(0.0);
        cpu_ns += ns.next().unwrap_or(0.0);
        if let Some(ticks) = io_ticks {
            io_ticks = now.and_then(|now| task_blkio_ticks(&t.path(), now)).map(|b| ticks + b);
        }
    }
    Waits { cpu_s: (ran_ns > 0.0).then_some(cpu_ns / 1e9), io_s: io_ticks.map(|t| t as f64 / ticks_per_second()) }
}

/// A thread's delayacct_blkio_ticks (the stat's field 42), if no more than its age (field
/// 22 is its start, in ticks since boot); a thread gone since it was listed waited none.
fn task_blkio_ticks(task: &std::path::Path, now: u64) -> Option<u64> {
    let Ok(text) = std::fs::read_to_string(task.join("stat")) else { return Some(0) };
    let f: Vec<u64> = text.get(text.rfind(')')? + 2..)?.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect();
    let (start, blkio) = (*f.get(19)?, *f.get(39)?);
    (blkio <= now.saturating_sub(start) + 1).then_some(blkio)
}

/// Ticks since boot, from /proc/uptime.
fn uptime_ticks() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/uptime").ok()?;
    let s: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some((s * ticks_per_second()) as u64)
}

/// Whether the kernel counts tasks' delays (`sysctl kernel.task_delayacct`).
pub fn delay_accounting() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/task_delayacct").is_ok_and(|v| v.trim() == "1")
}

/// The bytes a process caused to be read from and written to storage, from /proc/PID/io
/// (readable for our own and, as root, all).
pub fn io(pid: u32) -> Option<(f64, f64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field =
        |name: &str| text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")?.trim().parse::<f64>().ok());
    Some((field("read_bytes")?, field("write_bytes")?))
}

/// Ticks of /proc's CPU counters per second (USER_HZ, 100 on Linux).
fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a constant of the system.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}
