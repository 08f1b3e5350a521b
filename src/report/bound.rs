//! What bounds a cell: each resource's share of the cell's time, from its costs per
//! transaction and its throughput, and the largest named (docs/explain.md).
//!
//! A resource busy `D` seconds per transaction at `tps` transactions a second is busy
//! `D × tps / P` of the time, where `P` is how many of it can work at once: one log
//! flush at a time, as many CPUs as the machine has and the clients can use. At one
//! client every step waits for the last, so the shares split each transaction's time and
//! what is left is round trips, waking up and waiting for locks; at more, each share says
//! how near its resource is to full. The durability cost is one share, storage: the wait
//! for the flush, the kernel's work in it, and the wait for a CPU the wake-up after it
//! meets, so that a profile without it gains what the share predicts (1 / (1 − share)),
//! which the report checks against the table (predictions.rs). Waiting for a CPU that
//! others' work held is shown as a share but never named the bound: it says the machine
//! was busy, not what the cell's own work is bound by.

use super::cost::Cost;
use serde::Serialize;

/// Each resource's share of a cell's time, 0–1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Shares {
    /// The durability path: waiting for the log's flush (fsync), the kernel's work in it,
    /// and the wait for a CPU after it.
    pub storage: f64,
    /// The server's CPU outside the flush.
    pub server_cpu: f64,
    /// The clients' CPU (dbrace's).
    pub client: f64,
    /// The disk reading pages the server's cache missed.
    pub disk_reads: f64,
    /// Ready to run, waiting for a CPU that others' work (or the hypervisor) held.
    pub cpu_wait: f64,
    /// What is left: round trips, waking up, locks, idle.
    pub round_trips: f64,
}

/// Shares nearer than this are a tie: the bound names both.
const TIE: f64 = 0.05;
/// Flushes per transaction from which a cell's commits count as flushing.
const FLUSHING: f64 = 0.1;

/// What bounds a cell, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bound {
    /// The largest share of the cell's own work: storage, server CPU, client, disk reads
    /// or round trips. CPU wait is the machine's, not the cell's: it has its share, never
    /// the name.
    pub bound: &'static str,
    /// The second largest, when it is within 0.05 of the largest: a near tie, named so
    /// rather than decided by noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near: Option<&'static str>,
    /// Every share.
    pub shares: Shares,
    /// Where the fsync wait came from: the server's own timing, its threads' I/O waits
    /// (delay accounting), or its fsyncs (or the disk's flushes) times the location's
    /// probed fsync latency.
    pub fsync_from: &'static str,
}

impl Bound {
    /// The bound in words: `storage`, or `storage ≈ server CPU` for a near tie.
    pub fn said(&self) -> String {
        match self.near {
            Some(n) => format!("{} ≈ {n}", self.bound),
            None => self.bound.to_string(),
        }
    }
}

/// What the model needs of a cell.
pub struct Inputs<'a> {
    /// Its costs per transaction.
    pub cost: &'a Cost,
    /// Transactions per second over the repeats that have counters.
    pub tps: f64,
    /// Its clients.
    pub clients: u32,
    /// The machine's CPUs.
    pub cores: usize,
    /// The probed fsync latency where its log is, microseconds (the mean: the
    /// transactions' costs add up as means do).
    pub probe_us: Option<f64>,
    /// The probe's CPU time per fsync there, microseconds.
    pub probe_cpu_us: Option<f64>,
    /// Whether the engine runs in the clients' threads (SQLite): its storage work is then
    /// theirs.
    pub embedded: bool,
}

