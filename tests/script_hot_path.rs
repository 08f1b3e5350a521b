//! A script transaction allocates nothing on the Rust side once warm: variables in their
//! table, parameters borrowed, doubles spelled into reused text, `\gset` rows staged in
//! reused buffers, per-statement timing in counters, a mix's scripts recorded as
//! transaction types — under a counting global allocator, driven as the runner drives
//! clients, on SQLite and PostgreSQL.

use dbrace::engine::{Engine, Launch, Machine, Target, postgres::Postgres, sqlite::Sqlite};
use dbrace::instance::{DataDir, Storage};
use dbrace::profile::Profile;
use dbrace::runner::control::{Control, MEASURE, Observe};
use dbrace::runner::worker;
use dbrace::workload::tpcb::options::TpcbOptions;
use dbrace::workload::{self, WorkloadOptions, script};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Rust allocations made by `n` measured transactions of `w` on `engine`, setup excluded.
fn allocations(engine: &dyn Engine, w: &dyn workload::Workload, n: u64) -> u64 {
    let base = if unsafe { libc::geteuid() } == 0 { "/var/tmp" } else { env!("CARGO_TARGET_TMPDIR") };
    let base = tempfile::Builder::new().prefix("dbrace-script-hot-").tempdir_in(base).unwrap();
    std::fs::set_permissions(base.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let storage = Storage { data: Some(DataDir::create(base.path()).unwrap()), wal: None };
    let (profile, machine) = (Profile::builtin("nosync").unwrap(), Machine::default());
    let inst = engine.launch(&Launch::run(&profile, &Target::Managed, &storage, &machine)).unwrap();
    let opts = WorkloadOptions { tpcb: TpcbOptions { scale: 1 }, ..WorkloadOptions::default() };
    let mut cell = w.prepare(&mut workload::Loader::new(&*inst).unwrap(), &opts).unwrap();
    let tx = cell.client(inst.connect().unwrap(), 0, 1).unwrap();
    // A mix's scripts recorded apart, as a run records them.
    let ctl = Control::observed(1, Observe { types: w.types().len(), ..Observe::default() });
    ctl.phase.store(MEASURE, Ordering::Release);
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = worker::run(tx, &ctl, 0, Some(n), None);
    let after = ALLOCS.load(Ordering::Relaxed);
    assert_eq!(r.measured, n);
    assert!(r.first_error.is_none(), "{:?}", r.first_error);
    assert!(!r.statements.is_empty(), "per-statement timing was on");
    assert_eq!(r.types.iter().map(|t| t.transactions).sum::<u64>(), if r.types.is_empty() { 0 } else { n });
    after - before
}

#[test]
fn no_allocation_per_script_transaction() {
    let dir = tempfile::tempdir().unwrap();
    // Doubles and booleans as parameters, an \if, a compound, \gset and \aset.
    let mixed = dir.path().join("mixed.sql");
    std::fs::write(
        &mixed,
        "\\set r random_exponential(1, 1000, 2.5) / 3.0\n\\set big :r > 100\n\\if :big\n\\set k 1 + permute(int(:r), 1000)\n\\else\n\\set k 2\n\\endif\nSELECT abalance, :r AS r FROM pgbench_accounts WHERE aid = :k \\gset\nSELECT :big \\; SELECT 1 AS one \\aset\n",
    )
    .unwrap();
    let config = script::Config {
        defines: vec![("delta".into(), "3".into()), ("aid".into(), "17".into())],
        per_statement: true,
        ..script::Config::default()
    };
    let files = [
        format!("{}/tests/scripts/tpcb-like.sql", env!("CARGO_MANIFEST_DIR")),
        format!("{}/tests/scripts/gset.sql", env!("CARGO_MANIFEST_DIR")),
        mixed.display().to_string(),
    ];
    for engine in [&Sqlite as &dyn Engine, &Postgres] {
        for f in &files {
            let w = workload::by_name(&format!("script:{f}"), &config).unwrap();
            // Setup inside worker::run (the histogram, the statement report) is the same for both counts.
            let few = allocations(engine, &*w, 100);
            let many = allocations(engine, &*w, 2100);
            assert_eq!(many, few, "{} {f}: {} allocations for 2000 more transactions", engine.name(), many - few);
        }
        // The three as one mix: each script a transaction type with its histogram.
        let entries: Vec<String> = files.iter().zip(1..).map(|(f, w)| format!("script:{f}@{w}")).collect();
        let w = script::load(&entries.iter().map(String::as_str).collect::<Vec<_>>(), &config).unwrap();
        assert_eq!(w.types().len(), 3);
        let (few, many) = (allocations(engine, &*w, 100), allocations(engine, &*w, 2100));
        assert_eq!(many, few, "{} mix: {} allocations for 2000 more transactions", engine.name(), many - few);
    }
}
