//! What a server's processes have used so far, from /proc: CPU time, and bytes they
//! caused to be read from and written to storage. Summed over the processes alive now;
//! a process that exited counts through its parent's reaped-children time, not its bytes.

use crate::counters::Usage;
use crate::procfs;

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
    let all = procfs::all();
    let member = |pid: u32| match which {
        Processes::Tree(root) => procfs::descends(pid, *root, &all),
        Processes::Cgroup(id) => std::fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|c| c.contains(id)),
    };
    let hz = procfs::ticks_per_second();
    let used = all.iter().filter(|(pid, _)| member(**pid)).map(|(pid, s)| Usage {
        // A process that exited counts in its parent's waited-for children.
        cpu_s: Some((s.ticks + s.children_ticks) as f64 / hz),
        cpu_wait_s: cpu_wait(*pid),
        ..io(*pid).unwrap_or_default()
    });
    used.reduce(|a, b| a.plus(&b))
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

/// A process's storage bytes from /proc/PID/io (readable for our own and, as root, all).
fn io(pid: u32) -> Option<Usage> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field =
        |name: &str| text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")?.trim().parse::<f64>().ok());
    Some(Usage { read_bytes: field("read_bytes")?, write_bytes: field("write_bytes")?, ..Usage::default() })
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