/// The shares of `i`'s time and the largest; None without a throughput.
pub fn bound(i: &Inputs) -> Option<Bound> {
    if i.tps.is_nan() || i.tps <= 0.0 {
        return None;
    }
    let c = i.cost;
    let clients = f64::from(i.clients.max(1));
    let tx_us = clients * 1e6 / i.tps;
    let off_cpu = off_cpu_flush_us(c, i, tx_us);
    let (fsync_us, fsync_from) = match off_cpu {
        Some(us) => (us, "the client's time off the CPU"),
        None => fsync_wait(c, i.probe_us, tx_us),
    };
    // Time off the CPU holds none of the kernel's work in the flush: that is all counted.
    let probe_cpu_us = i.probe_cpu_us.filter(|_| off_cpu.is_none());
    let cpus = clients.min(i.cores.max(1) as f64);
    let busy = |us: f64, at_once: f64| us / 1e6 * i.tps / at_once;
    // A wake-up after the flush meets the CPUs as the rest of the client's time does: its
    // part of the CPU wait is the flush's part of that time.
    let wait_us = c.cpu_wait_us.unwrap_or(0.0);
    let after_flush_us = wait_us * (busy(fsync_us, 1.0) / clients).min(1.0);
    let (client_us, storage_cpu_us) = client_cpu_us(c, i.embedded, fsync_us, probe_cpu_us);
    let mut s = Shares {
        storage: busy(fsync_us, 1.0) + busy(storage_cpu_us, cpus) + busy(after_flush_us, clients),
        server_cpu: busy(own_cpu_us(c, fsync_us, probe_cpu_us), cpus),
        client: busy(client_us, cpus),
        disk_reads: busy(c.disk_read_us.unwrap_or(0.0), 1.0),
        // A wait holds its client: its share is of the clients' time.
        cpu_wait: busy(wait_us - after_flush_us, clients),
        round_trips: 0.0,
    };
    let parts = s.storage + s.server_cpu + s.client + s.disk_reads + s.cpu_wait;
    if parts > 1.0 {
        // More than the time: work beside the transactions (a server's background
        // threads, several clients at once) overlaps; the parts are scaled down together.
        for v in [&mut s.storage, &mut s.server_cpu, &mut s.client, &mut s.disk_reads, &mut s.cpu_wait] {
            *v /= parts;
        }
    }
    s.round_trips = (1.0 - parts).max(0.0);
    let (bound, near) = largest(&s);
    Some(Bound { bound, near, shares: s, fsync_from })
}

/// The largest of the cell's own shares, and the next when it is a near tie.
fn largest(s: &Shares) -> (&'static str, Option<&'static str>) {
    let mut named = [
        ("storage", s.storage),
        ("server CPU", s.server_cpu),
        ("client", s.client),
        ("disk reads", s.disk_reads),
        ("round trips", s.round_trips),
    ];
    named.sort_by(|a, b| b.1.total_cmp(&a.1));
    (named[0].0, (named[0].1 - named[1].1 < TIE).then_some(named[1].0))
}

/// The server's CPU per transaction outside its fsyncs. An fsync's wait, timed or priced
/// at the probed latency, holds the kernel's work of writing and flushing (on a VM, mostly
/// its exits to the host), which the server's CPU time counts too: that work is the
/// fsync's, counted once, at the probe's CPU per fsync, and never more than the server's
/// kernel time where that is known.
fn own_cpu_us(c: &Cost, fsync_us: f64, probe_cpu_us: Option<f64>) -> f64 {
    let cpu = c.server_cpu_us.unwrap_or(0.0);
    let kernel = c.server_kernel_cpu_us.unwrap_or(f64::INFINITY);
    (cpu - in_fsyncs_us(c, fsync_us, probe_cpu_us, kernel)).max(0.0)
}

/// The kernel's CPU per transaction that the fsync wait already holds: the probe's CPU per
/// fsync, never more than the wait nor than the `kernel` time of whoever flushed.
fn in_fsyncs_us(c: &Cost, fsync_us: f64, probe_cpu_us: Option<f64>, kernel: f64) -> f64 {
    (c.syncs() * probe_cpu_us.unwrap_or(0.0)).min(fsync_us).min(kernel)
}

/// The flush's wait of an embedded engine at one client: the client's time that is neither
/// its CPU nor waiting for one. Nothing else takes it off the CPU (no network, no other
/// client's lock), and it counts the disk's whole flush, which the probe's latency, timed
/// on an idle disk with one small write, does not.
fn off_cpu_flush_us(c: &Cost, i: &Inputs, tx_us: f64) -> Option<f64> {
    let alone = i.embedded && i.clients <= 1 && flushes_its_commits(c);
    alone.then(|| (tx_us - c.client_cpu_us - c.cpu_wait_us.unwrap_or(0.0)).max(0.0))
}

/// Whether the commits wait for flushes: at least `FLUSHING` of them do. The disk's
/// flushes count other processes' too, a few in a run that flushes nothing of its own.
fn flushes_its_commits(c: &Cost) -> bool {
    c.syncs() >= FLUSHING
}

/// The clients' CPU per transaction, and the part of it that is storage's. An embedded
/// engine writes and flushes its files from the clients' threads, and makes no other
/// system calls: where it flushes, their kernel time is its storage layer's, less what the
/// fsync wait already holds; where it does not (ram, nosync), that time is the copy into
/// the page cache, which every profile keeps.
fn client_cpu_us(c: &Cost, embedded: bool, fsync_us: f64, probe_cpu_us: Option<f64>) -> (f64, f64) {
    let Some(kernel) = c.client_kernel_cpu_us.filter(|_| embedded && flushes_its_commits(c)) else {
        return (c.client_cpu_us, 0.0);
    };
    let kernel = kernel.min(c.client_cpu_us);
    (c.client_cpu_us - kernel, kernel - in_fsyncs_us(c, fsync_us, probe_cpu_us, kernel))
}

