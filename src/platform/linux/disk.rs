//! The block device under a directory, and what it has done so far, from /proc/diskstats:
//! bytes read and written, and flushes (what a durable fsync asks of a device with a
//! volatile cache). A directory on tmpfs, or in a filesystem without a block device of
//! its own, has none.

use crate::counters::Device;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A block device, by its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceId {
    major: u64,
    minor: u64,
}

/// The device `dir` is stored on; None when it has none (tmpfs, overlay).
pub fn under(dir: &Path) -> Option<DeviceId> {
    let dev = std::fs::metadata(dir).ok()?.dev();
    let id = DeviceId { major: libc::major(dev) as u64, minor: libc::minor(dev) as u64 };
    // Major 0 is the kernel's anonymous devices: tmpfs, overlay, proc.
    (id.major != 0).then_some(id)
}

/// What `id` has done since the machine started.
pub fn sample(id: DeviceId) -> Option<Device> {
    let stats = std::fs::read_to_string("/proc/diskstats").ok()?;
    stats.lines().find_map(|l| parse(l, id))
}

/// One line of /proc/diskstats, if it is `id`'s.
fn parse(line: &str, id: DeviceId) -> Option<Device> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
    if n(0)? as u64 != id.major || n(1)? as u64 != id.minor {
        return None;
    }
    // After major, minor and name: reads (3), merged, sectors read (5), ms reading (6),
    // writes (7), merged, sectors written (9), ms writing, in flight, ms doing I/O,
    // weighted ms, 4 discard fields, flushes (18) and ms flushing (19) since Linux 5.5.
    const SECTOR: f64 = 512.0;
    Some(Device {
        name: f.get(2)?.to_string(),
        read_bytes: n(5)? * SECTOR,
        write_bytes: n(9)? * SECTOR,
        read_s: n(6)? / 1000.0,
        flushes: n(18).unwrap_or(0.0),
        flush_s: n(19).unwrap_or(0.0) / 1000.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diskstats_line_reads_as_bytes_and_flushes() {
        let line = " 254       0 vda 28455 4943 1494082 8877 23643 9766 1622952 13205 0 8052 23250 9426 20 957552 871 4695 296";
        let d = parse(line, DeviceId { major: 254, minor: 0 }).unwrap();
        assert_eq!(d.name, "vda");
        assert_eq!((d.read_bytes, d.write_bytes), (1494082.0 * 512.0, 1622952.0 * 512.0));
        assert_eq!((d.read_s, d.flushes, d.flush_s), (8.877, 4695.0, 0.296));
        assert!(parse(line, DeviceId { major: 254, minor: 1 }).is_none());
    }

    #[test]
    fn tmpfs_has_no_device() {
        assert!(under(Path::new("/dev/shm")).is_none());
    }
}
