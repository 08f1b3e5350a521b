//! Capabilities: data structures a client may offer beyond its interface's basic
//! operations (Redis's hashes and sorted sets, MongoDB's `$inc` upserts and `_id` ranges).
//! Each is a trait of generic operations; an engine declares the ones its clients have
//! (`Engine::capabilities`), its client hands them out through `Capable`, and a workload
//! names those it needs, so the plan can refuse a pair before any server starts.

use super::{TxError, TxResult};

/// A capability by name, as an engine declares it and a workload asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Fields under a key, set, incremented and read whole (`Hashes`).
    Hashes,
    /// Members ordered by an integer score (`SortedSets`).
    SortedSets,
    /// Integer fields of documents added to in place, creating missing documents
    /// (`DocIncrements`).
    DocIncrements,
    /// Documents read by a range of `_id`s, each integer field handed on (`DocRanges`).
    DocRanges,
}

impl Capability {
    /// Every capability, for checks that an engine's clients offer what it declares.
    pub const ALL: [Capability; 4] =
        [Capability::Hashes, Capability::SortedSets, Capability::DocIncrements, Capability::DocRanges];

    /// Its name in messages: "hashes", "sorted sets", …
    pub fn name(self) -> &'static str {
        match self {
            Capability::Hashes => "hashes",
            Capability::SortedSets => "sorted sets",
            Capability::DocIncrements => "document increments",
            Capability::DocRanges => "document ranges",
        }
    }

    /// The failure of an operation on a client that lacks it (the plan pairs no such
    /// engine with a workload that needs it, so only a caller past the plan meets it).
    pub fn lacking(self) -> TxError {
        TxError::Fail(format!("this engine has no {}", self.name()))
    }
}

/// The capabilities a client hands out: each accessor returns the client as that
/// capability's trait, or `None` where it has none (the default).
pub trait Capable {
    /// The client's hashes, if it has them.
    fn hashes(&mut self) -> Option<&mut dyn Hashes> {
        None
    }
    /// The client's sorted sets, if it has them.
    fn sorted_sets(&mut self) -> Option<&mut dyn SortedSets> {
        None
    }
    /// The client's document increments, if it has them.
    fn doc_increments(&mut self) -> Option<&mut dyn DocIncrements> {
        None
    }
    /// The client's document ranges, if it has them.
    fn doc_ranges(&mut self) -> Option<&mut dyn DocRanges> {
        None
    }
    /// Whether it offers `cap`.
    fn offers(&mut self, cap: Capability) -> bool {
        match cap {
            Capability::Hashes => self.hashes().is_some(),
            Capability::SortedSets => self.sorted_sets().is_some(),
            Capability::DocIncrements => self.doc_increments().is_some(),
            Capability::DocRanges => self.doc_ranges().is_some(),
        }
    }
}

/// Receives each field of `Hashes::hgetall`: the key's index, the field, its value.
pub type HashField<'a> = dyn FnMut(usize, &[u8], &[u8]) + 'a;

/// One increment of a hash field, for `Hashes::hincrby`.
#[derive(Clone, Copy, Debug)]
pub struct HashIncr<'a> {
    /// The hash's key.
    pub key: &'a [u8],
    /// The field inside it.
    pub field: &'a [u8],
    /// How much to add.
    pub by: i64,
}

/// Hashes: fields under a key, as Redis keeps them (HSET, HINCRBY, HGETALL).
pub trait Hashes {
    /// Set fields of the hash at `key`, creating it if needed (HSET).
    fn hset(&mut self, key: &[u8], fields: &[(&[u8], &[u8])]) -> TxResult<()>;
    /// Add each increment's amount to its (key, field), in one round trip (pipelined HINCRBY).
    fn hincrby(&mut self, incs: &[HashIncr]) -> TxResult<()>;
    /// Read every field of each hash in `keys`, in one round trip (pipelined HGETALL),
    /// handing `field` the key's index, the field and its value; the number of hashes found.
    fn hgetall(&mut self, keys: &[&[u8]], field: &mut HashField) -> TxResult<u64>;
}