/// Microseconds a transaction waited for fsync, and from what: the server's own timing,
/// else its threads' I/O waits (delay accounting counts every thread's, background
/// writers' too, so never more than a client's time, `tx_us`, per flush a transaction
/// makes), else its fsyncs or the disk's flushes priced at the probed latency.
fn fsync_wait(c: &Cost, probe_us: Option<f64>, tx_us: f64) -> (f64, &'static str) {
    let syncs = c.syncs();
    match (c.fsync_us, c.fsyncs, c.flushes, probe_us, c.io_wait_us) {
        (Some(us), ..) => (us, "timed by the server"),
        (.., Some(io)) if syncs > 0.0 => (io.min(syncs * tx_us), "the server's I/O waits (delay accounting)"),
        (None, Some(n), _, Some(p), _) => (n * p, "fsyncs × the probed latency"),
        (None, None, Some(n), Some(p), _) => (n * p, "disk flushes × the probed latency"),
        _ => (0.0, "none counted"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(cost: Cost, tps: f64, clients: u32) -> Bound {
        bound(&Inputs {
            cost: &cost,
            tps,
            clients,
            cores: 2,
            probe_us: Some(150.0),
            probe_cpu_us: None,
            embedded: false,
        })
        .unwrap()
    }

    #[test]
    fn a_commit_that_waits_for_its_fsync_is_storage_bound() {
        // PostgreSQL on disk, one client: 1.5 ms in WAL sync of 1.8 ms per transaction.
        let cost = Cost {
            fsyncs: Some(1.0),
            fsync_us: Some(1480.0),
            server_cpu_us: Some(220.0),
            client_cpu_us: 120.0,
            ..Cost::default()
        };
        let b = cell(cost, 549.0, 1);
        assert_eq!(b.bound, "storage");
        assert!((b.shares.storage - 0.81).abs() < 0.01, "{b:?}");
        assert_eq!(b.fsync_from, "timed by the server");
    }

    #[test]
    fn the_kernels_work_in_an_fsync_is_the_fsyncs_not_the_servers_cpu() {
        // PostgreSQL on a VM's fast disk, one client: 290 µs in WAL sync of 916 µs, and
        // 366 µs of server CPU of which the write and flush took 110 (the probe's CPU per
        // fsync); counted twice, the CPU would come out larger than the wait.
        let cost = Cost {
            fsyncs: Some(1.0),
            fsync_us: Some(290.0),
            server_cpu_us: Some(366.0),
            client_cpu_us: 190.0,
            ..Cost::default()
        };
        let with = |cpu| {
            bound(&Inputs {
                cost: &cost,
                tps: 1092.0,
                clients: 1,
                cores: 2,
                probe_us: None,
                probe_cpu_us: cpu,
                embedded: false,
            })
        };
        assert_eq!(with(None).unwrap().bound, "server CPU");
        let b = with(Some(110.0)).unwrap();
        assert_eq!(b.bound, "storage", "{b:?}");
        assert!((b.shares.server_cpu - 256e-6 * 1092.0).abs() < 1e-9, "{b:?}");
        // Never more than the wait itself.
        let b = with(Some(5000.0)).unwrap();
        assert!((b.shares.server_cpu - 76e-6 * 1092.0).abs() < 1e-9, "{b:?}");
    }

    #[test]
    fn without_fsyncs_the_cpu_or_the_round_trips_bound() {
        let cost = Cost { fsyncs: Some(0.0), server_cpu_us: Some(60.0), client_cpu_us: 45.0, ..Cost::default() };
        let b = cell(cost.clone(), 9400.0, 1);
        assert_eq!(b.bound, "server CPU");
        // A busy machine: its wait has a share, the bound is still the cell's own.
        let busy = Cost { cpu_wait_us: Some(200.0), ..cost.clone() };
        let b = cell(busy, 3000.0, 1);
        assert_eq!(b.bound, "server CPU", "{b:?}");
        assert!(b.shares.cpu_wait > 0.5, "{b:?}");
        let b = cell(cost, 2000.0, 1);
        assert_eq!(b.bound, "round trips", "{b:?}");
        assert!((b.shares.round_trips - 0.79).abs() < 0.01, "{b:?}");
    }

    #[test]
    fn an_untimed_fsync_costs_the_probed_latency_and_cpus_share_the_cores() {
        let cost = Cost { fsyncs: Some(0.25), server_cpu_us: Some(300.0), client_cpu_us: 40.0, ..Cost::default() };
        // Eight clients on two cores: 300 µs × 6000 / 2 = 0.9 of both cores.
        let b = cell(cost, 6000.0, 8);
        assert_eq!(b.bound, "server CPU");
        // 0.9 + 0.12 + 0.225 of the time: overlapping, so scaled to add up to all of it.
        let parts = 0.9 + 40e-6 * 6000.0 / 2.0 + 0.25 * 150e-6 * 6000.0;
        assert!((b.shares.storage - 0.25 * 150e-6 * 6000.0 / parts).abs() < 1e-9, "{b:?}");
        let sum = b.shares.storage + b.shares.server_cpu + b.shares.client + b.shares.round_trips;
        assert!((sum - 1.0).abs() < 1e-9, "{b:?}");
        assert_eq!(b.fsync_from, "fsyncs × the probed latency");
    }

    #[test]
    fn misses_that_wait_for_the_disk_are_disk_read_bound() {
        let cost = Cost {
            cache_misses: Some(3.0),
            disk_read_us: Some(900.0),
            server_cpu_us: Some(100.0),
            client_cpu_us: 30.0,
            ..Cost::default()
        };
        assert_eq!(cell(cost, 900.0, 1).bound, "disk reads");
        assert!(
            bound(&Inputs {
                cost: &Cost::default(),
                tps: 0.0,
                clients: 1,
                cores: 2,
                probe_us: None,
                probe_cpu_us: None,
                embedded: false
            })
            .is_none()
        );
    }

    #[test]
    fn an_untimed_flush_costs_the_servers_io_waits_where_the_kernel_counts_them() {
        // MariaDB on disk, one client, 3000 tps: 147 µs of its threads' I/O waits per
        // transaction, against 1.1 fsyncs at the probe's 150 µs.
        let flushing = Cost {
            fsyncs: Some(1.1),
            io_wait_us: Some(147.0),
            server_cpu_us: Some(136.0),
            client_cpu_us: 46.0,
            ..Cost::default()
        };
        let b = cell(flushing.clone(), 3000.0, 1);
        assert_eq!(b.fsync_from, "the server's I/O waits (delay accounting)");
        assert!((b.shares.storage - 147e-6 * 3000.0).abs() < 1e-9, "{b:?}");
        // Background threads' waits overlap the transactions: never more than a
        // transaction's time per flush it makes.
        let b = cell(Cost { io_wait_us: Some(5000.0), ..flushing.clone() }, 3600.0, 1);
        let whole = cell(Cost { io_wait_us: Some(1.1e6 / 3600.0), ..flushing.clone() }, 3600.0, 1);
        assert_eq!(b.shares, whole.shares);
        // MariaDB without the commit's flush: its log flushed once a second, three times
        // in 9000 transactions, while its writers waited.
        let b = cell(Cost { fsyncs: Some(3.0 / 9000.0), io_wait_us: Some(900.0), ..flushing }, 9000.0, 1);
        assert!(b.shares.storage < 0.001, "{b:?}");
    }

    #[test]
    fn an_embedded_engines_flush_is_its_time_off_the_cpu_and_its_kernel_time() {
        // SQLite on disk: 250 µs a transaction at one client, 89 µs of its CPU, 70 of them
        // the kernel's writing and flushing its files, one flush (the probe says 150 µs).
        let cost =
            Cost { flushes: Some(1.0), client_cpu_us: 89.0, client_kernel_cpu_us: Some(70.0), ..Cost::default() };
        let with = |cost: &Cost, embedded, clients| {
            let i = Inputs {
                cost,
                tps: 4000.0,
                clients,
                cores: 2,
                probe_us: Some(150.0),
                probe_cpu_us: Some(20.0),
                embedded,
            };
            bound(&i).unwrap()
        };
        let server = with(&cost, false, 1);
        assert!((server.shares.client - 89e-6 * 4000.0).abs() < 1e-9, "{server:?}");
        let alone = with(&cost, true, 1);
        assert_eq!(alone.fsync_from, "the client's time off the CPU");
        assert!((alone.shares.client - 19e-6 * 4000.0).abs() < 1e-9, "{alone:?}");
        assert!((alone.shares.storage - (250.0 - 89.0 + 70.0) * 1e-6 * 4000.0).abs() < 1e-9, "{alone:?}");
        // Two clients wait for each other's locks off the CPU too: the flush is priced.
        // (The same tps: each client waits twice as long; the kernel time shares two CPUs.)
        let two = with(&cost, true, 2);
        assert_eq!(two.fsync_from, "disk flushes × the probed latency");
        assert!((two.shares.storage - (150.0 + 50.0 / 2.0) * 1e-6 * 4000.0).abs() < 1e-9, "{two:?}");
        // Without its own flushes (ram, nosync) the kernel's copy into the page cache stays.
        let nosync = with(&Cost { flushes: Some(0.01), ..cost.clone() }, true, 1);
        assert!((nosync.shares.client - 89e-6 * 4000.0).abs() < 1e-9, "{nosync:?}");
    }
}
