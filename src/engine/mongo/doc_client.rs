//! The document operations the workloads drive (`DocClient` and the capabilities
//! `DocIncrements`, `DocRanges`), each one command written
//! into the connection's buffer: `insert`, `find` by `_id`, `update` with `$set` or `$inc`
//! upserts, ranges and scans on `_id`, `count`; every write with the profile's write
//! concern.

use super::bson_out::{self as out, Index};
use super::client::MongoClient;
use super::cursor::{flatten, id_text, read_whole};
use super::failure::code;
use super::reply::get_number;
use crate::engine::{
    Capable, DocClient, DocField, DocIncr, DocIncrements, DocRanges, DocValue, NewDoc, TxError, TxResult,
};

fn value(buf: &mut Vec<u8>, name: &str, v: DocValue) {
    match v {
        DocValue::Int(i) => out::i64(buf, name, i),
        DocValue::Text(s) => out::str(buf, name, s),
    }
}

impl DocClient for MongoClient {
    fn evented(&self) -> bool {
        true
    }
    fn drop_collection(&mut self, coll: &str) -> TxResult<()> {
        match self.run(|b| out::str(b, "drop", coll)) {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some(code::NAMESPACE_NOT_FOUND) => Ok(()),
            Err(e) => Err(e.tx(false)),
        }
    }

    fn insert_each(&mut self, coll: &str, docs: &mut dyn Iterator<Item = NewDoc<'_>>) -> TxResult<()> {
        let wc = self.wc;
        self.run(|b| {
            out::str(b, "insert", coll);
            let a = out::array(b, "documents");
            for (i, d) in docs.enumerate() {
                let o = out::doc(b, Index::of(i).as_str());
                value(b, "_id", d.id);
                for &(k, v) in d.fields {
                    value(b, k, v);
                }
                out::end(b, o);
            }
            out::end(b, a);
            out::bool(b, "ordered", true);
            Self::write_concern(b, wc);
        })
        .map(drop)
        .map_err(|e| e.tx(false))
    }

    fn find_id(&mut self, coll: &str, id: &str) -> TxResult<bool> {
        let n = self
            .walk(
                coll,
                |b| {
                    out::str(b, "find", coll);
                    let f = out::doc(b, "filter");
                    out::str(b, "_id", id);
                    out::end(b, f);
                    out::i32(b, "limit", 1);
                    out::bool(b, "singleBatch", true);
                },
                1,
                &mut |d, _| read_whole(d).map(drop),
            )
            .map_err(|e| e.tx(false))?;
        Ok(n == 1)
    }

    fn set(&mut self, coll: &str, id: &str, field: &str, v: DocValue) -> TxResult<bool> {
        let wc = self.wc;
        let r = self
            .run(|b| {
                out::str(b, "update", coll);
                let a = out::array(b, "updates");
                let u = out::doc(b, "0");
                let q = out::doc(b, "q");
                out::str(b, "_id", id);
                out::end(b, q);
                let m = out::doc(b, "u");
                let s = out::doc(b, "$set");
                value(b, field, v);
                out::end(b, s);
                out::end(b, m);
                out::end(b, u);
                out::end(b, a);
                Self::write_concern(b, wc);
            })
            .map_err(|e| e.tx(false))?;
        Ok(get_number(r, "n") == Some(1))
    }

    fn scan(&mut self, coll: &str, from: &str, limit: usize) -> TxResult<u64> {
        self.walk(
            coll,
            |b| {
                find_by_id(b, coll, from, None);
                out::i64(b, "limit", limit as i64);
            },
            limit as u64,
            &mut |d, _| read_whole(d).map(drop),
        )
        .map_err(|e| e.tx(false))
    }

    fn count(&mut self, coll: &str) -> TxResult<u64> {
        let r = self.run(|b| out::str(b, "count", coll)).map_err(|e| e.tx(false))?;
        get_number(r, "n").map(|n| n as u64).ok_or_else(|| TxError::Fail("mongo: count answered no n".into()))
    }

    fn setup(&mut self, text: &str) -> TxResult<()> {
        self.run_setup(text).map_err(TxError::Fail)
    }
}

/// `$inc` upserts, each document's in one update statement.
impl DocIncrements for MongoClient {
    fn inc(&mut self, coll: &str, incs: &[DocIncr]) -> TxResult<()> {
        let wc = self.wc;
        if incs.is_empty() {
            return Ok(());
        }
        // Increments of one document are consecutive: one update statement each.
        self.run(|b| {
            out::str(b, "update", coll);
            let a = out::array(b, "updates");
            let mut at = 0;
            let mut i = 0;
            while at < incs.len() {
                let id = incs[at].id;
                let end = at + incs[at..].iter().take_while(|x| x.id == id).count();
                let u = out::doc(b, Index::of(i).as_str());
                let q = out::doc(b, "q");
                out::str(b, "_id", id);
                out::end(b, q);
                let m = out::doc(b, "u");
                let d = out::doc(b, "$inc");
                for x in &incs[at..end] {
                    out::i64(b, x.field, x.by);
                }
                out::end(b, d);
                out::end(b, m);
                out::bool(b, "upsert", true);
                out::end(b, u);
                (at, i) = (end, i + 1);
            }
            out::end(b, a);
            out::bool(b, "ordered", true);
            Self::write_concern(b, wc);
        })
        .map_err(|e| e.tx(true))
        .map(drop)
    }
}

/// `_id` ranges, each document's fields flattened to dotted paths.
impl DocRanges for MongoClient {
    fn range(&mut self, coll: &str, from: &str, to: &str, field: &mut DocField) -> TxResult<u64> {
        self.walk(coll, |b| find_by_id(b, coll, from, Some(to)), u64::MAX, &mut |d, path| {
            let mut digits = [0u8; 24];
            let id = id_text(d, &mut digits);
            path.clear();
            flatten(d, id, path, 0, field)
        })
        .map_err(|e| e.tx(false))
    }
}

impl Capable for MongoClient {
    fn doc_increments(&mut self) -> Option<&mut dyn DocIncrements> {
        Some(self)
    }
    fn doc_ranges(&mut self) -> Option<&mut dyn DocRanges> {
        Some(self)
    }
}

/// A `find` of `coll` over `_id`s from `from` (to `to`, when given), in `_id` order: a
/// YCSB scan's and a counters read's query.
fn find_by_id(b: &mut Vec<u8>, coll: &str, from: &str, to: Option<&str>) {
    out::str(b, "find", coll);
    let f = out::doc(b, "filter");
    let id = out::doc(b, "_id");
    out::str(b, "$gte", from);
    if let Some(to) = to {
        out::str(b, "$lte", to);
    }
    out::end(b, id);
    out::end(b, f);
    let s = out::doc(b, "sort");
    out::i32(b, "_id", 1);
    out::end(b, s);
}
