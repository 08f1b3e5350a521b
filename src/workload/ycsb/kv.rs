//! YCSB on key-value engines, as its redis binding: a hash per record (HSET, HGETALL) and
//! a sorted set `_indices` of every key scored by the key's Java `hashCode`, which scans
//! walk (ZRANGEBYSCORE from the first key's score, then HGETALL of each, pipelined). Scans
//! therefore go in hash order, not key order, as YCSB's redis scans do.

use super::client::{Client, Driver, Store};
use super::generator::java_hash;
use super::kind::Records;
use super::{FIELD_LEN, FIELD_NAMES, FIELDS, MAX_SCAN, records};
use crate::engine::{Capability, Connection, Interface, TxError, TxResult};
use crate::error::Result;
use crate::workload::store::{Kind, Need, kv};
use crate::workload::{Transactor, step, until_signal};

/// The sorted set of every record's key (YCSB's `INDEX_KEY`).
const INDEX: &[u8] = b"_indices";

/// Store record `key` with its fields and index it, as YCSB's redis insert does.
fn insert(c: &mut Connection, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
    let mut pairs: [(&[u8], &[u8]); FIELDS] = [(&[], &[]); FIELDS];
    for ((p, name), f) in pairs.iter_mut().zip(FIELD_NAMES).zip(fields) {
        *p = (name.as_bytes(), f);
    }
    c.hashes()?.hset(key.as_bytes(), &pairs)?;
    c.sorted_sets()?.zadd(INDEX, java_hash(key.as_bytes()).into(), key.as_bytes())
}

/// Load `n` records, one HSET and one ZADD each (the engines have no bulk path).
fn load(c: &mut Connection, n: u64) -> Result<()> {
    for (key, fields) in until_signal(records(n)) {
        step("load usertable", insert(c, key.as_str(), &fields))?;
    }
    Ok(())
}

/// Whether there are `want` record hashes and `want` keys in the index; what was found.
fn verify(c: &mut Connection, want: u64) -> Result<(bool, String)> {
    let keys = step("verify", kv(c)?.count())?;
    let indexed =
        step("verify", c.sorted_sets().and_then(|z| z.zrange_from(INDEX, i64::MIN, i64::MAX as usize, &mut |_| {})))?;
    // Every key but the index is a record.
    let hashes = keys.saturating_sub(1);
    Ok((hashes == want && indexed == want, format!("{hashes} record hashes, {indexed} keys in _indices")))
}

/// The longest key: `user` and 20 digits at most.
const KEY_MAX: usize = 24;

/// A connection with hashes and sorted sets, and the scan's buffers.
pub struct KvStore {
    conn: Connection,
    /// Keys a scan found, copied out of the reply.
    found: [[u8; KEY_MAX]; MAX_SCAN],
    found_len: [usize; MAX_SCAN],
}

impl KvStore {
    /// A store on `conn`.
    pub fn new(conn: Connection) -> KvStore {
        KvStore { conn, found: [[0; KEY_MAX]; MAX_SCAN], found_len: [0; MAX_SCAN] }
    }
}

impl Store for KvStore {
    fn read(&mut self, key: &str) -> TxResult<bool> {
        Ok(self.conn.hashes()?.hgetall(&[key.as_bytes()], &mut |_, _, _| {})? == 1)
    }
    /// HSET creates a missing record, as YCSB's redis update does; only reads find holes.
    fn update(&mut self, key: &str, field: usize, value: &str) -> TxResult<bool> {
        self.conn.hashes()?.hset(key.as_bytes(), &[(FIELD_NAMES[field].as_bytes(), value.as_bytes())])?;
        Ok(true)
    }
    fn insert(&mut self, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
        insert(&mut self.conn, key, fields)
    }
    fn scan(&mut self, key: &str, len: usize) -> TxResult<u64> {
        let len = len.min(MAX_SCAN);
        let (found, found_len) = (&mut self.found, &mut self.found_len);
        let mut n = 0;
        let mut too_long = false;
        self.conn.sorted_sets()?.zrange_from(INDEX, java_hash(key.as_bytes()).into(), len, &mut |m| {
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
        let read = self.conn.hashes()?.hgetall(&keys[..n], &mut |_, _, _| {})?;
        if read != n as u64 {
            return Err(TxError::Fail(format!("scan from {key}: {n} keys in the index, {read} records")));
        }
        Ok(read)
    }
    fn abort(&mut self) {}
}

/// Records as hashes, indexed by a sorted set, on key-value engines.
pub struct HashesAndSortedSets;

impl Kind for HashesAndSortedSets {
    fn need(&self) -> Need {
        Need { interface: Interface::Kv, capabilities: &[Capability::Hashes, Capability::SortedSets] }
    }
}

impl Records for HashesAndSortedSets {
    fn load(&self, conn: &mut Connection, n: u64) -> Result<()> {
        load(conn, n)
    }
    fn client(&self, conn: Connection, driver: Driver) -> Result<Box<dyn Transactor>> {
        Ok(Box::new(Client::new(KvStore::new(conn), driver)))
    }
    fn verify(&self, conn: &mut Connection, want: u64) -> Result<(bool, String)> {
        verify(conn, want)
    }
}
