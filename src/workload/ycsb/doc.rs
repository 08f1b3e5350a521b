//! YCSB on document engines, as its mongodb binding: a document per record in
//! `usertable` with `_id` = key and the ten fields, read with `find({_id})`, updated with
//! `$set` of one field, inserted with `insertOne`, scanned with
//! `find({_id: {$gte: key}}).sort({_id: 1}).limit(n)` (key order, as its SQL scans).

use super::client::{Client, Driver, Store};
use super::kind::Records;
use super::{FIELD_LEN, FIELD_NAMES, FIELDS, records, text};
use crate::engine::{Connection, DocClient, DocValue, Interface, NewDoc, TxResult};
use crate::error::Result;
use crate::workload::store::{Kind, Need, doc, into_doc};
use crate::workload::{Transactor, step, until_signal};

/// YCSB's table, a collection here.
const COLLECTION: &str = "usertable";
/// Records per insert command while loading (YCSB's mongodb `batchsize`).
const LOAD_BATCH: usize = 100;

/// The fields of a record as a document's.
fn fields(f: &[[u8; FIELD_LEN]; FIELDS]) -> [(&'static str, DocValue<'_>); FIELDS] {
    std::array::from_fn(|i| (FIELD_NAMES[i], DocValue::Text(text(&f[i]))))
}

/// Load `n` records into a fresh collection, `LOAD_BATCH` per round trip.
fn load(c: &mut dyn DocClient, n: u64) -> Result<()> {
    step("drop usertable", c.drop_collection(COLLECTION))?;
    let mut batch: Vec<(super::Key, [[u8; FIELD_LEN]; FIELDS])> = Vec::with_capacity(LOAD_BATCH);
    let flush = |c: &mut dyn DocClient, batch: &mut Vec<(super::Key, [[u8; FIELD_LEN]; FIELDS])>| {
        let all: Vec<_> = batch.iter().map(|(_, f)| fields(f)).collect();
        let docs: Vec<NewDoc> =
            batch.iter().zip(&all).map(|((k, _), f)| NewDoc { id: DocValue::Text(k.as_str()), fields: f }).collect();
        let r = step("load usertable", c.insert(COLLECTION, &docs));
        batch.clear();
        r
    };
    for rec in until_signal(records(n)) {
        batch.push(rec);
        if batch.len() == LOAD_BATCH {
            flush(c, &mut batch)?;
        }
    }
    if !batch.is_empty() {
        flush(c, &mut batch)?;
    }
    Ok(())
}

/// Whether the collection holds `want` documents; what was found.
fn verify(c: &mut dyn DocClient, want: u64) -> Result<(bool, String)> {
    let n = step("verify", c.count(COLLECTION))?;
    Ok((n == want, format!("{n} documents in usertable")))
}

/// A document connection.
pub struct DocStore {
    conn: Box<dyn DocClient>,
}

impl DocStore {
    /// A store on `conn`.
    pub fn new(conn: Box<dyn DocClient>) -> DocStore {
        DocStore { conn }
    }
}

impl Store for DocStore {
    fn read(&mut self, key: &str) -> TxResult<bool> {
        self.conn.find_id(COLLECTION, key)
    }
    fn update(&mut self, key: &str, field: usize, value: &str) -> TxResult<bool> {
        self.conn.set(COLLECTION, key, FIELD_NAMES[field], DocValue::Text(value))
    }
    fn insert(&mut self, key: &str, f: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
        let fields = fields(f);
        self.conn.insert(COLLECTION, &[NewDoc { id: DocValue::Text(key), fields: &fields }])
    }
    fn scan(&mut self, key: &str, len: usize) -> TxResult<u64> {
        self.conn.scan(COLLECTION, key, len)
    }
    fn abort(&mut self) {}
}

/// Records as documents of a collection.
pub struct Docs;

impl Kind for Docs {
    fn need(&self) -> Need {
        Need { interface: Interface::Doc, capabilities: &[] }
    }
}

impl Records for Docs {
    fn load(&self, conn: &mut Connection, n: u64) -> Result<()> {
        load(doc(conn)?, n)
    }
    fn client(&self, conn: Connection, driver: Driver) -> Result<Box<dyn Transactor>> {
        Ok(Box::new(Client::new(DocStore::new(into_doc(conn)?), driver)))
    }
    fn verify(&self, conn: &mut Connection, want: u64) -> Result<(bool, String)> {
        verify(doc(conn)?, want)
    }
}
