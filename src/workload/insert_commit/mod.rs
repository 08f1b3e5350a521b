//! `insert-commit`: one-row INSERT + COMMIT per transaction into an unindexed table
//! (a SET of a new key on key-value engines, an insertOne of a new document on document
//! engines). It measures the cost of a commit. With `--rows-per-commit N` a transaction
//! inserts N rows: BEGIN, N single-row INSERTs, COMMIT; N SETs in one MULTI/EXEC; one
//! insert of N documents.

pub mod options;

use super::figure::{Derived, Each, Figure};
use super::store::{self, Kind, Need, doc, into_doc, into_kv, into_sql, kv, sql};
use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, step};
use crate::engine::{Connection, DocClient, DocValue, Interface, KvClient, NewDoc, Param, SqlClient, Stmt, TxResult};
use crate::error::Result;

/// The insert-commit workload.
pub struct InsertCommit;

/// 100 bytes of payload per row or value.
const PAYLOAD: &str =
    "dbrace-insert-commit-payload-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-012345";
const TABLE: &str = "dbrace_insert";
const NAME: &str = options::WORKLOAD;

/// One kind of store for the inserts: its fresh data set, a client on it, its count.
trait Inserts: Kind {
    /// Start a fresh data set.
    fn prepare(&self, conn: &mut Connection) -> Result<()>;
    /// Client `id`'s transactor, its keys numbered from `seq` on, `rows` per transaction.
    fn client(&self, conn: Connection, id: u32, seq: u64, rows: u32) -> Result<Box<dyn Transactor>>;
    /// Rows, keys or documents inserted.
    fn count(&self, conn: &mut Connection) -> Result<u64>;
}

/// Rows inserted per second: tps times the cell's rows per commit.
const ROWS_PER_S: Figure = Figure {
    key: "rows_per_s",
    unit: "rows/s",
    about: "rows inserted per second",
    from: Derived::Each(Each {
        count: |o| o.insert_commit.rows_per_commit,
        key: "rows_per_commit",
        names: ("row", "rows"),
        per: "commit",
    }),
};

/// Every kind, in the order the plan lists them.
const KINDS: [&dyn Inserts; 3] = [&Rows, &Keys, &Docs];

/// Rows of an unindexed table.
struct Rows;

impl Kind for Rows {
    fn need(&self) -> Need {
        Need { interface: Interface::Sql, capabilities: &[] }
    }
}

impl Inserts for Rows {
    fn prepare(&self, conn: &mut Connection) -> Result<()> {
        let c = sql(conn)?;
        step("create table", c.create_table(TABLE, "client integer, seq integer, payload varchar(100)", None))?;
        step("finish the load", c.finish_load())
    }
    fn client(&self, conn: Connection, id: u32, _seq: u64, rows: u32) -> Result<Box<dyn Transactor>> {
        let mut c = into_sql(conn)?;
        let insert =
            step("prepare", c.prepare(&format!("INSERT INTO {TABLE} (client, seq, payload) VALUES (?, ?, ?)")))?;
        // Rows need no unique key: an int4 column counts from 0 each time.
        Ok(Box::new(SqlInsert { c, insert, id: id.into(), seq: 0, rows: rows.into() }))
    }
    fn count(&self, conn: &mut Connection) -> Result<u64> {
        Ok(step("verify", sql(conn)?.scalar(&format!("SELECT count(*) FROM {TABLE}")))? as u64)
    }
}

/// New keys of a key-value store.
struct Keys;

impl Kind for Keys {
    fn need(&self) -> Need {
        Need { interface: Interface::Kv, capabilities: &[] }
    }
}

impl Inserts for Keys {
    fn prepare(&self, _conn: &mut Connection) -> Result<()> {
        Ok(())
    }
    fn client(&self, conn: Connection, id: u32, seq: u64, rows: u32) -> Result<Box<dyn Transactor>> {
        let keys = vec![0; if rows > 1 { rows as usize * KEY_LEN } else { 0 }];
        Ok(Box::new(KvInsert { c: into_kv(conn)?, id, seq, rows: rows.into(), keys }))
    }
    fn count(&self, conn: &mut Connection) -> Result<u64> {
        step("verify", kv(conn)?.count())
    }
}

/// New documents of a collection.
struct Docs;

impl Kind for Docs {
    fn need(&self) -> Need {
        Need { interface: Interface::Doc, capabilities: &[] }
    }
}

impl Inserts for Docs {
    fn prepare(&self, conn: &mut Connection) -> Result<()> {
        step("drop collection", doc(conn)?.drop_collection(TABLE))
    }
    fn client(&self, conn: Connection, id: u32, seq: u64, rows: u32) -> Result<Box<dyn Transactor>> {
        let (id, seq) = (i64::from(id), seq as i64);
        let doc = [("client", DocValue::Int(id)), ("seq", DocValue::Int(seq)), ("payload", DocValue::Text(PAYLOAD))];
        Ok(Box::new(DocInsert { c: into_doc(conn)?, id, seq, docs: vec![doc; rows as usize] }))
    }
    fn count(&self, conn: &mut Connection) -> Result<u64> {
        step("verify", doc(conn)?.count(TABLE))
    }
}

