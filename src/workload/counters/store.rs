//! Named buckets: what the counters' key-value and document stores share. A bucket is
//! one hash or document named `metric-00042::1h::1702598400`; its counters are added to
//! by increments and read by ranges. The generic load (load.rs), writer (writer.rs),
//! reader (reader.rs) and sums (verify.rs) drive any `CounterStore`; named.rs makes it a
//! kind of store.

use super::buckets::Granularity;
use super::options::CountersOptions;
use crate::engine::{Connection, TxResult};
use crate::error::Result;
use crate::workload::store::Need;
use std::io::Write;

/// Receives each counter a store walks: its bucket's name, its path, its value or why
/// it has none.
pub(super) type Counter<'a> = dyn FnMut(&str, &str, std::result::Result<i64, String>) + 'a;

/// A store of named buckets; each method gets the connection it works on.
pub(super) trait CounterStore: Send + Sized + 'static {
    /// What it needs of an engine.
    const NEED: Need;
    /// One increment of one counter of one bucket, as the store takes it.
    type Incr<'a>: Copy;
    /// The increment of counter `path` of the bucket named `bucket` by `by`.
    fn incr<'a>(bucket: &'a str, path: &'a str, by: i64) -> Self::Incr<'a>;
    /// A client's store for a cell's options (its buffers, its way of writing).
    fn new(o: &CountersOptions) -> Self;
    /// Start a fresh data set.
    fn fresh(_conn: &mut Connection) -> Result<()> {
        Ok(())
    }
    /// Add a load batch's increments, in one round trip.
    fn load(&mut self, conn: &mut Connection, incs: &[Self::Incr<'_>]) -> TxResult<()>;
    /// Add one track's increments (each bucket's consecutive).
    fn track(&mut self, conn: &mut Connection, incs: &[Self::Incr<'_>]) -> TxResult<()>;
    /// Read the buckets of metric `m` at `g` that start at `starts` (in time order); the
    /// buckets found and the counters they held.
    fn read(&mut self, conn: &mut Connection, m: &str, g: Granularity, starts: &[i64]) -> TxResult<(u64, u64)>;
    /// Hand `counter` every counter of the buckets of the `keys` metrics, which may start
    /// at `starts` (per granularity).
    fn walk(&mut self, conn: &mut Connection, keys: u32, starts: &[Vec<i64>], counter: &mut Counter) -> Result<()>;
}

/// Append the name of a bucket.
pub(super) fn bucket_name(out: &mut Vec<u8>, m: &str, g: Granularity, start: i64) {
    let _ = write!(out, "{m}::{}::{start}", g.code());
}

/// The text of names written by `bucket_name` (ASCII by construction).
pub(super) fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
}
