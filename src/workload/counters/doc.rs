//! Counters on document engines, as Trifle::Stats' MongoDB driver keeps them: a document
//! per bucket (`_id` = `metric-00042::1h::1702598400`), the counters `$inc`ed by their
//! dotted paths (so `duration.sum` nests). A track is one bulk write of seven `$inc`
//! upserts, or with `--counters-writes per-bucket` one update per bucket; a read is one
//! range query over the key's buckets of the read granularity (`_id` from the first to
//! the last; the starts have ten digits, so text order is time order).

use super::buckets::Granularity;
use super::clock::{Clock, Ranges};
use super::options::{CountersOptions, MAX_VALUES};
use super::pick::{Pick, wrong_read};
use super::{Totals, increment, metric, paths};
use crate::engine::{DocClient, DocIncr, TxResult};
use crate::error::Result;
use crate::workload::{Transactor, step};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

const COLLECTION: &str = "dbrace_counters";
/// Buckets per bulk write when loading.
const BATCH: usize = 1000;

/// Append the `_id` of a bucket.
fn bucket_id(out: &mut Vec<u8>, m: &str, g: Granularity, start: i64) {
    let _ = write!(out, "{m}::{}::{start}", g.code());
}

/// The text of ids written by `bucket_id` (ASCII by construction).
fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
}

/// A fresh collection; the read data set loaded as tracks would have left it.
pub(super) fn prepare(c: &mut dyn DocClient, o: &CountersOptions, data: Option<&[Vec<(i64, u64)>]>) -> Result<()> {
    step("drop collection", c.drop_collection(COLLECTION))?;
    let Some(data) = data else { return Ok(()) };
    let fields = paths(o.values);
    let mut batch: Vec<(Vec<u8>, u64)> = Vec::with_capacity(BATCH);
    let flush = |c: &mut dyn DocClient, batch: &mut Vec<(Vec<u8>, u64)>| {
        let incs: Vec<DocIncr> = batch
            .iter()
            .flat_map(|(id, n)| {
                fields.iter().enumerate().map(|(j, f)| DocIncr { id: text(id), field: f, by: *n as i64 * increment(j) })
            })
            .collect();
        let r = step("load", c.inc(COLLECTION, &incs, true));
        batch.clear();
        crate::signals::check()?;
        r
    };
    for k in 0..o.keys as usize {
        let m = metric(k);
        for g in Granularity::ALL {
            for &(start, n) in &data[g.index()] {
                let mut id = Vec::with_capacity(32);
                bucket_id(&mut id, &m, g, start);
                batch.push((id, n));
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

/// A client tracking: seven buckets' `$inc` upserts per call.
struct Writer {
    c: Box<dyn DocClient>,
    pick: Pick<i64>,
    fields: Vec<String>,
    one_bulk: bool,
    clock: Clock,
    /// The seven bucket ids of the current track, end to end, and where each ends.
    ids: Vec<u8>,
    ends: [usize; 8],
}

/// A client tracking on a document engine: one bulk write per track, or one update per
/// bucket.
pub(super) fn writer(c: Box<dyn DocClient>, o: &CountersOptions, seed: u64, one_bulk: bool) -> Box<dyn Transactor> {
    Box::new(Writer {
        c,
        pick: Pick::new(o, seed),
        fields: paths(o.values),
        one_bulk,
        clock: Clock::new(o),
        ids: Vec::with_capacity(256),
        ends: [0; 8],
    })
}

impl Transactor for Writer {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, at) = self.pick.next(retry, |_| self.clock.tick());
        self.ids.clear();
        for g in Granularity::ALL {
            bucket_id(&mut self.ids, m, g, g.floor(at));
            self.ends[g.index() + 1] = self.ids.len();
        }
        // The increments borrow this call's ids and fields: on the stack, not allocated.
        let mut incs = [DocIncr { id: "", field: "", by: 0 }; 7 * MAX_VALUES as usize];
        let mut n = 0;
        for w in self.ends.windows(2) {
            let id = text(&self.ids[w[0]..w[1]]);
            for (j, f) in self.fields.iter().enumerate() {
                incs[n] = DocIncr { id, field: f, by: increment(j) };
                n += 1;
            }
        }
        self.c.inc(COLLECTION, &incs[..n], self.one_bulk)
    }
    fn abort(&mut self) {}
    fn measuring(&mut self) {
        self.clock.restart();
    }
}

/// A client reading ranges of the data set.
struct Reader {
    c: Box<dyn DocClient>,
    pick: Pick<usize>,
    values: u64,
    range: Ranges,
    wrong: Arc<AtomicU64>,
    from: Vec<u8>,
    to: Vec<u8>,
}

/// A client reading on a document engine.
pub(super) fn reader(
    c: Box<dyn DocClient>,
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
        from: Vec::with_capacity(64),
        to: Vec::with_capacity(64),
    })
}

impl Transactor for Reader {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let (m, end) = self.pick.next(retry, |rng| self.range.draw(rng));
        let (from, to, starts) = self.range.bounds(end);
        let g = self.range.granularity;
        let (Some(&first), Some(&last)) = (starts.first(), starts.last()) else { return Ok(()) };
        self.from.clear();
        self.to.clear();
        bucket_id(&mut self.from, m, g, first);
        bucket_id(&mut self.to, m, g, last);
        let mut fields = 0u64;
        let found = self.c.range(COLLECTION, text(&self.from), text(&self.to), &mut |_, _, _| fields += 1)?;
        let want = starts.len() as u64;
        if found != want || fields != want * self.values {
            let said = format!("found {found} buckets and {fields} counters, want {want} and {}", want * self.values);
            return Err(wrong_read(&self.wrong, m, (from, to), g, said));
        }
        Ok(())
    }
    fn abort(&mut self) {}
}

/// Every path's sum and the buckets, per granularity, over the whole collection.
pub(super) fn totals(c: &mut dyn DocClient, o: &CountersOptions) -> Result<Totals> {
    let fields = paths(o.values);
    let mut t = Totals::new(o.values);
    let mut bad: Option<String> = None;
    let mut field = |id: &str, path: &str, v: i64| {
        let g = id.split("::").nth(1).and_then(|code| Granularity::ALL.iter().find(|g| g.code() == code));
        let (Some(g), Some(j)) = (g, fields.iter().position(|p| p == path)) else {
            t.strays += 1;
            return;
        };
        if v == i64::MIN {
            bad = Some(format!("{id}: {path} is not an integer"));
            return;
        }
        t.sums[g.index()][j] += v;
        t.buckets[g.index()] += u64::from(j == 0);
    };
    // Every id is ASCII and below DEL.
    step("verify", c.range(COLLECTION, "", "\u{7f}", &mut field))?;
    match bad {
        Some(m) => Err(failed!("verify: {m}")),
        None => Ok(t),
    }
}
