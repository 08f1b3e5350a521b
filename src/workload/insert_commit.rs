//! `insert-commit`: one-row INSERT + COMMIT per transaction into an unindexed table
//! (a SET of a new key on key-value engines, an insertOne of a new document on document
//! engines). It measures the cost of a commit.

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
const NAME: &str = "insert-commit";

/// One kind of store for the inserts: its fresh data set, a client on it, its count.
trait Inserts: Kind {
    /// Start a fresh data set.
    fn prepare(&self, conn: &mut Connection) -> Result<()>;
    /// Client `id`'s transactor, its keys numbered from `seq` on.
    fn client(&self, conn: Connection, id: u32, seq: u64) -> Result<Box<dyn Transactor>>;
    /// Rows, keys or documents inserted.
    fn count(&self, conn: &mut Connection) -> Result<u64>;
}

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
    fn client(&self, conn: Connection, id: u32, _seq: u64) -> Result<Box<dyn Transactor>> {
        let mut c = into_sql(conn)?;
        let insert =
            step("prepare", c.prepare(&format!("INSERT INTO {TABLE} (client, seq, payload) VALUES (?, ?, ?)")))?;
        // Rows need no unique key: an int4 column counts from 0 each time.
        Ok(Box::new(SqlInsert { c, insert, id: id.into(), seq: 0 }))
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
    fn client(&self, conn: Connection, id: u32, seq: u64) -> Result<Box<dyn Transactor>> {
        Ok(Box::new(KvInsert { c: into_kv(conn)?, id, seq }))
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
    fn client(&self, conn: Connection, id: u32, seq: u64) -> Result<Box<dyn Transactor>> {
        Ok(Box::new(DocInsert { c: into_doc(conn)?, id: id.into(), seq: seq as i64 }))
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
        "one-row INSERT + COMMIT per transaction (a SET of a new key on key-value engines, an insertOne on mongo)"
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql, Interface::Kv, Interface::Doc]
    }
    fn prepare(&self, load: &mut Loader, _opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let conn = load.conn();
        store::pick(&KINDS, conn, self.name())?.prepare(conn)?;
        Ok(Box::new(Cell { built: Vec::new() }))
    }
}

/// A cell's insert-commit data set: its clients share nothing but the numbering of the
/// keys and documents they insert, unique across the repeats that keep it.
struct Cell {
    /// Transactors built so far for each client id: each build's sequence starts in a
    /// range of its own, 2^28 inserts wide.
    built: Vec<u64>,
}

impl CellWorkload for Cell {
    fn client(&mut self, mut conn: Connection, id: u32, _seed: u64) -> Result<Box<dyn Transactor>> {
        let slot = id as usize;
        if self.built.len() <= slot {
            self.built.resize(slot + 1, 0);
        }
        let seq = self.built[slot] << 28;
        self.built[slot] += 1;
        store::pick(&KINDS, &mut conn, NAME)?.client(conn, id, seq)
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let rows = store::pick(&KINDS, conn, NAME)?.count(conn)?;
        Ok(Verdict { ok: rows == committed, detail: format!("{rows} rows, {committed} committed transactions") })
    }
}

struct SqlInsert {
    c: Box<dyn SqlClient>,
    insert: Stmt,
    id: i64,
    seq: i64,
}

impl Transactor for SqlInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.seq += i64::from(!retry);
        let c = &mut self.c;
        c.begin(true)?;
        c.execute(self.insert, &[Param::Int(self.id), Param::Int(self.seq), Param::Text(PAYLOAD)])?;
        c.commit()
    }
    fn abort(&mut self) {
        self.c.rollback();
    }
}

struct KvInsert {
    c: Box<dyn KvClient>,
    id: u32,
    seq: u64,
}

impl Transactor for KvInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.seq += u64::from(!retry);
        // A fixed-size binary key: "ic", client, sequence; nothing to format.
        let mut key = [0u8; 14];
        key[..2].copy_from_slice(b"ic");
        key[2..6].copy_from_slice(&self.id.to_be_bytes());
        key[6..].copy_from_slice(&self.seq.to_be_bytes());
        self.c.set(&key, PAYLOAD.as_bytes())
    }
    fn abort(&mut self) {}
}

struct DocInsert {
    c: Box<dyn DocClient>,
    id: i64,
    seq: i64,
}

impl Transactor for DocInsert {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.seq += i64::from(!retry);
        // `_id` from the client and its sequence: unique without a round trip, as a
        // driver's ObjectId is.
        let fields = [
            ("client", DocValue::Int(self.id)),
            ("seq", DocValue::Int(self.seq)),
            ("payload", DocValue::Text(PAYLOAD)),
        ];
        let doc = NewDoc { id: DocValue::Int(self.id << 40 | self.seq), fields: &fields };
        self.c.insert(TABLE, &[doc])
    }
    fn abort(&mut self) {}
}
