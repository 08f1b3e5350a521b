//! A client tracking on named buckets: each track adds its counters to the seven buckets
//! of its moment, as the store writes them (one round trip, or one per bucket).

use super::buckets::Granularity;
use super::clock::Clock;
use super::options::{CountersOptions, MAX_VALUES};
use super::pick::Pick;
use super::store::{CounterStore, bucket_name, text};
use super::{increment, paths};
use crate::engine::{Connection, TxResult};
use crate::workload::Transactor;

/// A client tracking.
struct Writer<S> {
    conn: Connection,
    store: S,
    pick: Pick<i64>,
    fields: Vec<String>,
    clock: Clock,
    /// The seven bucket names of the current track, end to end, and where each ends.
    names: Vec<u8>,
    ends: [usize; 8],
}

/// A client tracking on `conn`.
pub(super) fn writer<S: CounterStore>(conn: Connection, o: &CountersOptions, seed: u64) -> Box<dyn Transactor> {
    Box::new(Writer {
        conn,
        store: S::new(o),
        pick: Pick::new(o, seed),
        fields: paths(o.values),
        clock: Clock::new(o),
        names: Vec::with_capacity(256),
        ends: [0; 8],
    })
}

impl<S: CounterStore> Transactor for Writer<S> {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, at) = self.pick.next(retry, |_| self.clock.tick());
        self.names.clear();
        for g in Granularity::ALL {
            bucket_name(&mut self.names, m, g, g.floor(at));
            self.ends[g.index() + 1] = self.names.len();
        }
        // The increments borrow this call's names and fields: on the stack, not allocated.
        let mut incs = [S::incr("", "", 0); 7 * MAX_VALUES as usize];
        let mut n = 0;
        for w in self.ends.windows(2) {
            let name = text(&self.names[w[0]..w[1]]);
            for (j, f) in self.fields.iter().enumerate() {
                incs[n] = S::incr(name, f, increment(j));
                n += 1;
            }
        }
        self.store.track(&mut self.conn, &incs[..n])
    }
    fn abort(&mut self) {}
    fn measuring(&mut self) {
        self.clock.restart();
    }
}
