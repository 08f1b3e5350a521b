//! What a server's processes have used so far, as the platform tells: CPU time (and its
//! kernel part), their waits for a CPU and for storage, and bytes they
//! caused to be read from and written to storage. Summed over the processes alive now;
//! a process that exited counts through its parent's reaped-children time, not its bytes.

use crate::counters::Usage;
use crate::platform::{procs, tree};

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

/// The ids of `which`'s processes alive now.
pub fn pids(which: &Processes) -> Vec<u32> {
    let all = procs::all();
    let parent = |pid: u32| all.get(&pid).map(|s| s.parent);
    let mut found: Vec<u32> = all.keys().copied().filter(|pid| member(which, *pid, parent)).collect();
    found.sort_unstable();
    found
}

/// Whether `pid` is one of `which`.
fn member(which: &Processes, pid: u32, parent: impl Fn(u32) -> Option<u32>) -> bool {
    match which {
        Processes::Tree(root) => tree::descends(pid, *root, parent),
        Processes::Cgroup(id) => procs::in_cgroup(pid, id),
    }
}

/// What `which` have used so far; None where the platform cannot tell.
pub fn usage(which: &Processes) -> Option<Usage> {
    let all = procs::all();
    let parent = |pid: u32| all.get(&pid).map(|s| s.parent);
    let used = all.iter().filter(|(pid, _)| member(which, **pid, parent)).map(|(pid, s)| {
        let waits = procs::waits(*pid);
        Usage {
            // A process that exited counts in its parent's waited-for children.
            cpu_s: Some(s.cpu_s + s.children_cpu_s),
            system_cpu_s: Some(s.system_cpu_s + s.children_system_cpu_s),
            cpu_wait_s: waits.cpu_s,
            io_wait_s: waits.io_s,
            ..io(*pid).unwrap_or_default()
        }
    });
    used.reduce(|a, b| a.plus(&b))
}

/// What this process has read and written through the storage layer (an embedded
/// engine's files); its CPU is the clients'.
pub fn own_io() -> Option<Usage> {
    io(std::process::id())
}

/// A process's storage bytes.
fn io(pid: u32) -> Option<Usage> {
    let (read_bytes, write_bytes) = procs::io(pid)?;
    Some(Usage { read_bytes, write_bytes, ..Usage::default() })
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
