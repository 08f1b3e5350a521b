//! Counters on key-value engines, as Trifle::Stats' Redis driver keeps them: a hash per
//! bucket (`metric-00042::1h::1702598400`), a field per counter. A track is one HINCRBY
//! per counter per bucket, all sent in one round trip; a read is one HGETALL per bucket of
//! the range, all in one round trip.

use super::buckets::Granularity;
use super::metric;
use super::options::CountersOptions;
use super::store::{Counter, CounterStore, bucket_name, text};
use crate::engine::{Capability, Connection, HashIncr, Interface, TxResult};
use crate::error::Result;
use crate::workload::step;
use crate::workload::store::Need;

/// Buckets per round trip when verifying.
const BATCH: usize = 1000;

/// Buckets as hashes; the names of a read's buckets, end to end, and where each ends.
pub(super) struct HashBuckets {
    names: Vec<u8>,
    ends: Vec<usize>,
}

impl CounterStore for HashBuckets {
    const NEED: Need = Need { interface: Interface::Kv, capabilities: &[Capability::Hashes] };
    type Incr<'a> = HashIncr<'a>;
    fn incr<'a>(bucket: &'a str, path: &'a str, by: i64) -> HashIncr<'a> {
        HashIncr { key: bucket.as_bytes(), field: path.as_bytes(), by }
    }
    fn new(_o: &CountersOptions) -> HashBuckets {
        HashBuckets { names: Vec::with_capacity(4096), ends: Vec::with_capacity(256) }
    }
    fn load(&mut self, conn: &mut Connection, incs: &[HashIncr]) -> TxResult<()> {
        conn.hashes()?.hincrby(incs)
    }
    fn track(&mut self, conn: &mut Connection, incs: &[HashIncr]) -> TxResult<()> {
        conn.hashes()?.hincrby(incs)
    }
    fn read(&mut self, conn: &mut Connection, m: &str, g: Granularity, starts: &[i64]) -> TxResult<(u64, u64)> {
        self.names.clear();
        self.ends.clear();
        self.ends.push(0);
        for &s in starts {
            bucket_name(&mut self.names, m, g, s);
            self.ends.push(self.names.len());
        }
        let keys: Vec<&[u8]> = self.ends.windows(2).map(|w| &self.names[w[0]..w[1]]).collect();
        let mut fields = 0u64;
        let found = conn.hashes()?.hgetall(&keys, &mut |_, _, _| fields += 1)?;
        Ok((found, fields))
    }
    /// A key-value store cannot list its buckets: every one a key may hold is asked for.
    fn walk(&mut self, conn: &mut Connection, keys: u32, starts: &[Vec<i64>], counter: &mut Counter) -> Result<()> {
        let mut batch: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
        for k in 0..keys as usize {
            let m = metric(k);
            for g in Granularity::ALL {
                for &s in &starts[g.index()] {
                    let mut key = Vec::with_capacity(32);
                    bucket_name(&mut key, &m, g, s);
                    batch.push(key);
                    if batch.len() == BATCH {
                        walk_batch(conn, &mut batch, counter)?;
                    }
                }
            }
        }
        walk_batch(conn, &mut batch, counter)
    }
}

/// Hand on every field of the hashes named in `batch`, and empty it.
fn walk_batch(conn: &mut Connection, batch: &mut Vec<Vec<u8>>, counter: &mut Counter) -> Result<()> {
    let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
    let mut field = |i: usize, f: &[u8], v: &[u8]| {
        // A field that is not text is no track's: "" names no path.
        let path = std::str::from_utf8(f).unwrap_or("");
        let value = std::str::from_utf8(v).ok().and_then(|v| v.parse::<i64>().ok());
        counter(
            text(&batch[i]),
            path,
            value.ok_or_else(|| format!("'{}' is not a number", String::from_utf8_lossy(v))),
        );
    };
    step("verify", conn.hashes().and_then(|h| h.hgetall(&refs, &mut field)))?;
    batch.clear();
    Ok(())
}
