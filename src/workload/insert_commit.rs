//! `insert-commit`: one-row INSERT + COMMIT per transaction into an unindexed table
//! (a SET of a new key on key-value engines, an insertOne of a new document on document
//! engines). It measures the cost of a commit.

use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, step};
use crate::engine::{Connection, DocClient, DocValue, Interface, KvClient, NewDoc, Param, SqlClient, Stmt, TxResult};
use crate::error::Result;

/// The insert-commit workload.
pub struct InsertCommit;

/// 100 bytes of payload per row or value.
const PAYLOAD: &str =
    "dbrace-insert-commit-payload-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-012345";
const TABLE: &str = "dbrace_insert";

impl Workload for InsertCommit {
    fn name(&self) -> &str {
        "insert-commit"
    }
    fn about(&self) -> &str {
        "one-row INSERT + COMMIT per transaction (a SET of a new key on key-value engines, an insertOne on mongo)"
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql, Interface::Kv, Interface::Doc]
    }
    fn prepare(&self, load: &mut Loader, _opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let conn = load.conn();
        if let Connection::Sql(c) = conn {
            step("create table", c.create_table(TABLE, "client integer, seq integer, payload varchar(100)", None))?;
            step("finish the load", c.finish_load())?;
        }
        if let Connection::Doc(c) = conn {
            step("drop collection", c.drop_collection(TABLE))?;
        }
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
    fn client(&mut self, conn: Connection, id: u32, _seed: u64) -> Result<Box<dyn Transactor>> {
        let slot = id as usize;
        if self.built.len() <= slot {
            self.built.resize(slot + 1, 0);
        }
        let seq = self.built[slot] << 28;
        self.built[slot] += 1;
        Ok(match conn {
            Connection::Sql(mut c) => {
                let insert = step(
                    "prepare",
                    c.prepare(&format!("INSERT INTO {TABLE} (client, seq, payload) VALUES (?, ?, ?)")),
                )?;
                // Rows need no unique key: an int4 column counts from 0 each time.
                Box::new(SqlInsert { c, insert, id: id.into(), seq: 0 })
            }
            Connection::Kv(c) => Box::new(KvInsert { c, id, seq }),
            Connection::Doc(c) => Box::new(DocInsert { c, id: id.into(), seq: seq as i64 }),
        })
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let rows = match conn {
            Connection::Sql(c) => step("verify", c.scalar(&format!("SELECT count(*) FROM {TABLE}")))? as u64,
            Connection::Kv(c) => step("verify", c.count())?,
            Connection::Doc(c) => step("verify", c.count(TABLE))?,
        };
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
