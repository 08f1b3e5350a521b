//! Workloads: one file or folder each, registered in `all()`. A `Workload` describes
//! itself to the plan (name, the client interfaces it drives, its data set's size);
//! preparing a cell's data set loads it and returns a `CellWorkload`, which hands the
//! runner one `Transactor` per client and verifies the invariant afterwards, for one
//! repeat or for every repeat of a cell that keeps its data. It never names an engine's
//! binary; SQL workloads speak through `SqlClient` only.

pub mod counters;
pub mod figure;
pub mod insert_commit;
mod load;
pub mod oltp;
pub mod options;
pub mod script;
pub mod store;
pub mod tpcb;
pub mod tpcc;
pub mod ycsb;

use crate::engine::{Capability, Connection, Engine, Interface, SqlClient, TxResult};
use crate::error::Result;
pub use crate::results::Verdict;
pub use load::Loader;
pub use options::WorkloadOptions;
use std::sync::Arc;

/// What clients do, as the plan sees it: a name, the client interfaces it drives and the
/// size of its data set. Preparing one repeat of a cell returns a `CellWorkload`, which
/// owns whatever that repeat's clients share.
pub trait Workload: Send + Sync {
    /// The workload's name on the command line.
    fn name(&self) -> &str;
    /// One line of help.
    fn about(&self) -> &str;
    /// The client interfaces it can drive; an engine must hand out one of them.
    fn interfaces(&self) -> &'static [Interface];
    /// Whether it can drive an engine whose clients are of `iface`.
    fn drives(&self, iface: Interface) -> bool {
        self.interfaces().contains(&iface)
    }
    /// The capabilities it needs of an engine whose clients are of `iface`, beyond the
    /// interface's basic operations (none: the interface is enough).
    fn needs(&self, _iface: Interface) -> &'static [Capability] {
        &[]
    }
    /// A capability it needs that engine `e` lacks, if any.
    fn lacks(&self, e: &dyn Engine) -> Option<Capability> {
        self.needs(e.facts().interface).iter().copied().find(|c| !e.facts().capabilities.contains(c))
    }
    /// Whether it can run on engine `e`: it drives its interface and `e` has what it needs.
    fn runs_on(&self, e: &dyn Engine) -> bool {
        self.drives(e.facts().interface) && self.lacks(e).is_none()
    }
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
        format!("--scale {}", opts.tpcb.scale)
    }
    /// Whether a cell may keep its instance and data set from one repeat to the next, as
    /// pgbench and sysbench runs follow one another on the data loaded once: the
    /// `CellWorkload` then serves every repeat, its `verify` counting all their commits.
    /// A workload whose repeats need pristine data says no.
    fn keeps_data(&self) -> bool {
        true
    }
    /// Whether its transactions roll back and its verify counts on their changes being
    /// undone: the plan leaves out engine × profile pairs whose tables keep them.
    fn needs_rollback(&self) -> bool {
        false
    }
    /// The transaction types it mixes, each reported apart (`--by-type`); empty when it
    /// runs one type.
    fn types(&self) -> Vec<String> {
        Vec::new()
    }
    /// Its headline figures, shown under the table and kept in each cell's summary.
    fn figures(&self) -> &'static [figure::Figure] {
        &[]
    }
    /// Create and bulk-load the data set of one repeat of a cell over `load`'s
    /// connections, timing its phases there; the result builds that repeat's clients and
    /// verifies it, and is dropped with it.
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>>;
}

/// A cell's workload on one loaded data set, for as long as the data set is kept: it owns
/// what the clients of its repeats share (YCSB's insert sequence, counters' wrong reads,
/// script runs), so nothing of one data set reaches another.
pub trait CellWorkload: Send {
    /// One client's transaction loop state, owning its connection.
    fn client(&mut self, conn: Connection, id: u32, seed: u64) -> Result<Box<dyn Transactor>>;
    /// Check the workload's invariant after `committed` successful transactions.
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict>;
}

