//! A short fdatasync probe, as pg_test_fsync does: the cost of one durable commit here.

use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
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
}

const BLOCK: usize = 8192;
const FILE_BLOCKS: u64 = 256;

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
    let budget = Duration::from_millis(200);
    let start = Instant::now();
    let mut times = Vec::new();
    let cpu_start = thread_cpu_us();
    let mut i = 0u64;
    while (times.len() < 10 || (start.elapsed() < budget && times.len() < 2000)) && crate::signals::pending().is_none()
    {
        f.seek(SeekFrom::Start((i % FILE_BLOCKS) * BLOCK as u64))?;
        let t = Instant::now();
        f.write_all(&block)?;
        f.sync_data()?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
        i += 1;
    }
    if times.is_empty() {
        return Err(std::io::Error::other("interrupted"));
    }
    let cpu_us = Some((thread_cpu_us() - cpu_start) / times.len() as f64);
    times.sort_by(f64::total_cmp);
    Ok(FsyncProbe {
        ops: times.len() as u32,
        median_us: crate::stats::median(&times),
        avg_us: times.iter().sum::<f64>() / times.len() as f64,
        max_us: *times.last().unwrap_or(&0.0),
        cpu_us,
    })
}

/// The CPU time this thread has used, microseconds.
fn thread_cpu_us() -> f64 {
    crate::platform::cpu::thread().as_secs_f64() * 1e6
}
