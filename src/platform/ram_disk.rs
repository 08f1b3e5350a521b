//! A RAM disk as macOS makes one: `hdiutil attach -nomount ram://SECTORS` (512-byte
//! sectors) gives a device, `diskutil erasevolume HFS+ NAME DEVICE` formats and mounts it
//! at /Volumes/NAME, `hdiutil detach DEVICE` removes it and frees its memory. HFS+ keeps
//! one device (APFS would add a synthesized container disk, and the ram:// device is the
//! one to detach either way). The volume's name carries dbrace's pid, so that a later run
//! or `dbrace clean` finds the disk of a killed run in `hdiutil info`. The commands and
//! the reading of their output are kept apart from the OS so that Linux tests them.

use std::path::PathBuf;

/// The smallest RAM disk made: room for a server's own files besides the data set.
pub const MIN_BYTES: u64 = 256 << 20;

/// The volume name of dbrace process `pid`'s RAM disk.
pub fn volume_name(pid: u32) -> String {
    format!("dbrace-ram-{pid}")
}

/// The pid in a volume name of ours.
pub fn pid_of(volume: &str) -> Option<u32> {
    volume.strip_prefix("dbrace-ram-")?.parse().ok()
}

/// `hdiutil`'s arguments for an unmounted RAM device of at least `bytes`.
pub fn attach_args(bytes: u64) -> Vec<String> {
    let sectors = bytes.max(MIN_BYTES).div_ceil(512);
    vec!["attach".into(), "-nomount".into(), format!("ram://{sectors}")]
}

/// The device `hdiutil attach` made, from its output ("/dev/disk4   \t\n").
pub fn attached_device(stdout: &str) -> Option<String> {
    stdout.split_whitespace().find(|w| is_whole_disk(w)).map(str::to_string)
}

/// `diskutil`'s arguments to format `device` as HFS+ named `volume`, mounted at once.
pub fn erase_args(volume: &str, device: &str) -> Vec<String> {
    vec!["erasevolume".into(), "HFS+".into(), volume.into(), device.into()]
}

/// Where the formatted volume is mounted, once `diskutil erasevolume` says it finished
/// ("Finished erase on disk4 NAME"; some versions put the name in parentheses).
pub fn mounted_at(stdout: &str, volume: &str) -> Option<PathBuf> {
    let finished = stdout.lines().any(|l| {
        l.strip_prefix("Finished erase on ").is_some_and(|rest| rest.trim_end().trim_end_matches(')').ends_with(volume))
    });
    finished.then(|| PathBuf::from("/Volumes").join(volume))
}

/// `hdiutil`'s arguments to remove `device`; forced when a process still holds it.
pub fn detach_args(device: &str, force: bool) -> Vec<String> {
    let mut args = vec!["detach".to_string(), device.to_string()];
    if force {
        args.push("-force".into());
    }
    args
}

/// Our RAM disks in `hdiutil info`'s output: each ram:// image's device and the pid in
/// its volume's name.
pub fn ours(info: &str) -> Vec<(String, u32)> {
    let mut found = Vec::new();
    for image in info.split("================================================") {
        if !image.lines().any(|l| l.starts_with("image-path") && l.contains("ram://")) {
            continue;
        }
        let disks: Vec<Vec<&str>> = image
            .lines()
            .map(|l| l.split('\t').map(str::trim).collect::<Vec<_>>())
            .filter(|f| f.first().is_some_and(|d| d.starts_with("/dev/disk")))
            .collect();
        let device = disks.iter().map(|f| f[0]).find(|d| is_whole_disk(d));
        let pid = disks.iter().filter_map(|f| f.last()?.strip_prefix("/Volumes/")).find_map(pid_of);
        if let (Some(device), Some(pid)) = (device, pid) {
            found.push((device.to_string(), pid));
        }
    }
    found
}

/// Whether `w` names a whole disk (`/dev/disk4`), not one of its slices (`/dev/disk4s1`).
fn is_whole_disk(w: &str) -> bool {
    w.strip_prefix("/dev/disk").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hdiutil info` on macOS 14 with one RAM disk of ours (pid 4242), one of someone
    /// else's and a mounted .dmg.
    const INFO: &str = "framework       : 671.100.2\ndriver          : 671.100.2\n\
================================================\n\
image-path      : ram://2097152\nimage-alias     : \nshadow-path     : \n\
image-type      : read/write\nsystem-image    : TRUE\nblockcount      : 2097152\n\
blocksize       : 512\nwriteable       : TRUE\nautodiskmount   : FALSE\nremovable       : TRUE\n\
image-encrypted : false\nmounting user   : root\nmounting mode   : <unknown>\nprocess ID      : 93213\n\
/dev/disk4\t                               \t/Volumes/dbrace-ram-4242\n\
================================================\n\
image-path      : ram://1024\nimage-type      : read/write\nprocess ID      : 93300\n\
/dev/disk5\t                               \t/Volumes/scratch\n\
================================================\n\
image-path      : /Users/ada/Downloads/Postgres-2.7.dmg\nimage-type      : UDIF read-only compressed (zlib)\n\
/dev/disk6\tGUID_partition_scheme          \t\n\
/dev/disk6s1\tApple_HFS                      \t/Volumes/dbrace-ram-1\n";

    #[test]
    fn the_commands_ask_for_whole_sectors_of_at_least_the_minimum() {
        assert_eq!(attach_args(1), ["attach", "-nomount", "ram://524288"]);
        assert_eq!(attach_args((1 << 30) + 1), ["attach", "-nomount", "ram://2097153"]);
        assert_eq!(erase_args("dbrace-ram-7", "/dev/disk4"), ["erasevolume", "HFS+", "dbrace-ram-7", "/dev/disk4"]);
        assert_eq!(detach_args("/dev/disk4", true), ["detach", "/dev/disk4", "-force"]);
    }

    #[test]
    fn the_outputs_are_read_as_macos_prints_them() {
        assert_eq!(
            attached_device("/dev/disk4          \t                               \t\n").as_deref(),
            Some("/dev/disk4")
        );
        assert_eq!(attached_device("hdiutil: attach failed - not recognized\n"), None);
        let erased = "Started erase on disk4\nUnmounting disk\nErasing\n\
Initialized /dev/rdisk4 as a 1 GB case-insensitive HFS Plus volume\nMounting disk\n\
Finished erase on disk4 (dbrace-ram-7)\n";
        assert_eq!(mounted_at(erased, "dbrace-ram-7"), Some(PathBuf::from("/Volumes/dbrace-ram-7")));
        let plain = erased.replace("(dbrace-ram-7)", "dbrace-ram-7");
        assert_eq!(mounted_at(&plain, "dbrace-ram-7"), Some(PathBuf::from("/Volumes/dbrace-ram-7")));
        assert_eq!(mounted_at(erased, "dbrace-ram-77"), None, "another volume's erase");
        assert_eq!(mounted_at("Started erase on disk4\nError: -69888: Couldn't unmount disk\n", "dbrace-ram-7"), None);
    }

    #[test]
    fn only_our_ram_disks_are_found_in_hdiutil_info() {
        assert_eq!(ours(INFO), [("/dev/disk4".to_string(), 4242)]);
        assert_eq!(pid_of(&volume_name(31337)), Some(31337));
        assert_eq!(pid_of("dbrace-ram-x"), None);
    }
}