/// One client: runs one transaction per call.
pub trait Transactor: Send {
    /// Run one transaction; on error the runner calls `abort` and may retry. A retry
    /// reuses the values drawn for the failed attempt, as pgbench does.
    fn run_one(&mut self, retry: bool) -> TxResult<()>;
    /// Undo a failed attempt (roll back an open transaction).
    fn abort(&mut self);
    /// The type of the transaction the last `run_one` ran (a retry runs the same one): an
    /// index into the workload's `types`, 0 when it has none.
    fn last_type(&self) -> usize {
        0
    }
    /// The measured phase begins (warm-up is over).
    fn measuring(&mut self) {}
    /// How long the client waits before its next transaction, outside any transaction's
    /// latency (a TPC-C terminal's keying and think times); zero: at once.
    fn pause(&mut self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
    /// Per-statement latency while measured (`--report-per-statement`); empty for
    /// workloads without statements of the user's.
    fn statements(&self) -> Vec<crate::results::StatementLatency> {
        Vec::new()
    }
}

/// Every workload dbrace knows (but scripts, which are built from their files).
pub fn all() -> Vec<Arc<dyn Workload>> {
    vec![
        Arc::new(insert_commit::InsertCommit),
        Arc::new(tpcb::TPCB),
        Arc::new(tpcb::SELECT_ONLY),
        Arc::new(tpcb::SIMPLE_UPDATE),
        Arc::new(tpcc::Tpcc),
        Arc::new(oltp::OLTP_RW),
        Arc::new(oltp::OLTP_RO),
        Arc::new(oltp::OLTP_WO),
        Arc::new(ycsb::YCSB_A),
        Arc::new(ycsb::YCSB_B),
        Arc::new(ycsb::YCSB_C),
        Arc::new(ycsb::YCSB_D),
        Arc::new(ycsb::YCSB_E),
        Arc::new(ycsb::YCSB_F),
        Arc::new(counters::WRITE),
        Arc::new(counters::READ),
    ]
}

/// Look a workload up by name (`script:FILE` builds one from the file, with `script`'s
/// options).
pub fn by_name(name: &str, script: &script::Config) -> Result<Arc<dyn Workload>> {
    if script::is_script(name) {
        return script::load(&[name], script);
    }
    let all = all();
    let names: Vec<String> = all.iter().map(|w| w.name().to_string()).collect();
    all.into_iter().find(|w| w.name() == name).ok_or_else(|| {
        bad_input!("unknown workload '{name}'; valid workloads: {}, {}", names.join(", "), counters::FAMILY)
    })
}

/// Look up a `--workload` list: every `script:` entry joins one mix (as pgbench's
/// repeated `-f`), placed where the first one stands, with `script`'s options; `counters`
/// is its two halves, `counters-write` and `counters-read`, so writes and reads get a row
/// each.
pub fn resolve(names: &[String], script: &script::Config) -> Result<Vec<Arc<dyn Workload>>> {
    let scripts: Vec<&str> = names.iter().map(String::as_str).filter(|n| script::is_script(n)).collect();
    let mut out: Vec<Arc<dyn Workload>> = Vec::new();
    let mut mixed = false;
    for n in names {
        if n == counters::FAMILY {
            out.extend([Arc::new(counters::WRITE) as Arc<dyn Workload>, Arc::new(counters::READ)]);
        } else if !script::is_script(n) {
            out.push(by_name(n, script)?);
        } else if !mixed {
            mixed = true;
            out.push(script::load(&scripts, script)?);
        }
    }
    Ok(out)
}

/// The SQL client inside a connection, or why `workload` cannot drive this one (the plan
/// pairs SQL workloads with SQL engines only, so only a caller past the plan meets it).
pub(crate) fn sql<'a>(conn: &'a mut Connection, workload: &str) -> Result<&'a mut dyn SqlClient> {
    conn.sql().ok_or_else(|| sql_only(workload))
}

/// As `sql`, taking the connection for a client to own.
pub(crate) fn into_sql(conn: Connection, workload: &str) -> Result<Box<dyn SqlClient>> {
    conn.into_sql().map_err(|_| sql_only(workload))
}

fn sql_only(workload: &str) -> crate::error::Error {
    failed!("workload {workload} drives SQL engines only, and was given a key-value or document client")
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
