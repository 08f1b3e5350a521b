//! The transaction loop allocates nothing on the Rust side: the worker loop with the SQLite,
//! PostgreSQL and MySQL (wire) clients, driven as the runner drives them, under a counting global
//! allocator, for every SQL workload (the oltp ones read 100-row ranges to the end, the
//! counters ones write seven buckets or read 24), YCSB A among them, whose reads and updates
//! are recorded as transaction types, a histogram each, as `--by-type` reports them.
//! (SQLite's own memory is SQLite's measured work and does not pass through Rust's
//! allocator.) The Redis client packs its commands into a reused buffer and reads replies in
//! place from another: insert-commit, and every key-value operation, allocate nothing (the
//! counters' key-value side still builds its key list per transaction). insert-commit at ten
//! rows per commit (ten INSERTs in a transaction, ten SETs in one MULTI/EXEC) neither. The open loop of `--rate`
//! (waiting for arrivals, skipping slots past `--latency-limit`) adds none either, nor do
//! `--progress`'s live counters and `--log-interval`'s slice histogram. Nor does sharing a
//! thread (`--threads`): clients as fibers on one event loop, parking on their sockets.

use dbrace::engine::{
    Connection, Engine, HashIncr, Instance, Launch, Machine, Target, mysql::Mysql, postgres::Postgres, redis::Redis,
    sqlite::Sqlite,
};
use dbrace::instance::{DataDir, Storage};
use dbrace::profile::Profile;
use dbrace::runner::control::{Control, MEASURE, Observe};
use dbrace::runner::schedule::Schedule;
use dbrace::runner::worker;
use dbrace::workload::counters::{self, CountersOptions};
use dbrace::workload::insert_commit::options::InsertCommitOptions;
use dbrace::workload::oltp::options::OltpOptions;
use dbrace::workload::ycsb::options::YcsbOptions;
use dbrace::workload::{Loader, Workload, WorkloadOptions, insert_commit::InsertCommit, oltp, tpcb, ycsb};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A throwaway `nosync` server of an engine; its directory goes after it.
struct Server {
    inst: Box<dyn Instance>,
    _storage: Storage,
    _base: tempfile::TempDir,
}

