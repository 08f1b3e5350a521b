//! What a repeat cost the server, its processes and the data location's disk: counters
//! read just before and just after the measured phase, kept as their differences. The
//! engines read the server's, the launchers its processes', src/instance/device.rs the
//! disk's; the runner takes the differences and reports turn them into figures per
//! transaction.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A repeat's counters, as differences over its measured phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// The server's own counters, by the server's names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub server: BTreeMap<String, f64>,
    /// Transactions the server's counters cover: read before the clients connected and
    /// after they left, they hold the warm-up's too (absent: the measured ones, a slice's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_transactions: Option<u64>,
    /// Those counters under the names every engine shares.
    #[serde(default)]
    pub figures: Figures,
    /// The server's processes (its process group, its container, or dbrace itself for an
    /// embedded engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<Usage>,
    /// Seconds dbrace's own threads (the clients, and an embedded engine) waited for a CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cpu_wait_s: Option<f64>,
    /// The block device under the data location (none on tmpfs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// Where the server's CPU went (`--hotspots`): its sampled call stacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hotspots: Option<crate::hotspots::Hotspots>,
    /// What could not be read, and why, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

/// A server's counters under shared names; absent where the engine has no such counter
/// or it could not be read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Transactions the server committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<f64>,
    /// fsync-like calls on its log or data files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsyncs: Option<f64>,
    /// Seconds those calls took, where the server times them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync_s: Option<f64>,
    /// Bytes written to its write-ahead, redo or append-only log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_bytes: Option<f64>,
    /// Full-page images written to the log (PostgreSQL's first change of a page after a
    /// checkpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_pages: Option<f64>,
    /// Pages (or bytes, as the engine counts) read from files into its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<f64>,
    /// Requests for pages its cache answered or had to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_requests: Option<f64>,
    /// Checkpoints it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoints: Option<f64>,
}

/// What a set of processes used: CPU and bytes through the storage layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// CPU seconds, user + system; absent for an embedded engine, whose CPU is the
    /// clients'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    /// The system (kernel) part of `cpu_s`: the server's syscalls, its writes and
    /// flushes among them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_cpu_s: Option<f64>,
    /// Seconds their threads were off the CPU waiting for storage (the kernel's delay
    /// accounting, where it is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_wait_s: Option<f64>,
    /// Seconds their threads were ready to run but waited for a CPU (others' work, the
    /// hypervisor's steal), from the scheduler's statistics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_s: Option<f64>,
    /// Bytes they caused to be read from storage.
    pub read_bytes: f64,
    /// Bytes they caused to be written to storage.
    pub write_bytes: f64,
}

/// What one block device did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Its name in /proc/diskstats.
    pub name: String,
    /// Bytes read.
    pub read_bytes: f64,
    /// Bytes written.
    pub write_bytes: f64,
    /// Seconds spent reading (all requests added up).
    pub read_s: f64,
    /// Flush requests completed (a durable fsync on a device with a volatile cache).
    pub flushes: f64,
    /// Seconds spent flushing.
    pub flush_s: f64,
}

impl Counters {
    /// Add another repeat's (or shard's) counters; the server's and the device's are
    /// the same machine's when shards share them, so only the processes' usage adds up.
    pub fn add(&mut self, other: &Counters) {
        for (k, v) in &other.server {
            *self.server.entry(k.clone()).or_default() += v;
        }
        self.figures = self.figures.plus(&other.figures);
        self.client_cpu_wait_s = add(self.client_cpu_wait_s, other.client_cpu_wait_s);
        self.server_transactions = match (self.server_transactions, other.server_transactions) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.processes = match (self.processes, other.processes) {
            (Some(a), Some(b)) => Some(a.plus(&b)),
            (a, b) => a.or(b),
        };
        self.device = match (self.device.take(), &other.device) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.or(b.clone()),
        };
        self.hotspots = match (self.hotspots.take(), &other.hotspots) {
            (Some(mut a), Some(b)) => {
                a.add(b);
                Some(a)
            }
            (a, b) => a.or(b.clone()),
        };
        for u in &other.unread {
            if !self.unread.contains(u) {
                self.unread.push(u.clone());
            }
        }
    }
}

/// Both, added up where both are; either where one is.
fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// What a counter went up by from `a` (earlier) to `b`; none unless both were read.
pub fn rise(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| (b - a).max(0.0))
}

impl Figures {
    fn plus(&self, o: &Figures) -> Figures {
        Figures {
            commits: add(self.commits, o.commits),
            fsyncs: add(self.fsyncs, o.fsyncs),
            fsync_s: add(self.fsync_s, o.fsync_s),
            log_bytes: add(self.log_bytes, o.log_bytes),
            full_pages: add(self.full_pages, o.full_pages),
            cache_misses: add(self.cache_misses, o.cache_misses),
            cache_requests: add(self.cache_requests, o.cache_requests),
            checkpoints: add(self.checkpoints, o.checkpoints),
        }
    }
}

impl Usage {
    /// Both added up.
    pub fn plus(&self, o: &Usage) -> Usage {
        Usage {
            cpu_s: add(self.cpu_s, o.cpu_s),
            system_cpu_s: add(self.system_cpu_s, o.system_cpu_s),
            io_wait_s: add(self.io_wait_s, o.io_wait_s),
            cpu_wait_s: add(self.cpu_wait_s, o.cpu_wait_s),
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
        }
    }

    /// What was used from `self` (earlier) to `later`.
    pub fn until(&self, later: &Usage) -> Usage {
        Usage {
            cpu_s: rise(self.cpu_s, later.cpu_s),
            system_cpu_s: rise(self.system_cpu_s, later.system_cpu_s),
            io_wait_s: rise(self.io_wait_s, later.io_wait_s),
            cpu_wait_s: rise(self.cpu_wait_s, later.cpu_wait_s),
            read_bytes: (later.read_bytes - self.read_bytes).max(0.0),
            write_bytes: (later.write_bytes - self.write_bytes).max(0.0),
        }
    }
}

impl Device {
    fn plus(&self, o: &Device) -> Device {
        Device {
            name: self.name.clone(),
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
            read_s: self.read_s + o.read_s,
            flushes: self.flushes + o.flushes,
            flush_s: self.flush_s + o.flush_s,
        }
    }

    /// What the device did from `self` (earlier) to `later`.
    pub fn until(&self, later: &Device) -> Device {
        let d = |a: f64, b: f64| (b - a).max(0.0);
        Device {
            name: self.name.clone(),
            read_bytes: d(self.read_bytes, later.read_bytes),
            write_bytes: d(self.write_bytes, later.write_bytes),
            read_s: d(self.read_s, later.read_s),
            flushes: d(self.flushes, later.flushes),
            flush_s: d(self.flush_s, later.flush_s),
        }
    }
}

/// The differences of a server's counters from `before` to `after`, each counter the
/// second reading has; one that went down (a reset) counts from zero.
pub fn delta(before: &BTreeMap<String, f64>, after: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    after
        .iter()
        .map(|(k, b)| {
            let a = before.get(k).copied().unwrap_or(0.0);
            (k.clone(), if *b >= a { b - a } else { *b })
        })
        .collect()
}
