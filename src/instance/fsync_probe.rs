//! A short fdatasync probe, as pg_test_fsync does: the cost of one durable commit here;
//! where that sync leaves the commit in the drive's cache (macOS), the flush that does not.

use crate::error::Result;
use crate::platform::storage;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// What the probe measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FsyncProbe {
    /// Number of 8 KiB write + fdatasync operations timed.
    pub ops: u32,
    /// Median time of one operation, microseconds.
    pub median_us: f64,
    /// Mean time of one operation, microseconds.
    pub avg_us: f64,
    /// Slowest operation, microseconds.
    pub max_us: f64,
    /// Mean CPU time the probing thread spent in one operation, microseconds: the
    /// kernel's work of writing and flushing (on a VM, its exits to the host), which a
    /// server's timed fsync holds and its CPU time counts too. None in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<f64>,
    /// Where the engines' sync leaves a commit in the drive's cache (macOS): the median of
    /// one write + the sync that flushes it (F_FULLFSYNC), microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_flush_us: Option<f64>,
}

const BLOCK: usize = 8192;
const FILE_BLOCKS: u64 = 256;

impl FsyncProbe {
    /// The drive flush's median in words, where it was timed: ", 24.1 ms with the drive's
    /// cache flushed".
    pub fn drive_flush_words(&self) -> String {
        self.drive_flush_us
            .map_or(String::new(), |us| format!(", {:.3} ms with the drive's cache flushed", us / 1000.0))
    }
}

/// Time 8 KiB write + fdatasync in `dir` for up to ~200 ms (at least 10 operations).
pub fn probe(dir: &Path) -> Result<FsyncProbe> {
    let path = crate::instance::datadir::scratch(dir, "fsync");
    let res = run(&path);
    let _ = std::fs::remove_file(&path);
    crate::signals::check()?;
    res.map_err(|e| failed!("fsync probe in {} failed: {e}", dir.display()))
}

fn run(path: &Path) -> std::io::Result<FsyncProbe> {
    let mut f = OpenOptions::new().create(true).truncate(true).read(true).write(true).open(path)?;
    let block = [0x5au8; BLOCK];
    for _ in 0..FILE_BLOCKS {
        f.write_all(&block)?;
    }
    f.sync_all()?;
    let cpu_start = thread_cpu_us();
    let mut times = timed(&mut f, Duration::from_millis(200), storage::sync)?;
    let cpu_us = Some((thread_cpu_us() - cpu_start) / times.len() as f64);
    let drive_flush_us = match storage::drive_flush(&f) {
        Some(first) => {
            first?;
            let flush = |f: &File| storage::drive_flush(f).unwrap_or(Ok(()));
            Some(crate::stats::median(&sorted(timed(&mut f, Duration::from_millis(300), flush)?)))
        }
        None => None,
    };
    times = sorted(times);
    Ok(FsyncProbe {
        ops: times.len() as u32,
        median_us: crate::stats::median(&times),
        avg_us: times.iter().sum::<f64>() / times.len() as f64,
        max_us: *times.last().unwrap_or(&0.0),
        cpu_us,
        drive_flush_us,
    })
}

/// Microseconds of each 8 KiB write + `sync` for about `budget` (at least 10, at most
/// 2000), stopped early by a signal.
fn timed(f: &mut File, budget: Duration, sync: impl Fn(&File) -> std::io::Result<()>) -> std::io::Result<Vec<f64>> {
    let block = [0x5au8; BLOCK];
    let start = Instant::now();
    let mut times = Vec::new();
    let mut i = 0u64;
    while (times.len() < 10 || (start.elapsed() < budget && times.len() < 2000)) && crate::signals::pending().is_none()
    {
        f.seek(SeekFrom::Start((i % FILE_BLOCKS) * BLOCK as u64))?;
        let t = Instant::now();
        f.write_all(&block)?;
        sync(f)?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
        i += 1;
    }
    if times.is_empty() {
        return Err(std::io::Error::other("interrupted"));
    }
    Ok(times)
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// The CPU time this thread has used, microseconds.
fn thread_cpu_us() -> f64 {
    crate::platform::cpu::thread().total.as_secs_f64() * 1e6
}
