//! Counters on document engines, as Trifle::Stats' MongoDB driver keeps them: a document
//! per bucket (`_id` = `metric-00042::1h::1702598400`), the counters `$inc`ed by their
//! dotted paths (so `duration.sum` nests). A track is one bulk write of seven `$inc`
//! upserts, or with `--counters-writes per-bucket` one update per bucket; a read is one
//! range query over the key's buckets of the read granularity (`_id` from the first to
//! the last; the starts have ten digits, so text order is time order).

use super::buckets::Granularity;
use super::options::{CountersOptions, Writes};
use super::store::{Counter, CounterStore, bucket_name, text};
use crate::engine::{Capability, Connection, DocIncr, Interface, TxResult};
use crate::error::Result;
use crate::workload::step;
use crate::workload::store::{Need, doc};

const COLLECTION: &str = "dbrace_counters";

/// Buckets as documents; a track's way of writing, and a read's first and last `_id`.
pub(super) struct DocBuckets {
    one_bulk: bool,
    from: Vec<u8>,
    to: Vec<u8>,
}

impl CounterStore for DocBuckets {
    const NEED: Need =
        Need { interface: Interface::Doc, capabilities: &[Capability::DocIncrements, Capability::DocRanges] };
    type Incr<'a> = DocIncr<'a>;
    fn incr<'a>(bucket: &'a str, path: &'a str, by: i64) -> DocIncr<'a> {
        DocIncr { id: bucket, field: path, by }
    }
    fn new(o: &CountersOptions) -> DocBuckets {
        DocBuckets { one_bulk: o.writes == Writes::Bulk, from: Vec::with_capacity(64), to: Vec::with_capacity(64) }
    }
    fn fresh(conn: &mut Connection) -> Result<()> {
        step("drop collection", doc(conn)?.drop_collection(COLLECTION))
    }
    fn load(&mut self, conn: &mut Connection, incs: &[DocIncr]) -> TxResult<()> {
        conn.doc_increments()?.inc(COLLECTION, incs)
    }
    /// One bulk write, or one per bucket (those of one bucket are consecutive).
    fn track(&mut self, conn: &mut Connection, incs: &[DocIncr]) -> TxResult<()> {
        let c = conn.doc_increments()?;
        if self.one_bulk {
            return c.inc(COLLECTION, incs);
        }
        let mut rest = incs;
        while let Some(first) = rest.first() {
            let (now, later) = rest.split_at(rest.iter().take_while(|i| i.id == first.id).count());
            c.inc(COLLECTION, now)?;
            rest = later;
        }
        Ok(())
    }
    fn read(&mut self, conn: &mut Connection, m: &str, g: Granularity, starts: &[i64]) -> TxResult<(u64, u64)> {
        let (Some(&first), Some(&last)) = (starts.first(), starts.last()) else { return Ok((0, 0)) };
        self.from.clear();
        self.to.clear();
        bucket_name(&mut self.from, m, g, first);
        bucket_name(&mut self.to, m, g, last);
        let mut fields = 0u64;
        let found =
            conn.doc_ranges()?.range(COLLECTION, text(&self.from), text(&self.to), &mut |_, _, _| fields += 1)?;
        Ok((found, fields))
    }
    /// The whole collection: every id is ASCII and below DEL.
    fn walk(&mut self, conn: &mut Connection, _keys: u32, _starts: &[Vec<i64>], counter: &mut Counter) -> Result<()> {
        let mut field = |id: &str, path: &str, v: i64| {
            counter(id, path, if v == i64::MIN { Err(format!("{path} is not an integer")) } else { Ok(v) })
        };
        step("verify", conn.doc_ranges().and_then(|r| r.range(COLLECTION, "", "\u{7f}", &mut field)))?;
        Ok(())
    }
}
