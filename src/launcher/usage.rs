//! What a server's processes have used so far, from /proc: CPU time, and bytes they
//! caused to be read from and written to storage. Summed over the processes alive now;
//! a process that exited counts through its parent's reaped-children time, not its bytes.

use crate::counters::Usage;
use std::collections::HashMap;

/// Which processes are the server's.
#[derive(Clone, Debug)]
pub enum Processes {
    /// A process of ours and every process under it (the native launcher's: PostgreSQL's
    /// children each lead a process group and a session of their own).
    Tree(u32),
    /// The processes in a container's control group: a part of its path in
    /// /proc/PID/cgroup (the container's id).
    Cgroup(String),
}

/// What `which` have used so far; None where /proc cannot tell.
pub fn usage(which: &Processes) -> Option<Usage> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let all: HashMap<u32, (u32, u64)> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let member = |pid: u32| match which {
        Processes::Tree(root) => descends(pid, *root, &all),
        Processes::Cgroup(id) => std::fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|c| c.contains(id)),
    };
    let hz = ticks_per_second();
    let used = all.iter().filter(|(pid, _)| member(**pid)).map(|(pid, (_, ticks))| Usage {
        cpu_s: Some(*ticks as f64 / hz),
        cpu_wait_s: cpu_wait(*pid),
        ..io(*pid).unwrap_or_default()
    });
    used.reduce(|a, b| a.plus(&b))
}

/// Whether `pid` is `root` or under it, by the parents in `all`.
fn descends(mut pid: u32, root: u32, all: &HashMap<u32, (u32, u64)>) -> bool {
    // Up the parents to the root, or to init (1) or the kernel's threads (2, 0).
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        match all.get(&pid) {
            Some(&(parent, _)) if pid > 2 => pid = parent,
            _ => return false,
        }
    }
    false
}

/// What this process has read and written through the storage layer (an embedded
/// engine's files); its CPU is the clients'.
pub fn own_io() -> Option<Usage> {
    io(std::process::id())
}

/// Seconds `pid`'s threads alive now spent ready to run, waiting for a CPU
/// (/proc/PID/task/TID/schedstat's second field, nanoseconds).
pub fn cpu_wait(pid: u32) -> Option<f64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let waited = tasks.flatten().filter_map(|t| {
        let text = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
        text.split_whitespace().nth(1)?.parse::<f64>().ok()
    });
    Some(waited.sum::<f64>() / 1e9)
}

/// A process's parent and CPU ticks, its reaped children's included, from /proc/PID/stat.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command may hold spaces and parentheses: the fields start after the last ')'.
    let f: Vec<&str> = text.get(text.rfind(')')? + 2..)?.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    // After the command: state (0), ppid (1), …, utime (11), stime (12), cutime (13),
    // cstime (14).
    Some((n(1)? as u32, n(11)? + n(12)? + n(13)? + n(14)?))
}

/// A process's storage bytes from /proc/PID/io (readable for our own and, as root, all).
fn io(pid: u32) -> Option<Usage> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field =
        |name: &str| text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")?.trim().parse::<f64>().ok());
    Some(Usage { read_bytes: field("read_bytes")?, write_bytes: field("write_bytes")?, ..Usage::default() })
}

/// Ticks of /proc's CPU counters per second (USER_HZ, 100 on Linux).
fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a constant of the system.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_process_tree_shows_its_cpu_and_writes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out");
        // A child of a child, in a session of its own, as a PostgreSQL backend is.
        let script = format!(
            "setsid sh -c 'timeout 1 sh -c \"while :; do :; done\"; head -c 1048576 /dev/zero > {0}; sync {0}'; sleep 1",
            file.display()
        );
        let mut child = std::process::Command::new("sh").args(["-c", &script]).spawn().unwrap();
        let group = Processes::Tree(child.id());
        let first = usage(&group).expect("the group is seen");
        std::thread::sleep(std::time::Duration::from_millis(1700));
        let later = usage(&group).expect("the group is seen");
        let _ = child.kill();
        let _ = child.wait();
        let used = first.until(&later);
        assert!(used.cpu_s.unwrap() > 0.3, "{used:?}");
        assert!(used.write_bytes >= 1_048_576.0, "{used:?}");
        assert!(usage(&Processes::Tree(u32::MAX)).is_none());
    }
}
