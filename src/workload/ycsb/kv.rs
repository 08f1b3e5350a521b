//! YCSB on key-value engines, as its redis binding: a hash per record (HSET, HGETALL) and
//! a sorted set `_indices` of every key scored by the key's Java `hashCode`, which scans
//! walk (ZRANGEBYSCORE from the first key's score, then HGETALL of each, pipelined). Scans
//! therefore go in hash order, not key order, as YCSB's redis scans do.

use super::client::Store;
use super::generator::java_hash;
use super::{FIELD_LEN, FIELD_NAMES, FIELDS, MAX_SCAN, records};
use crate::engine::{KvClient, TxError, TxResult};
use crate::error::Result;
use crate::workload::{step, until_signal};

/// The sorted set of every record's key (YCSB's `INDEX_KEY`).
const INDEX: &[u8] = b"_indices";

/// Store record `key` with its fields and index it, as YCSB's redis insert does.
fn insert(c: &mut dyn KvClient, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
    let mut pairs: [(&[u8], &[u8]); FIELDS] = [(&[], &[]); FIELDS];
    for ((p, name), f) in pairs.iter_mut().zip(FIELD_NAMES).zip(fields) {
        *p = (name.as_bytes(), f);
    }
    c.hset(key.as_bytes(), &pairs)?;
    c.zadd(INDEX, java_hash(key.as_bytes()).into(), key.as_bytes())
}

/// Load `n` records, one HSET and one ZADD each (the engines have no bulk path).
pub fn load(c: &mut dyn KvClient, n: u64) -> Result<()> {
    for (key, fields) in until_signal(records(n)) {
        step("load usertable", insert(c, key.as_str(), &fields))?;
    }
    Ok(())
}

/// Whether there are `want` record hashes and `want` keys in the index; what was found.
pub fn verify(c: &mut dyn KvClient, want: u64) -> Result<(bool, String)> {
    let keys = step("verify", c.count())?;
    let indexed = step("verify", c.zrange_from(INDEX, i64::MIN, i64::MAX as usize, &mut |_| {}))?;
    // Every key but the index is a record.
    let hashes = keys.saturating_sub(1);
    Ok((hashes == want && indexed == want, format!("{hashes} record hashes, {indexed} keys in _indices")))
}

/// The longest key: `user` and 20 digits at most.
const KEY_MAX: usize = 24;

/// A key-value connection and the scan's buffers.
pub struct KvStore {
    conn: Box<dyn KvClient>,
    /// Keys a scan found, copied out of the reply.
    found: [[u8; KEY_MAX]; MAX_SCAN],
    found_len: [usize; MAX_SCAN],
}

impl KvStore {
    /// A store on `conn`.
    pub fn new(conn: Box<dyn KvClient>) -> KvStore {
        KvStore { conn, found: [[0; KEY_MAX]; MAX_SCAN], found_len: [0; MAX_SCAN] }
    }
}

impl Store for KvStore {
    fn read(&mut self, key: &str) -> TxResult<bool> {
        Ok(self.conn.hgetall(&[key.as_bytes()], &mut |_, _, _| {})? == 1)
    }
    /// HSET creates a missing record, as YCSB's redis update does; only reads find holes.
    fn update(&mut self, key: &str, field: usize, value: &str) -> TxResult<bool> {
        self.conn.hset(key.as_bytes(), &[(FIELD_NAMES[field].as_bytes(), value.as_bytes())])?;
        Ok(true)
    }
    fn insert(&mut self, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
        insert(self.conn.as_mut(), key, fields)
    }
    fn scan(&mut self, key: &str, len: usize) -> TxResult<u64> {
        let len = len.min(MAX_SCAN);
        let (found, found_len) = (&mut self.found, &mut self.found_len);
        let mut n = 0;
        let mut too_long = false;
        self.conn.zrange_from(INDEX, java_hash(key.as_bytes()).into(), len, &mut |m| {
            if n < len && m.len() <= KEY_MAX {
                found[n][..m.len()].copy_from_slice(m);
                found_len[n] = m.len();
                n += 1;
            } else {
                too_long = true;
            }
        })?;
        if too_long {
            return Err(TxError::Fail("scan: the index holds a key that is no record's".into()));
        }
        let mut keys: [&[u8]; MAX_SCAN] = [&[]; MAX_SCAN];
        for (k, (f, l)) in keys.iter_mut().zip(found.iter().zip(found_len.iter())).take(n) {
            *k = &f[..*l];
        }
        let read = self.conn.hgetall(&keys[..n], &mut |_, _, _| {})?;
        if read != n as u64 {
            return Err(TxError::Fail(format!("scan from {key}: {n} keys in the index, {read} records")));
        }
        Ok(read)
    }
    fn abort(&mut self) {}
}
