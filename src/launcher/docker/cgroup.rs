//! A container's CPU time from its control group's own accounting, which counts every
//! process the container ran, those that exited too: cgroup v2's `cpu.stat`, v1's
//! `cpuacct.usage`, at the paths Docker's cgroupfs and systemd drivers give it.

use std::path::Path;

/// Where the control groups are mounted.
pub const ROOT: &str = "/sys/fs/cgroup";

/// The CPU seconds container `id` (its full id) has used so far, from its control group
/// under `root`; None where no such group is found (another layout, another runtime, or
/// a dbrace that sees only its own container's groups).
pub fn cpu_s(root: &Path, id: &str) -> Option<f64> {
    // The cgroupfs driver's group, then the systemd driver's.
    let groups = [format!("docker/{id}"), format!("system.slice/docker-{id}.scope")];
    groups.iter().find_map(|g| {
        // v2: one hierarchy, microseconds in cpu.stat.
        let v2 = || {
            let text = std::fs::read_to_string(root.join(g).join("cpu.stat")).ok()?;
            let us = text.lines().find_map(|l| l.strip_prefix("usage_usec "))?.trim().parse::<f64>().ok()?;
            Some(us / 1e6)
        };
        // v1: the cpuacct controller's hierarchy (mounted alone or with cpu), nanoseconds.
        let v1 = |controller: &str| {
            let text = std::fs::read_to_string(root.join(controller).join(g).join("cpuacct.usage")).ok()?;
            Some(text.trim().parse::<f64>().ok()? / 1e9)
        };
        v2().or_else(|| v1("cpuacct")).or_else(|| v1("cpu,cpuacct")).filter(|s| s.is_finite())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_v2_groups_of_either_driver_are_found() {
        let id = "4f1c0ffee0ddba11";
        let root = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let path = root.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        assert_eq!(cpu_s(root.path(), id), None);
        put(&format!("cpuacct/docker/{id}/cpuacct.usage"), "2500000000\n");
        assert_eq!(cpu_s(root.path(), id), Some(2.5));
        let v2 = tempfile::tempdir().unwrap();
        let path = v2.path().join(format!("system.slice/docker-{id}.scope/cpu.stat"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "usage_usec 1250000\nuser_usec 1000000\nsystem_usec 250000\n").unwrap();
        assert_eq!(cpu_s(v2.path(), id), Some(1.25));
        // Another container's group is not this one's.
        assert_eq!(cpu_s(v2.path(), "4f1c0ffee0ddba12"), None);
        std::fs::write(&path, "usage_usec lots\n").unwrap();
        assert_eq!(cpu_s(v2.path(), id), None);
    }
}
