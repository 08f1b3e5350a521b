//! The few /proc readings the noise and the counters share: a process's parent and CPU
//! ticks, the ticks per second, and whether a process descends from another.

use std::collections::HashMap;

/// One process's parent and CPU ticks, from /proc/PID/stat.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    /// Its parent's pid.
    pub parent: u32,
    /// User + system ticks of the process itself.
    pub ticks: u64,
    /// User + system ticks of its children it has waited for.
    pub children_ticks: u64,
}

/// `pid`'s stat, if it is still there.
pub fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command may hold spaces and parentheses: the fields start after the last ')'.
    let f: Vec<&str> = text.get(text.rfind(')')? + 2..)?.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    // After the command: state (0), ppid (1), …, utime (11), stime (12), cutime (13),
    // cstime (14).
    Some(Stat { parent: n(1)? as u32, ticks: n(11)? + n(12)?, children_ticks: n(13)? + n(14)? })
}

/// Every process's stat, by pid.
pub fn all() -> HashMap<u32, Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return HashMap::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// Whether `pid` is `root` or under it, by the parents in `all`.
pub fn descends(mut pid: u32, root: u32, all: &HashMap<u32, Stat>) -> bool {
    // Up the parents to the root, or to init (1) or the kernel's threads (2, 0).
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        match all.get(&pid) {
            Some(s) if pid > 2 => pid = s.parent,
            _ => return false,
        }
    }
    false
}

/// Ticks of /proc's CPU counters per second (USER_HZ, 100 on Linux).
pub fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a constant of the system.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}