/// Sorted sets: members ordered by an integer score, as Redis keeps them (ZADD, ZRANGEBYSCORE).
pub trait SortedSets {
    /// Add `member` with `score` to the sorted set at `key` (ZADD).
    fn zadd(&mut self, key: &[u8], score: i64, member: &[u8]) -> TxResult<()>;
    /// Up to `count` members of the sorted set at `key` from score `min` up, in score order
    /// (ZRANGEBYSCORE key min +inf LIMIT 0 count); the number handed to `member`.
    fn zrange_from(&mut self, key: &[u8], min: i64, count: usize, member: &mut dyn FnMut(&[u8])) -> TxResult<u64>;
}

/// One `$inc` of one field (a dotted path) of the document whose `_id` is `id`.
#[derive(Clone, Copy, Debug)]
pub struct DocIncr<'a> {
    /// The document's `_id`.
    pub id: &'a str,
    /// The field, `a.b` for a field `b` inside `a`.
    pub field: &'a str,
    /// How much to add.
    pub by: i64,
}

/// Document increments: `$inc` upserts, as MongoDB's update does them.
pub trait DocIncrements {
    /// Add the increments in one round trip (a bulk write), creating missing documents
    /// (upserts); those of one document are consecutive and go in one update.
    fn inc(&mut self, coll: &str, incs: &[DocIncr]) -> TxResult<()>;
}

/// Receives each field of `DocRanges::range`: the document's `_id`, the field's dotted
/// path, its value (`i64::MIN` for one that is not an integer).
pub type DocField<'a> = dyn FnMut(&str, &str, i64) + 'a;

/// Document ranges: the documents of a range of `_id`s, their fields walked.
pub trait DocRanges {
    /// The documents with `from <= _id <= to`, in `_id` order, each field handed to
    /// `field`; the number of documents.
    fn range(&mut self, coll: &str, from: &str, to: &str, field: &mut DocField) -> TxResult<u64>;
}

/// The hash and sorted-set operations behave as Redis documents them, on any engine.
#[cfg(test)]
pub(crate) fn check_kv_ops(c: &mut dyn super::KvClient) {
    let inc = |key: &'static [u8], field: &'static [u8], by| HashIncr { key, field, by };
    let h = c.hashes().expect("hashes");
    h.hincrby(&[inc(b"h1", b"a", 2), inc(b"h1", b"a", -5), inc(b"h2", b"b", 7)]).unwrap();
    h.hset(b"h3", &[(b"f0", b"x"), (b"f1", b"y")]).unwrap();
    let mut seen = Vec::new();
    let found = h.hgetall(&[b"h1", b"missing", b"h2", b"h3"], &mut |i, f, v| seen.push((i, f.to_vec(), v.to_vec())));
    seen.sort();
    assert_eq!(found.unwrap(), 3);
    let want: Vec<(usize, Vec<u8>, Vec<u8>)> = [(0, "a", "-3"), (2, "b", "7"), (3, "f0", "x"), (3, "f1", "y")]
        .iter()
        .map(|(i, f, v)| (*i, f.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect();
    assert_eq!(seen, want);
    let z = c.sorted_sets().expect("sorted sets");
    for (score, m) in [(30, "c"), (10, "a"), (20, "b"), (5, "b")] {
        z.zadd(b"z", score, m.as_bytes()).unwrap();
    }
    let mut members = Vec::new();
    assert_eq!(z.zrange_from(b"z", 6, 5, &mut |m| members.push(m.to_vec())).unwrap(), 2);
    assert_eq!(members, [b"a".to_vec(), b"c".to_vec()]);
    assert!(c.get(b"z", &mut Vec::new()).is_err(), "a sorted set is not a string");
}
