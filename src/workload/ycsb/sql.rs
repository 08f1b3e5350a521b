//! YCSB on SQL engines, as its JDBC binding: `usertable (ycsb_key varchar(255) primary
//! key, field0 … field9)`, one autocommitted statement per operation (two for a
//! read-modify-write), scans in key order.

use super::client::{Client, Driver, Store};
use super::kind::Records;
use super::{FIELD_LEN, FIELD_NAMES, FIELDS, records, text};
use crate::engine::{Connection, Datum, Interface, Param, SqlClient, Stmt, TxResult};
use crate::error::Result;
use crate::workload::store::{Kind, Need, into_sql, sql};
use crate::workload::{Transactor, step, until_signal};

const TABLE: &str = "usertable";

/// `varchar(100)` rather than YCSB's `TEXT`: MariaDB's MEMORY tables (the unlogged
/// profile) cannot hold TEXT.
fn columns() -> String {
    let fields: Vec<String> = FIELD_NAMES.iter().map(|f| format!("{f} varchar({FIELD_LEN})")).collect();
    format!("ycsb_key varchar(255) not null, {}", fields.join(", "))
}

/// Create usertable and bulk-load `n` records.
fn load(c: &mut dyn SqlClient, n: u64) -> Result<()> {
    step("create usertable", c.create_table(TABLE, &columns(), Some("ycsb_key")))?;
    let mut names = vec!["ycsb_key"];
    names.extend(FIELD_NAMES);
    let mut rows = until_signal(records(n).map(|(key, fields)| {
        let mut row = Vec::with_capacity(FIELDS + 1);
        row.push(Datum::Text(key.as_str().to_string()));
        row.extend(fields.iter().map(|f| Datum::Text(text(f).to_string())));
        row
    }));
    step("load usertable", c.load(TABLE, &names, &mut rows))?;
    step("finish the load", c.finish_load())
}

/// Whether usertable holds `want` records, each with its ten full fields; what was found.
fn verify(c: &mut dyn SqlClient, want: u64) -> Result<(bool, String)> {
    let count = step("verify", c.scalar(&format!("SELECT count(*) FROM {TABLE}")))?;
    let short: Vec<String> = FIELD_NAMES.iter().map(|f| format!("coalesce(length({f}), 0) <> {FIELD_LEN}")).collect();
    let malformed = step("verify", c.scalar(&format!("SELECT count(*) FROM {TABLE} WHERE {}", short.join(" OR "))))?;
    let ok = count == want as i64 && malformed == 0;
    Ok((ok, format!("count(*) {count}, {malformed} with a field not {FIELD_LEN} bytes")))
}

/// YCSB's statements, prepared once per client.
pub struct SqlStore {
    conn: Box<dyn SqlClient>,
    read: Stmt,
    /// `UPDATE usertable SET fieldN = ? …`, by field.
    update: [Stmt; FIELDS],
    insert: Stmt,
    scan: Stmt,
}

impl SqlStore {
    /// Prepare the statements on `conn`.
    pub fn new(mut conn: Box<dyn SqlClient>) -> Result<SqlStore> {
        let mut p = |s: &str| step("prepare", conn.prepare(s));
        let read = p(&format!("SELECT * FROM {TABLE} WHERE ycsb_key = ?"))?;
        let mut update = [Stmt(0); FIELDS];
        for (s, f) in update.iter_mut().zip(FIELD_NAMES) {
            *s = p(&format!("UPDATE {TABLE} SET {f} = ? WHERE ycsb_key = ?"))?;
        }
        let marks = ["?"; FIELDS + 1].join(", ");
        let insert = p(&format!("INSERT INTO {TABLE} (ycsb_key, {}) VALUES ({marks})", FIELD_NAMES.join(", ")))?;
        let scan = p(&format!("SELECT * FROM {TABLE} WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?"))?;
        Ok(SqlStore { conn, read, update, insert, scan })
    }
}

impl Store for SqlStore {
    fn read(&mut self, key: &str) -> TxResult<bool> {
        Ok(self.conn.query_rows(self.read, &[Param::Text(key)])? == 1)
    }
    fn update(&mut self, key: &str, field: usize, value: &str) -> TxResult<bool> {
        Ok(self.conn.execute(self.update[field], &[Param::Text(value), Param::Text(key)])? == 1)
    }
    fn insert(&mut self, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()> {
        let mut params = [Param::Text(key); FIELDS + 1];
        for (p, f) in params[1..].iter_mut().zip(fields) {
            *p = Param::Text(text(f));
        }
        self.conn.execute(self.insert, &params).map(drop)
    }
    fn scan(&mut self, key: &str, len: usize) -> TxResult<u64> {
        self.conn.query_rows(self.scan, &[Param::Text(key), Param::Int(len as i64)])
    }
    fn abort(&mut self) {
        self.conn.rollback();
    }
}

/// Records as rows of a SQL table.
pub struct Sql;

impl Kind for Sql {
    fn need(&self) -> Need {
        Need { interface: Interface::Sql, capabilities: &[] }
    }
}

impl Records for Sql {
    fn load(&self, conn: &mut Connection, n: u64) -> Result<()> {
        load(sql(conn)?, n)
    }
    fn client(&self, conn: Connection, driver: Driver) -> Result<Box<dyn Transactor>> {
        Ok(Box::new(Client::new(SqlStore::new(into_sql(conn)?)?, driver)))
    }
    fn verify(&self, conn: &mut Connection, want: u64) -> Result<(bool, String)> {
        verify(sql(conn)?, want)
    }
}