impl Workload for InsertCommit {
    fn name(&self) -> &str {
        NAME
    }
    fn about(&self) -> &str {
        "one-row INSERT + COMMIT per transaction (a SET of a new key on key-value engines, an insertOne on mongo; --rows-per-commit N: N rows)"
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql, Interface::Kv, Interface::Doc]
    }
    fn figures(&self) -> &'static [Figure] {
        &[ROWS_PER_S]
    }
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let conn = load.conn();
        store::pick(&KINDS, conn, self.name())?.prepare(conn)?;
        Ok(Box::new(Cell { built: Vec::new(), rows: opts.insert_commit.rows_per_commit }))
    }
}

/// A cell's insert-commit data set: its clients share nothing but the numbering of the
/// keys and documents they insert, unique across the repeats that keep it.
struct Cell {
    /// Transactors built so far for each client id: each build's sequence starts in a
    /// range of its own, 2^28 inserts wide.
    built: Vec<u64>,
    /// Rows each transaction inserts.
    rows: u32,
}

impl CellWorkload for Cell {
    fn client(&mut self, mut conn: Connection, id: u32, _seed: u64) -> Result<Box<dyn Transactor>> {
        let slot = id as usize;
        if self.built.len() <= slot {
            self.built.resize(slot + 1, 0);
        }
        let seq = self.built[slot] << 28;
        self.built[slot] += 1;
        store::pick(&KINDS, &mut conn, NAME)?.client(conn, id, seq, self.rows)
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let rows = store::pick(&KINDS, conn, NAME)?.count(conn)?;
        let mut detail = format!("{rows} rows, {committed} committed transactions");
        if self.rows > 1 {
            detail.push_str(&format!(" × {} rows", self.rows));
        }
        Ok(Verdict { ok: rows == committed * u64::from(self.rows), detail })
    }
}

/// A client's inserts of `rows` rows per transaction: the last inserted is `seq`, the
/// transaction's first `seq - rows + 1` (a retry inserts the same ones again).
struct SqlInsert {
    c: Box<dyn SqlClient>,
    insert: Stmt,
    id: i64,
    seq: i64,
    rows: i64,
}

impl Transactor for SqlInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.seq += self.rows * i64::from(!retry);
        let c = &mut self.c;
        c.begin(true)?;
        for seq in self.seq - self.rows + 1..=self.seq {
            c.execute(self.insert, &[Param::Int(self.id), Param::Int(seq), Param::Text(PAYLOAD)])?;
        }
        c.commit()
    }
    fn abort(&mut self) {
        self.c.rollback();
    }
}

/// Bytes of a key: "ic", client, sequence.
const KEY_LEN: usize = 14;

/// A fixed-size binary key: "ic", client, sequence; nothing to format.
fn key(out: &mut [u8], id: u32, seq: u64) {
    out[..2].copy_from_slice(b"ic");
    out[2..6].copy_from_slice(&id.to_be_bytes());
    out[6..KEY_LEN].copy_from_slice(&seq.to_be_bytes());
}

/// A client's new keys, `rows` per transaction as `SqlInsert` numbers them; with more
/// than one, their keys are made in `keys`, a buffer kept for them.
struct KvInsert {
    c: Box<dyn KvClient>,
    id: u32,
    seq: u64,
    rows: u64,
    keys: Vec<u8>,
}

impl Transactor for KvInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.seq += self.rows * u64::from(!retry);
        if self.rows == 1 {
            let mut k = [0u8; KEY_LEN];
            key(&mut k, self.id, self.seq);
            return self.c.set(&k, PAYLOAD.as_bytes());
        }
        let first = self.seq + 1 - self.rows;
        for (out, seq) in self.keys.chunks_exact_mut(KEY_LEN).zip(first..) {
            key(out, self.id, seq);
        }
        self.c.set_all(&mut self.keys.chunks_exact(KEY_LEN), PAYLOAD.as_bytes())
    }
    fn abort(&mut self) {}
}

/// A document's fields: client, seq, payload.
type Fields = [(&'static str, DocValue<'static>); 3];

/// A client's new documents, one insert of `docs.len()` per transaction, numbered as
/// `SqlInsert` numbers rows; their fields are written in `docs`, kept for them.
struct DocInsert {
    c: Box<dyn DocClient>,
    id: i64,
    seq: i64,
    docs: Vec<Fields>,
}

impl Transactor for DocInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        let rows = self.docs.len() as i64;
        self.seq += rows * i64::from(!retry);
        let first = self.seq + 1 - rows;
        for (fields, seq) in self.docs.iter_mut().zip(first..) {
            fields[1].1 = DocValue::Int(seq);
        }
        // `_id` from the client and its sequence: unique without a round trip, as a
        // driver's ObjectId is.
        let id = self.id;
        let mut docs =
            self.docs.iter().zip(first..).map(|(fields, seq)| NewDoc { id: DocValue::Int(id << 40 | seq), fields });
        self.c.insert_each(TABLE, &mut docs)
    }
    fn abort(&mut self) {}
}
