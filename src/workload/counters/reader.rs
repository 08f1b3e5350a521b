//! A client reading ranges of named buckets: one key's buckets of the read granularity,
//! each with every counter a track writes, or the read is wrong.

use super::clock::Ranges;
use super::options::CountersOptions;
use super::pick::{Pick, wrong_read};
use super::store::CounterStore;
use crate::engine::{Connection, TxResult};
use crate::workload::Transactor;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// A client reading ranges of the data set.
struct Reader<S> {
    conn: Connection,
    store: S,
    pick: Pick<usize>,
    values: u64,
    range: Ranges,
    wrong: Arc<AtomicU64>,
}

/// A client reading on `conn`, counting its wrong reads in `wrong`.
pub(super) fn reader<S: CounterStore>(
    conn: Connection,
    o: &CountersOptions,
    seed: u64,
    wrong: Arc<AtomicU64>,
) -> Box<dyn Transactor> {
    Box::new(Reader {
        conn,
        store: S::new(o),
        pick: Pick::new(o, seed),
        values: u64::from(o.values),
        range: Ranges::new(o),
        wrong,
    })
}

impl<S: CounterStore> Transactor for Reader<S> {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, end) = self.pick.next(retry, |rng| self.range.draw(rng));
        let (from, to, starts) = self.range.bounds(end);
        let g = self.range.granularity;
        let (found, fields) = self.store.read(&mut self.conn, m, g, starts)?;
        let want = starts.len() as u64;
        if found != want || fields != want * self.values {
            let said = format!("found {found} buckets and {fields} counters, want {want} and {}", want * self.values);
            return Err(wrong_read(&self.wrong, m, (from, to), g, said));
        }
        Ok(())
    }
    fn abort(&mut self) {}
}
