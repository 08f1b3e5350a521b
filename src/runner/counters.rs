//! A repeat's counters: its processes' (through its launcher) and the data location's
//! disk, read at the end of the warm-up and again once the clients are told to stop; the
//! server's own (through its engine's client) before the clients connect and after they
//! have gone, since a server may hand its counters on late (PostgreSQL's backends, once a
//! second and when they exit): they cover the warm-up too, and say how many transactions
//! they cover. In between, only at the boundaries of `--log-interval` slices.

use super::perf::Recorder;
use super::waits::WaitSampler;
use crate::counters::{Counters, Device, Usage, delta, rise};
use crate::engine::Instance;
use crate::engine::counters::{CounterReader, Reading};
use crate::instance::{DataDir, Storage};
use crate::platform::disk::{self, DeviceId};
use std::path::Path;

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
    /// perf over the server's processes (`--hotspots`), its samples kept within the
    /// measured phase.
    recorder: Option<Recorder>,
    /// The clients' wait events polled from a side connection (`--hotspots`).
    waits: Option<WaitSampler>,
    instance: &'i dyn Instance,
    device: Option<DeviceId>,
    unread: Vec<String>,
}

impl<'i> Probe<'i> {
    /// A probe of `instance`, whose files are in `storage`, sampling its CPU with perf
    /// where `hotspots` names the directory for perf's files; what cannot be read is said in the counters,
    /// never a failure of the repeat.
    pub fn open(instance: &'i dyn Instance, storage: &Storage, hotspots: Option<&Path>) -> Probe<'i> {
        let mut unread = Vec::new();
        let reader = instance.counters().unwrap_or_else(|e| {
            unread.push(format!("server counters: {e}"));
            None
        });
        let pids = || instance.processes().map_or_else(Vec::new, |p| crate::launcher::usage::pids(&p));
        let recorder =
            hotspots.and_then(|at| attached(&pids, at).map_err(|e| unread.push(format!("hotspots: {e}"))).ok());
        let waits = hotspots.and_then(|_| match instance.waits() {
            Ok(reader) => reader.map(WaitSampler::start),
            Err(e) => {
                unread.push(format!("waits: {e}"));
                None
            }
        });
        // Where the log is kept apart, its disk is the one a commit waits for.
        let dir = storage.wal.as_ref().or(storage.data.as_ref()).map(DataDir::path);
        Probe { reader, recorder, waits, instance, device: dir.and_then(disk::under), unread }
    }

    /// `c` with what perf sampled and the wait events polled, once the repeat is over.
    pub fn add_hotspots(&mut self, c: &mut Counters) {
        match self.recorder.take().map(Recorder::finish) {
            Some(Ok(h)) => c.hotspots = Some(h),
            Some(Err(e)) => c.unread.push(format!("hotspots: {e}")),
            None => {}
        }
        match self.waits.take().map(WaitSampler::finish) {
            Some(Ok((waits, polls))) => {
                let h = c.hotspots.get_or_insert_default();
                (h.waits, h.wait_polls) = (waits, polls);
            }
            Some(Err(e)) => c.unread.push(format!("waits: {e}")),
            None => {}
        }
    }

    /// The server's counters now, once what it still owes is in (`settled`).
    pub fn server(&mut self, settled: bool) -> Option<Reading> {
        let reader = self.reader.as_mut()?;
        let read = if settled { reader.read_settled() } else { reader.read() };
        match read {
            Ok(reading) => Some(reading),
            Err(e) => {
                self.unread.push(format!("server counters: {e}"));
                // Once unreadable, not asked again: the second reading would mean nothing.
                self.reader = None;
                None
            }
        }
    }

    /// `c` with the server's counters from `before` to `after`.
    pub fn add_server(&self, c: &mut Counters, before: &Reading, after: &Reading) {
        c.server = delta(before, after);
        c.figures = self.reader.as_ref().map(|r| r.figures(&c.server)).unwrap_or_default();
        c.unread.clone_from(&self.unread);
        c.unread.extend(self.reader.iter().flat_map(|r| r.lacking()));
    }

    /// `f`'s result and the counters over running it: the processes' and the disk's from
    /// just before to just after, the server's until what it owes for `f` is in.
    pub fn over<T>(&mut self, f: impl FnOnce() -> T) -> (T, Counters) {
        let server_before = self.server(false);
        let before = self.snapshot(false);
        let out = f();
        let after = self.snapshot(false);
        let mut c = self.between(&before, &after);
        if let (Some(b), Some(a)) = (server_before, self.server(true)) {
            self.add_server(&mut c, &b, &a);
        }
        (out, c)
    }
}

/// perf attached to the server's processes as they are now; tried again with the new
/// list when one of them exited as perf was attaching (a server's short-lived helper).
fn attached(pids: &dyn Fn() -> Vec<u32>, dir: &Path) -> Result<Recorder, String> {
    let mut tries = 3;
    loop {
        tries -= 1;
        let list = pids();
        match Recorder::start(&list, dir) {
            Err(_) if tries > 0 && pids() != list => continue,
            other => return other,
        }
    }
}

/// What the coordinator reads the counters with.
pub trait Sample: Send {
    /// The processes' and the disk's counters now, and the server's when `with_server`
    /// (a slice's end).
    fn snapshot(&mut self, with_server: bool) -> Snapshot;
    /// The differences from `a` to `b`.
    fn between(&self, a: &Snapshot, b: &Snapshot) -> Counters;
    /// The measured phase begins (`true`) or ends.
    fn measuring(&mut self, on: bool) {
        let _ = on;
    }
}

impl Sample for Probe<'_> {
    fn snapshot(&mut self, with_server: bool) -> Snapshot {
        let server = if with_server { self.server(false) } else { None };
        let processes = if self.instance.embedded() { crate::launcher::usage::own_io() } else { self.instance.usage() };
        Snapshot {
            at: std::time::Instant::now(),
            server,
            processes,
            client_wait: crate::platform::procs::waits(std::process::id()).cpu_s,
            device: self.device.and_then(disk::sample),
        }
    }

    fn between(&self, a: &Snapshot, b: &Snapshot) -> Counters {
        let mut c = Counters {
            processes: a.processes.zip(b.processes).map(|(a, b)| a.until(&b)),
            client_cpu_wait_s: rise(a.client_wait, b.client_wait),
            device: a.device.as_ref().zip(b.device.as_ref()).map(|(a, b)| a.until(b)),
            unread: self.unread.clone(),
            ..Counters::default()
        };
        if let (Some(a), Some(b)) = (&a.server, &b.server) {
            self.add_server(&mut c, a, b);
        }
        c
    }

    fn measuring(&mut self, on: bool) {
        if let Some(r) = self.recorder.as_mut() {
            r.measuring(on);
        }
        if let Some(w) = &self.waits {
            w.measuring(on);
        }
    }
}
