//! The read data set loaded into named buckets: each bucket's counters as tracks would
//! have left them, a batch of buckets per round trip.

use super::buckets::Granularity;
use super::kind::Data;
use super::options::CountersOptions;
use super::store::{CounterStore, bucket_name, text};
use super::{increment, metric, paths};
use crate::engine::Connection;
use crate::error::Result;
use crate::workload::step;

/// Buckets per round trip.
const BATCH: usize = 1000;

/// Load `data` for every key of `o`.
pub(super) fn load<S: CounterStore>(conn: &mut Connection, o: &CountersOptions, data: Data) -> Result<()> {
    let mut store = S::new(o);
    let fields = paths(o.values);
    let mut batch: Vec<(Vec<u8>, u64)> = Vec::with_capacity(BATCH);
    let mut flush = |conn: &mut Connection, batch: &mut Vec<(Vec<u8>, u64)>| {
        let incs: Vec<S::Incr<'_>> = batch
            .iter()
            .flat_map(|(name, n)| {
                fields.iter().enumerate().map(|(j, f)| S::incr(text(name), f, *n as i64 * increment(j)))
            })
            .collect();
        let r = step("load", store.load(conn, &incs));
        drop(incs);
        batch.clear();
        crate::signals::check()?;
        r
    };
    for k in 0..o.keys as usize {
        let m = metric(k);
        for g in Granularity::ALL {
            for &(start, n) in &data[g.index()] {
                let mut name = Vec::with_capacity(32);
                bucket_name(&mut name, &m, g, start);
                batch.push((name, n));
                if batch.len() == BATCH {
                    flush(conn, &mut batch)?;
                }
            }
        }
    }
    if !batch.is_empty() {
        flush(conn, &mut batch)?;
    }
    Ok(())
}
