//! What a transaction cost, from the counters of a cell's measured repeats: their
//! differences added up over the repeats and divided by the transactions measured.

use crate::counters::Counters;
use crate::results::RepeatResult;
use serde::Serialize;

/// A cell's costs per transaction; a figure is absent where no repeat had its counter.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    /// fsync-like calls the server made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsyncs: Option<f64>,
    /// Microseconds the server spent in them, where it times them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsync_us: Option<f64>,
    /// Flush requests the data location's disk completed (anyone's on that disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flushes: Option<f64>,
    /// Bytes of write-ahead, redo or append-only log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_bytes: Option<f64>,
    /// Full-page images in the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_pages: Option<f64>,
    /// Bytes written to the data location's disk (anyone's on that disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_write_bytes: Option<f64>,
    /// Bytes the server's processes (an embedded engine's: dbrace's) wrote through the
    /// storage layer, flushed or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_write_bytes: Option<f64>,
    /// Bytes read from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_read_bytes: Option<f64>,
    /// Microseconds the disk spent reading for the server: the disk's reading time in the
    /// share of its bytes read that the server's processes read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_read_us: Option<f64>,
    /// Pages the server read into its cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<f64>,
    /// Share of page requests its cache answered, 0–1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_hit_ratio: Option<f64>,
    /// Microseconds of the server's CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us: Option<f64>,
    /// The kernel's part of `server_cpu_us`: its system calls, the log's writes and
    /// flushes among them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_kernel_cpu_us: Option<f64>,
    /// Microseconds the server's threads were off the CPU waiting for storage (the
    /// kernel's delay accounting, where it is on): the flush's wait, and any other thread's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_wait_us: Option<f64>,
    /// Microseconds of the clients' CPU.
    pub client_cpu_us: f64,
    /// The kernel's part of it, where the platform splits a thread's CPU: an embedded
    /// engine's file writes and flushes among it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_kernel_cpu_us: Option<f64>,
    /// Microseconds the server's and the clients' threads were ready to run but waited
    /// for a CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_wait_us: Option<f64>,
    /// Checkpoints the server ran while measured (in all, not per transaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoints: Option<f64>,
    /// What could not be read, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

impl Cost {
    /// Flushes per transaction: the server's fsyncs, else the disk's flushes; none counted
    /// is none.
    pub fn syncs(&self) -> f64 {
        self.fsyncs.or(self.flushes).unwrap_or(0.0)
    }

    /// The costs over `repeats` that have counters; None when none has.
    pub fn of(repeats: &[&RepeatResult]) -> Option<Cost> {
        let with: Vec<&&RepeatResult> = repeats.iter().filter(|r| r.counters.is_some()).collect();
        let tx: u64 = with.iter().map(|r| r.transactions).sum();
        if tx == 0 {
            return None;
        }
        let mut all = Counters::default();
        for r in &with {
            all.add(r.counters.as_ref()?);
        }
        let client = Client {
            cpu_s: with.iter().map(|r| r.client_cpu_s).sum(),
            kernel_cpu_s: with.iter().map(|r| r.client_kernel_cpu_s).sum(),
        };
        Some(Cost::per(&all, &client, tx as f64))
    }

    /// `c` and the clients' CPU over `tx` measured transactions (the server's counters
    /// over the transactions they cover, where they say).
    pub fn per(c: &Counters, client: &Client, tx: f64) -> Cost {
        let (f, disk, procs) = (&c.figures, c.device.as_ref(), c.processes.as_ref());
        let each = |v: Option<f64>| v.map(|v| v / tx);
        let server_tx = c.server_transactions.filter(|n| *n > 0).map_or(tx, |n| n as f64);
        let server = |v: Option<f64>| v.map(|v| v / server_tx);
        let requests = f.cache_requests.filter(|r| *r > 0.0);
        Cost {
            fsyncs: server(f.fsyncs),
            fsync_us: server(f.fsync_s.map(|s| s * 1e6)),
            flushes: each(disk.map(|d| d.flushes)),
            log_bytes: server(f.log_bytes),
            full_pages: server(f.full_pages),
            disk_write_bytes: each(disk.map(|d| d.write_bytes)),
            server_write_bytes: each(procs.map(|p| p.write_bytes)),
            disk_read_bytes: each(disk.map(|d| d.read_bytes)),
            disk_read_us: each(disk.zip(procs).map(|(d, p)| d.read_s * 1e6 * share(p.read_bytes, d.read_bytes))),
            cache_misses: server(f.cache_misses),
            cache_hit_ratio: requests.zip(f.cache_misses).map(|(r, m)| (1.0 - m / r).clamp(0.0, 1.0)),
            server_cpu_us: each(procs.and_then(|p| p.cpu_s).map(|s| s * 1e6)),
            server_kernel_cpu_us: each(procs.and_then(|p| p.system_cpu_s).map(|s| s * 1e6)),
            io_wait_us: each(procs.and_then(|p| p.io_wait_s).map(|s| s * 1e6)),
            client_cpu_us: client.cpu_s * 1e6 / tx,
            client_kernel_cpu_us: client.kernel_cpu_s.map(|s| s * 1e6 / tx),
            cpu_wait_us: each(
                procs
                    .and_then(|p| p.cpu_wait_s)
                    .into_iter()
                    .chain(c.client_cpu_wait_s)
                    .reduce(|a, b| a + b)
                    .map(|s| s * 1e6),
            ),
            checkpoints: f.checkpoints,
            unread: c.unread.clone(),
        }
    }
}

/// The clients' CPU seconds over some repeats, and the kernel's part where counted.
pub struct Client {
    /// User + system.
    pub cpu_s: f64,
    /// The system part.
    pub kernel_cpu_s: Option<f64>,
}

/// `part` of `whole`, at most all of it; none of nothing.
fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 { (part / whole).min(1.0) } else { 0.0 }
}
