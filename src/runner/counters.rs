//! A repeat's counters: the server's own (through its engine's client), its processes'
//! (through its launcher) and the data location's disk, each read at the end of the
//! warm-up and again once the clients are told to stop; in between only at the
//! boundaries of `--log-interval` slices, when asked for them.

use crate::counters::{Counters, Device, Usage, delta};
use crate::engine::Instance;
use crate::engine::counters::{CounterReader, Reading};
use crate::instance::device::{self, DeviceId};
use crate::instance::{DataDir, Storage};

/// What one reading found.
pub struct Snapshot {
    /// When it was read.
    pub at: std::time::Instant,
    server: Option<Reading>,
    processes: Option<Usage>,
    client_wait: Option<f64>,
    device: Option<Device>,
}

/// Reads one repeat's counters, twice.
pub struct Probe<'i> {
    reader: Option<Box<dyn CounterReader>>,
    instance: &'i dyn Instance,
    device: Option<DeviceId>,
    unread: Vec<String>,
}

impl<'i> Probe<'i> {
    /// A probe of `instance`, whose files are in `storage`; what cannot be read is said
    /// in the counters, never a failure of the repeat.
    pub fn open(instance: &'i dyn Instance, storage: &Storage) -> Probe<'i> {
        let mut unread = Vec::new();
        let reader = instance.counters().unwrap_or_else(|e| {
            unread.push(format!("server counters: {e}"));
            None
        });
        // Where the log is kept apart, its disk is the one a commit waits for.
        let dir = storage.wal.as_ref().or(storage.data.as_ref()).map(DataDir::path);
        Probe { reader, instance, device: dir.and_then(device::under), unread }
    }

    /// Everything, now.
    pub fn snapshot(&mut self) -> Snapshot {
        let server = self.reader.as_mut().and_then(|r| match r.read() {
            Ok(reading) => Some(reading),
            Err(e) => {
                self.unread.push(format!("server counters: {e}"));
                None
            }
        });
        if server.is_none() {
            // Once unreadable, not asked again: the second reading would mean nothing.
            self.reader = None;
        }
        let processes = if self.instance.embedded() { crate::launcher::usage::own_io() } else { self.instance.usage() };
        Snapshot {
            at: std::time::Instant::now(),
            server,
            processes,
            client_wait: crate::launcher::usage::cpu_wait(std::process::id()),
            device: self.device.and_then(device::sample),
        }
    }

    /// The differences from `a` to `b`.
    pub fn between(&self, a: &Snapshot, b: &Snapshot) -> Counters {
        let server = match (&a.server, &b.server) {
            (Some(a), Some(b)) => delta(a, b),
            _ => Default::default(),
        };
        let figures = self.reader.as_ref().map(|r| r.figures(&server)).unwrap_or_default();
        Counters {
            figures,
            server,
            processes: a.processes.zip(b.processes).map(|(a, b)| a.until(&b)),
            client_cpu_wait_s: a.client_wait.zip(b.client_wait).map(|(a, b)| (b - a).max(0.0)),
            device: a.device.as_ref().zip(b.device.as_ref()).map(|(a, b)| a.until(b)),
            unread: self.unread.clone(),
        }
    }
}
