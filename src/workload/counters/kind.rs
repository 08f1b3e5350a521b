//! The kinds of store counters keep their buckets in, over what an engine offers: rows
//! of a SQL table (sql.rs), or named buckets (store.rs) as hashes (kv.rs) or documents
//! (doc.rs) made kinds by named.rs. The plan reads what they need; a cell picks the one
//! its connection drives.

use super::Totals;
use super::options::CountersOptions;
use crate::engine::Connection;
use crate::error::Result;
use crate::workload::Transactor;
use crate::workload::store::Kind;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Per granularity, the buckets a key holds and how many tracks filled each.
pub(super) type Data<'a> = &'a [Vec<(i64, u64)>];

/// One kind of store for the counters' buckets.
pub(super) trait Keeps: Kind {
    /// A fresh data set, holding `data` for each key if given (the read data set).
    fn prepare(&self, conn: &mut Connection, o: &CountersOptions, data: Option<Data>) -> Result<()>;
    /// A client tracking on `conn`.
    fn writer(&self, conn: Connection, o: &CountersOptions, seed: u64) -> Result<Box<dyn Transactor>>;
    /// A client reading on `conn`, counting its wrong reads in `wrong`.
    fn reader(
        &self,
        conn: Connection,
        o: &CountersOptions,
        seed: u64,
        wrong: Arc<AtomicU64>,
    ) -> Result<Box<dyn Transactor>>;
    /// Every path's sum and the buckets, per granularity; `reach` the buckets each key
    /// may hold, for a store that cannot list its own.
    fn totals(&self, conn: &mut Connection, o: &CountersOptions, reach: Data) -> Result<Totals>;
}
