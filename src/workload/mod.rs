//! Workloads: one file each. A workload loads its data, hands the runner one
//! `Transactor` per client, and verifies its invariant afterwards. It never names an
//! engine's binary; SQL workloads speak through `SqlClient` only.

pub mod counters;
pub mod insert_commit;
pub mod oltp;
pub mod script;
pub mod tpcb;
pub mod ycsb;

use crate::engine::{Connection, Interface, KvClient, SqlClient, TxResult};
use crate::error::Result;
pub use crate::options::workload::{Verdict, WorkloadOptions};

/// What clients do.
pub trait Workload: Sync {
    /// The workload's name on the command line.
    fn name(&self) -> &'static str;
    /// One line of help.
    fn about(&self) -> &'static str;
    /// Whether it can drive this kind of client.
    fn supports(&self, iface: Interface) -> bool;
    /// Refuse options this workload cannot run with, before anything starts.
    fn check(&self, _opts: &WorkloadOptions) -> Result<()> {
        Ok(())
    }
    /// Bytes the data set may take on disk, with headroom for a log (0: small or unknown).
    fn estimated_bytes(&self, _opts: &WorkloadOptions) -> u64 {
        0
    }
    /// The options that size the data set, as given (for a message that it is too big).
    fn size_options(&self, opts: &WorkloadOptions) -> String {
        format!("--scale {}", opts.scale)
    }
    /// Create and bulk-load the data set.
    fn prepare(&self, conn: &mut Connection, opts: &WorkloadOptions) -> Result<()>;
    /// One client's transaction loop state, owning its connection.
    fn client(&self, conn: Connection, id: u32, seed: u64, opts: &WorkloadOptions) -> Result<Box<dyn Transactor>>;
    /// Check the workload's invariant after `committed` successful transactions.
    fn verify(&self, conn: &mut Connection, committed: u64, opts: &WorkloadOptions) -> Result<Verdict>;
}

/// One client: runs one transaction per call.
pub trait Transactor: Send {
    /// Run one transaction; on error the runner calls `abort` and may retry. A retry
    /// reuses the values drawn for the failed attempt, as pgbench does.
    fn run_one(&mut self, retry: bool) -> TxResult<()>;
    /// Undo a failed attempt (roll back an open transaction).
    fn abort(&mut self);
    /// The measured phase begins (warm-up is over).
    fn measuring(&mut self) {}
    /// Per-statement latency while measured (`--report-per-statement`); empty for
    /// workloads without statements of the user's.
    fn statements(&self) -> Vec<crate::results::StatementLatency> {
        Vec::new()
    }
}

/// Every workload dbrace knows.
pub fn all() -> &'static [&'static dyn Workload] {
    &[
        &insert_commit::InsertCommit,
        &tpcb::TPCB,
        &tpcb::SELECT_ONLY,
        &tpcb::SIMPLE_UPDATE,
        &oltp::OLTP_RW,
        &oltp::OLTP_RO,
        &oltp::OLTP_WO,
        &ycsb::YCSB_A,
        &ycsb::YCSB_B,
        &ycsb::YCSB_C,
        &ycsb::YCSB_D,
        &ycsb::YCSB_E,
        &ycsb::YCSB_F,
        &counters::WRITE,
        &counters::READ,
    ]
}

/// Look a workload up by name (`script:FILE` builds one from the file).
pub fn by_name(name: &str) -> Result<&'static dyn Workload> {
    if script::is_script(name) {
        return script::load(&[name]);
    }
    all().iter().copied().find(|w| w.name() == name).ok_or_else(|| {
        let mut names: Vec<_> = all().iter().map(|w| w.name()).collect();
        names.push(counters::FAMILY);
        bad_input!("unknown workload '{name}'; valid workloads: {}", names.join(", "))
    })
}

/// Look up a `--workload` list: every `script:` entry joins one mix (as pgbench's
/// repeated `-f`), placed where the first one stands; `counters` is its two halves,
/// `counters-write` and `counters-read`, so writes and reads get a row each.
pub fn resolve(names: &[String]) -> Result<Vec<&'static dyn Workload>> {
    let scripts: Vec<&str> = names.iter().map(String::as_str).filter(|n| script::is_script(n)).collect();
    let mut out = Vec::new();
    let mut mixed = false;
    for n in names {
        if n == counters::FAMILY {
            out.extend([&counters::WRITE as &dyn Workload, &counters::READ]);
        } else if !script::is_script(n) {
            out.push(by_name(n)?);
        } else if !mixed {
            mixed = true;
            out.push(script::load(&scripts)?);
        }
    }
    Ok(out)
}

/// The SQL client inside a connection (the plan only pairs SQL workloads with SQL engines).
pub(crate) fn sql(conn: &mut Connection) -> &mut dyn SqlClient {
    match conn {
        Connection::Sql(c) => c.as_mut(),
        Connection::Kv(_) => unreachable!("plan pairs SQL workloads with SQL engines only"),
    }
}

/// The key-value client inside a connection.
pub(crate) fn kv(conn: &mut Connection) -> &mut dyn KvClient {
    match conn {
        Connection::Kv(c) => c.as_mut(),
        Connection::Sql(_) => {
            unreachable!("plan pairs key-value workloads with key-value engines only")
        }
    }
}

/// Rows for a bulk load that stop coming once Ctrl-C or SIGTERM arrives, so a large
/// load does not hold the run hostage; the runner checks for the signal right after.
pub(crate) fn until_signal<I: Iterator>(rows: I) -> impl Iterator<Item = I::Item> {
    rows.enumerate().take_while(|(i, _)| i % 4096 != 0 || crate::signals::pending().is_none()).map(|(_, r)| r)
}

/// Turn a client error during setup or verify into a run failure naming the step.
pub(crate) fn step<T>(what: &str, r: TxResult<T>) -> Result<T> {
    r.map_err(|e| failed!("{what}: {e}"))
}
