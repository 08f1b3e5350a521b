//! Counters on key-value engines, as Trifle::Stats' Redis driver keeps them: a hash per
//! bucket (`metric-00042::1h::1702598400`), a field per counter. A track is one HINCRBY
//! per counter per bucket, all sent in one round trip; a read is one HGETALL per bucket of
//! the range, all in one round trip.

use super::buckets::Granularity;
use super::clock::{Clock, Ranges};
use super::options::CountersOptions;
use super::pick::{Pick, wrong_read};
use super::{Totals, increment, metric, paths};
use crate::engine::{HashIncr, KvClient, TxResult};
use crate::error::Result;
use crate::workload::{Transactor, step};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Append the key of a bucket.
fn bucket_key(out: &mut Vec<u8>, m: &str, g: Granularity, start: i64) {
    let _ = write!(out, "{m}::{}::{start}", g.code());
}

/// Buckets per round trip when loading or verifying.
const BATCH: usize = 1000;

/// Load the read data set: each bucket's counters as tracks would have left them.
pub(super) fn load(c: &mut dyn KvClient, o: &CountersOptions, data: &[Vec<(i64, u64)>]) -> Result<()> {
    let fields = paths(o.values);
    let mut batch: Vec<(Vec<u8>, u64)> = Vec::with_capacity(BATCH);
    let flush = |c: &mut dyn KvClient, batch: &mut Vec<(Vec<u8>, u64)>| {
        let incs: Vec<HashIncr> = batch
            .iter()
            .flat_map(|(key, n)| {
                fields.iter().enumerate().map(|(j, f)| HashIncr {
                    key,
                    field: f.as_bytes(),
                    by: *n as i64 * increment(j),
                })
            })
            .collect();
        let r = step("load", c.hincrby(&incs));
        batch.clear();
        crate::signals::check()?;
        r
    };
    for k in 0..o.keys as usize {
        let m = metric(k);
        for g in Granularity::ALL {
            for &(start, n) in &data[g.index()] {
                let mut key = Vec::with_capacity(32);
                bucket_key(&mut key, &m, g, start);
                batch.push((key, n));
                if batch.len() == BATCH {
                    flush(c, &mut batch)?;
                }
            }
        }
    }
    if !batch.is_empty() {
        flush(c, &mut batch)?;
    }
    Ok(())
}

/// A client tracking: seven buckets' HINCRBYs in one round trip per call.
struct Writer {
    c: Box<dyn KvClient>,
    pick: Pick<i64>,
    fields: Vec<String>,
    clock: Clock,
    /// The seven bucket keys of the current track, end to end, and where each ends.
    keys: Vec<u8>,
    ends: [usize; 8],
}

/// A client tracking on a key-value engine.
pub(super) fn writer(c: Box<dyn KvClient>, o: &CountersOptions, seed: u64) -> Box<dyn Transactor> {
    Box::new(Writer {
        c,
        pick: Pick::new(o, seed),
        fields: paths(o.values),
        clock: Clock::new(o),
        keys: Vec::with_capacity(256),
        ends: [0; 8],
    })
}

impl Transactor for Writer {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, at) = self.pick.next(retry, |_| self.clock.tick());
        self.keys.clear();
        for g in Granularity::ALL {
            bucket_key(&mut self.keys, m, g, g.floor(at));
            self.ends[g.index() + 1] = self.keys.len();
        }
        let mut incs = Vec::with_capacity(7 * self.fields.len());
        for w in self.ends.windows(2) {
            let key = &self.keys[w[0]..w[1]];
            incs.extend(self.fields.iter().enumerate().map(|(j, f)| HashIncr {
                key,
                field: f.as_bytes(),
                by: increment(j),
            }));
        }
        self.c.hincrby(&incs)
    }
    fn abort(&mut self) {}
    fn measuring(&mut self) {
        self.clock.restart();
    }
}

/// A client reading ranges of the data set.
struct Reader {
    c: Box<dyn KvClient>,
    pick: Pick<usize>,
    values: u64,
    range: Ranges,
    wrong: Arc<AtomicU64>,
    keys: Vec<u8>,
    ends: Vec<usize>,
}

/// A client reading on a key-value engine.
pub(super) fn reader(
    c: Box<dyn KvClient>,
    o: &CountersOptions,
    seed: u64,
    wrong: Arc<AtomicU64>,
) -> Box<dyn Transactor> {
    Box::new(Reader {
        c,
        pick: Pick::new(o, seed),
        values: u64::from(o.values),
        range: Ranges::new(o),
        wrong,
        keys: Vec::with_capacity(4096),
        ends: Vec::with_capacity(256),
    })
}

impl Transactor for Reader {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, end) = self.pick.next(retry, |rng| self.range.draw(rng));
        let (from, to, starts) = self.range.bounds(end);
        let g = self.range.granularity;
        self.keys.clear();
        self.ends.clear();
        self.ends.push(0);
        for &s in starts {
            bucket_key(&mut self.keys, m, g, s);
            self.ends.push(self.keys.len());
        }
        let keys: Vec<&[u8]> = self.ends.windows(2).map(|w| &self.keys[w[0]..w[1]]).collect();
        let mut fields = 0u64;
        let found = self.c.hgetall(&keys, &mut |_, _, _| fields += 1)?;
        let want = starts.len() as u64;
        if found != want || fields != want * self.values {
            let said = format!("found {found} buckets and {fields} counters, want {want} and {}", want * self.values);
            return Err(wrong_read(&self.wrong, m, (from, to), g, said));
        }
        Ok(())
    }
    fn abort(&mut self) {}
}

/// Every path's sum and the buckets, per granularity, over the buckets each key may
/// hold (`starts`, per granularity): a key-value store cannot sum by itself.
pub(super) fn totals(c: &mut dyn KvClient, o: &CountersOptions, starts: &[Vec<i64>]) -> Result<Totals> {
    let fields = paths(o.values);
    let mut t = Totals::new(o.values);
    let mut bad: Option<String> = None;
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
    let mut grans: Vec<Granularity> = Vec::with_capacity(BATCH);
    let mut flush = |keys: &mut Vec<Vec<u8>>, grans: &mut Vec<Granularity>, t: &mut Totals| -> Result<()> {
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut field = |i: usize, f: &[u8], v: &[u8]| {
            let g = grans[i].index();
            let Some(j) = fields.iter().position(|p| p.as_bytes() == f) else {
                t.strays += 1;
                return;
            };
            match std::str::from_utf8(v).ok().and_then(|v| v.parse::<i64>().ok()) {
                Some(n) => t.sums[g][j] += n,
                None => {
                    bad = Some(format!(
                        "{}: '{}' is not a number",
                        String::from_utf8_lossy(&keys[i]),
                        String::from_utf8_lossy(v)
                    ))
                }
            }
            t.buckets[g] += u64::from(j == 0);
        };
        step("verify", c.hgetall(&refs, &mut field))?;
        keys.clear();
        grans.clear();
        Ok(())
    };
    for k in 0..o.keys as usize {
        let m = metric(k);
        for g in Granularity::ALL {
            for &s in &starts[g.index()] {
                let mut key = Vec::with_capacity(32);
                bucket_key(&mut key, &m, g, s);
                keys.push(key);
                grans.push(g);
                if keys.len() == BATCH {
                    flush(&mut keys, &mut grans, &mut t)?;
                }
            }
        }
    }
    flush(&mut keys, &mut grans, &mut t)?;
    match bad {
        Some(m) => Err(failed!("verify: {m}")),
        None => Ok(t),
    }
}