impl Server {
    fn start(engine: &dyn Engine) -> Server {
        // As root, PostgreSQL runs as `postgres`, which must reach the directory.
        let base = if unsafe { libc::geteuid() } == 0 { "/var/tmp" } else { env!("CARGO_TARGET_TMPDIR") };
        let base = tempfile::Builder::new().prefix("dbrace-hot-").tempdir_in(base).unwrap();
        std::fs::set_permissions(base.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let storage = Storage { data: Some(DataDir::create(base.path()).unwrap()), wal: None };
        let (profile, machine) = (Profile::builtin("nosync").unwrap(), Machine::default());
        let inst = engine.launch(&Launch::run(&profile, &Target::Managed, &storage, &machine)).unwrap();
        Server { inst, _storage: storage, _base: base }
    }
}

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // Only the test's own thread is counted: libtest's main thread allocates its "has been
    // running for over 60 seconds" note whenever it is due, which once landed inside a
    // measured window as two allocations the loop never made.
    static COUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn count() {
    if COUNTED.with(|c| c.get()) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Rust allocations made by `n` measured transactions on `engine`, setup excluded.
fn allocations(engine: &dyn Engine, w: &dyn Workload, n: u64) -> u64 {
    allocations_paced(engine, w, n, None, Observe::default(), 1)
}

/// As `allocations`, on an open-loop schedule of `(rate, latency limit)` when given, the
/// client recording what `observe` asks, insert-commit inserting `rows` per commit.
fn allocations_paced(
    engine: &dyn Engine,
    w: &dyn Workload,
    n: u64,
    pace: Option<(f64, Option<Duration>)>,
    observe: Observe,
    rows: u32,
) -> u64 {
    let server = Server::start(engine);
    let inst = &server.inst;
    // Two small oltp tables: a range still reads 100 rows; counters of a few keys.
    let counters = CountersOptions { keys: 3, ..CountersOptions::default() };
    let oltp = OltpOptions { tables: 2, table_size: 1000 };
    let insert_commit = InsertCommitOptions { rows_per_commit: rows };
    let ycsb = YcsbOptions { records: 1000, ..YcsbOptions::default() };
    let opts = WorkloadOptions { oltp, counters, insert_commit, ycsb, ..WorkloadOptions::default() };
    let mut cell = w.prepare(&mut Loader::new(&**inst).unwrap(), &opts).unwrap();
    let tx = cell.client(inst.connect().unwrap(), 0, 1).unwrap();
    // Each type recorded apart, as a run records a workload that mixes them.
    let types = w.types().len();
    let ctl = Control::observed(1, Observe { types, ..observe });
    ctl.phase.store(MEASURE, Ordering::Release);
    let schedule = pace.map(|(rate, limit)| Schedule::new(rate, limit, 7));
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = worker::run_paced(tx, &ctl, 0, Some(n), None, schedule);
    let after = ALLOCS.load(Ordering::Relaxed);
    // Every row of every transaction was inserted: the loop ran what it was asked.
    if w.name() == "insert-commit" {
        let verdict = cell.verify(&mut inst.connect().unwrap(), r.measured).unwrap();
        assert!(verdict.ok, "{} insert-commit × {rows}: {}", engine.name(), verdict.detail);
    }
    // Skipped slots count towards the transactions asked for, as in pgbench.
    assert_eq!(r.measured + r.skipped, n);
    // The skipping path is the one under test when a limit is given.
    assert!(pace.is_none_or(|(_, limit)| limit.is_none() || r.skipped > 0), "no slot skipped at {pace:?}");
    assert!(r.first_error.is_none(), "{:?}", r.first_error);
    assert_eq!(r.types.len(), types);
    if types > 0 {
        assert_eq!(r.types.iter().map(|t| t.transactions).sum::<u64>(), r.measured, "{}", w.name());
        assert!(r.types.iter().all(|t| t.transactions > 0), "{}: a type never drawn", w.name());
    }
    // Observed, the slice holds every transaction (the hour never ends).
    if observe.log_interval.is_some() {
        assert_eq!(r.intervals.iter().map(|i| i.counts.iter().map(|c| c.1).sum::<u64>()).sum::<u64>(), r.measured);
    }
    after - before
}

#[test]
fn no_allocation_per_transaction() {
    COUNTED.with(|c| c.set(true));
    for engine in [&Sqlite as &dyn Engine, &Postgres, &Mysql] {
        for w in [
            &InsertCommit as &dyn Workload,
            &tpcb::TPCB,
            &tpcb::SELECT_ONLY,
            &tpcb::SIMPLE_UPDATE,
            &oltp::OLTP_RW,
            &oltp::OLTP_RO,
            &oltp::OLTP_WO,
            &counters::WRITE,
            &counters::READ,
            &ycsb::YCSB_A,
        ] {
            // Setup inside worker::run (the histogram) is the same for both counts.
            let few = allocations(engine, w, 100);
            let many = allocations(engine, w, 2100);
            let name = format!("{} {}", engine.name(), w.name());
            // The worker's histogram is one allocation: a counter that sees none is broken.
            assert!(few > 0, "{name}: no allocation counted at all");
            assert_eq!(many, few, "{name}: {} allocations for 2000 more transactions", many - few);
        }
    }
    // Here, not in a test of its own: the counter is global, and tests run at once would
    // count each other's allocations.
    // Open loop: 20,000/s waits for most arrivals; 10^7/s with a 50 µs limit skips most slots.
    for pace in [(20_000.0, None), (1e7, Some(Duration::from_micros(50)))] {
        let few = allocations_paced(&Sqlite, &tpcb::TPCB, 100, Some(pace), Observe::default(), 1);
        let many = allocations_paced(&Sqlite, &tpcb::TPCB, 2100, Some(pace), Observe::default(), 1);
        assert_eq!(many, few, "sqlite tpcb at {pace:?}: {} allocations for 2000 more slots", many - few);
    }
    // --progress's gauges and a --log-interval slice (of an hour: no rotation), closed and
    // open loop.
    let observe =
        Observe { progress: true, log_interval: Some(Duration::from_secs(3600)), expected_intervals: 2, types: 0 };
    for (engine, pace) in [(&Sqlite as &dyn Engine, None), (&Postgres, None), (&Sqlite, Some((20_000.0, None)))] {
        let few = allocations_paced(engine, &tpcb::TPCB, 100, pace, observe, 1);
        let many = allocations_paced(engine, &tpcb::TPCB, 2100, pace, observe, 1);
        let name = engine.name();
        assert_eq!(many, few, "{name} tpcb observed at {pace:?}: {} allocations for 2000 more", many - few);
    }
    let few = allocations(&Redis, &InsertCommit, 100);
    let many = allocations(&Redis, &InsertCommit, 2100);
    assert_eq!(many, few, "redis insert-commit: {} allocations for 2000 more transactions", many - few);
    // Ten rows per commit: ten INSERTs in one transaction, ten SETs in one MULTI/EXEC.
    for engine in [&Sqlite as &dyn Engine, &Postgres, &Mysql, &Redis] {
        let rows = |n| allocations_paced(engine, &InsertCommit, n, None, Observe::default(), 10);
        let (few, many) = (rows(100), rows(2100));
        let name = engine.name();
        assert!(few > 0, "{name} insert-commit × 10: no allocation counted at all");
        assert_eq!(many, few, "{name} insert-commit × 10: {} allocations for 2000 more transactions", many - few);
    }
    let (few, many) = (kv_allocations(&Redis, 100), kv_allocations(&Redis, 2100));
    assert_eq!(many, few, "redis client: {} allocations for 2000 more rounds of every operation", many - few);
    // Clients sharing a thread: each parks on its socket and the loop runs the next.
    let on_loops = [
        (&Postgres as &dyn Engine, &tpcb::TPCB as &dyn Workload, 1),
        (&Mysql, &tpcb::TPCB, 1),
        (&Redis, &InsertCommit, 1),
        (&Redis, &InsertCommit, 10),
        (&Postgres, &ycsb::YCSB_A, 1),
    ];
    for (engine, w, rows) in on_loops {
        let (few, many) = (fiber_allocations(engine, w, 100, rows), fiber_allocations(engine, w, 2100, rows));
        let name = format!("{} {} × {rows} on one event loop", engine.name(), w.name());
        assert_eq!(many, few, "{name}: {} allocations for 2000 more transactions per client", many - few);
    }
}

/// Rust allocations made by three clients of `n` measured transactions each, as fibers on
/// one event loop, setup excluded; insert-commit inserts `rows` per commit.
fn fiber_allocations(engine: &dyn Engine, w: &dyn Workload, n: u64, rows: u32) -> u64 {
    let server = Server::start(engine);
    let mut load = Loader::new(&*server.inst).unwrap();
    let insert_commit = InsertCommitOptions { rows_per_commit: rows };
    let ycsb = YcsbOptions { records: 1000, ..YcsbOptions::default() };
    let mut cell =
        w.prepare(&mut load, &WorkloadOptions { insert_commit, ycsb, ..WorkloadOptions::default() }).unwrap();
    let ctl = Control::observed(3, Observe { types: w.types().len(), ..Observe::default() });
    ctl.phase.store(MEASURE, Ordering::Release);
    let ctl = &ctl;
    let tasks: Vec<Box<dyn FnOnce() -> worker::WorkerReport>> = (0..3)
        .map(|i| {
            let tx = cell.client(server.inst.connect().unwrap(), i, 1 + u64::from(i)).unwrap();
            Box::new(move || {
                // Fibers, so the sockets park on the loop rather than block the thread.
                assert!(dbrace::fiber::inside());
                worker::run(tx, ctl, i as usize, Some(n), None)
            }) as _
        })
        .collect();
    let before = ALLOCS.load(Ordering::Relaxed);
    let reports = dbrace::fiber::event_loop::run(tasks).map_err(|e| e.error).unwrap();
    let after = ALLOCS.load(Ordering::Relaxed);
    for r in reports {
        let r = r.unwrap();
        assert_eq!(r.measured, n);
        assert!(r.first_error.is_none(), "{:?}", r.first_error);
    }
    after - before
}

/// Rust allocations made by `n` rounds of every key-value operation on `engine`'s client,
/// the counters' pipelines of 24 HGETALLs and 7 HINCRBYs among them.
fn kv_allocations(engine: &dyn Engine, n: u64) -> u64 {
    let server = Server::start(engine);
    let mut c: Connection = server.inst.connect().unwrap();
    assert!(c.kv().is_some(), "{} is not key-value", engine.name());
    let names: Vec<Vec<u8>> =
        (0..24).map(|i| format!("m-{i}::1h::{}", 1_700_000_000 + 3600 * i).into_bytes()).collect();
    let keys: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    let fields: Vec<(&[u8], &[u8])> = vec![(b"a", b"1"), (b"b.c", b"22"), (b"d", b"333")];
    for k in &keys {
        c.hashes().unwrap().hset(k, &fields).unwrap();
    }
    let incs: Vec<HashIncr> = keys[..7].iter().map(|&key| HashIncr { key, field: b"a", by: -3 }).collect();
    let mut out = Vec::with_capacity(64);
    // Through the connection's accessors, as the workloads reach each capability.
    let round = |c: &mut Connection, out: &mut Vec<u8>| {
        let kv = c.kv().unwrap();
        kv.set(b"k", b"value").unwrap();
        kv.set_all(&mut [b"k0", b"k1", b"k2"].iter().map(|k| &k[..]), b"value").unwrap();
        assert!(kv.get(b"k", out).unwrap() && !kv.get(b"absent", out).unwrap());
        let h = c.hashes().unwrap();
        h.hset(keys[0], &fields[1..]).unwrap();
        h.hincrby(&incs).unwrap();
        let mut seen = 0;
        assert_eq!(h.hgetall(&keys, &mut |_, _, _| seen += 1).unwrap(), 24);
        assert_eq!(seen, 72);
        let z = c.sorted_sets().unwrap();
        z.zadd(b"z", 5, b"m").unwrap();
        assert_eq!(z.zrange_from(b"z", i64::MIN, 10, &mut |_| {}).unwrap(), 1);
    };
    round(&mut c, &mut out);
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..n {
        round(&mut c, &mut out);
    }
    ALLOCS.load(Ordering::Relaxed) - before
}
