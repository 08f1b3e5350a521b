//! The SQLite client: one connection and its prepared statements.

use crate::engine::{Datum, Dialect, Param, SqlClient, Stmt, TxError, TxResult};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{ErrorCode, Statement, ToSql};

/// Blanks for char(n) fillers, borrowed rather than allocated per row.
const BLANKS: &str = "                                                                                                                                ";

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Param::Int(i) => ValueRef::Integer(i),
            Param::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

impl ToSql for Datum {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Datum::Null => ValueRef::Null,
            Datum::Int(i) => ValueRef::Integer(*i),
            Datum::Text(s) => ValueRef::Text(s.as_bytes()),
            Datum::Blank(n) => ValueRef::Text(&BLANKS.as_bytes()[..(*n).min(BLANKS.len())]),
        }))
    }
}

fn tx_err(e: rusqlite::Error) -> TxError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => TxError::Retry,
        _ => TxError::Fail(format!("sqlite: {e}")),
    }
}

/// A connection with its prepared statements.
pub(super) struct SqliteClient {
    // Declared before `conn`: fields drop in order, so statements are finalized first.
    stmts: Vec<Statement<'static>>,
    conn: Box<rusqlite::Connection>,
    /// A number's text for `query_each`, reused.
    scratch: String,
}

// SAFETY: the connection and the statements that borrow it always move together, and a
// client is used by one thread at a time (SQLite's multi-thread mode allows that).
unsafe impl Send for SqliteClient {}

const BEGIN_WRITE: Stmt = Stmt(0);
const BEGIN_READ: Stmt = Stmt(1);
const COMMIT: Stmt = Stmt(2);
const ROLLBACK: Stmt = Stmt(3);

impl SqliteClient {
    pub(super) fn new(conn: rusqlite::Connection) -> SqliteClient {
        let mut c = SqliteClient { stmts: Vec::new(), conn: Box::new(conn), scratch: String::new() };
        for sql in ["BEGIN IMMEDIATE", "BEGIN", "COMMIT", "ROLLBACK"] {
            c.prepare(sql).expect("static transaction statements prepare");
        }
        c
    }

    fn bind(&mut self, s: Stmt, params: &[Param]) -> TxResult<&mut Statement<'static>> {
        let st = &mut self.stmts[s.0];
        for (i, p) in params.iter().enumerate() {
            st.raw_bind_parameter(i + 1, p).map_err(tx_err)?;
        }
        Ok(st)
    }
}

impl SqlClient for SqliteClient {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    /// An INTEGER primary key becomes SQLite's rowid: declared at once, never rebuilt.
    fn create_table(&mut self, name: &str, columns: &str, key: Option<&str>) -> TxResult<()> {
        let key = key.map_or(String::new(), |k| format!(", PRIMARY KEY ({k})"));
        self.batch(&format!("CREATE TABLE {name} ({columns}{key})"))
    }
    fn batch(&mut self, sql: &str) -> TxResult<()> {
        self.conn.execute_batch(sql).map_err(tx_err)
    }
    fn prepare(&mut self, sql: &str) -> TxResult<Stmt> {
        let st = self.conn.prepare(sql).map_err(tx_err)?;
        // SAFETY: the statement borrows the boxed connection, whose address is stable and
        // which outlives it (see the field order of SqliteClient).
        let st: Statement<'static> = unsafe { std::mem::transmute(st) };
        self.stmts.push(st);
        Ok(Stmt(self.stmts.len() - 1))
    }
    fn execute(&mut self, s: Stmt, params: &[Param]) -> TxResult<u64> {
        self.bind(s, params)?.raw_execute().map(|n| n as u64).map_err(tx_err)
    }
    fn query_i64(&mut self, s: Stmt, params: &[Param]) -> TxResult<Option<i64>> {
        let st = self.bind(s, params)?;
        let mut rows = st.raw_query();
        match rows.next().map_err(tx_err)? {
            Some(row) => row.get::<_, Option<i64>>(0).map_err(tx_err),
            None => Ok(None),
        }
    }
    fn query_rows(&mut self, s: Stmt, params: &[Param]) -> TxResult<u64> {
        let mut rows = self.bind(s, params)?.raw_query();
        let mut n = 0;
        // Each step makes SQLite produce the next row: this is reading it.
        while rows.next().map_err(tx_err)?.is_some() {
            n += 1;
        }
        Ok(n)
    }
    fn query_each(
        &mut self,
        s: Stmt,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> TxResult<u64> {
        use std::fmt::Write as _;
        let scratch = &mut self.scratch;
        let st = &mut self.stmts[s.0];
        for (i, p) in params.iter().enumerate() {
            st.raw_bind_parameter(i + 1, p).map_err(tx_err)?;
        }
        let columns = st.column_count();
        let mut rows = st.raw_query();
        let mut n = 0;
        while let Some(r) = rows.next().map_err(tx_err)? {
            n += 1;
            for i in 0..columns {
                let name = r.as_ref().column_name(i).unwrap_or("?column?");
                scratch.clear();
                let value = match r.get_ref(i).map_err(tx_err)? {
                    ValueRef::Null => None,
                    ValueRef::Integer(v) => {
                        let _ = write!(scratch, "{v}");
                        Some(scratch.as_str())
                    }
                    ValueRef::Real(v) => {
                        let _ = write!(scratch, "{v:?}");
                        Some(scratch.as_str())
                    }
                    ValueRef::Text(t) | ValueRef::Blob(t) => Some(std::str::from_utf8(t).unwrap_or("")),
                };
                row(i, name, value);
            }
        }
        Ok(n)
    }
    fn begin(&mut self, write: bool) -> TxResult<()> {
        self.execute(if write { BEGIN_WRITE } else { BEGIN_READ }, &[]).map(drop)
    }
    fn commit(&mut self) -> TxResult<()> {
        self.execute(COMMIT, &[]).map(drop)
    }
    fn rollback(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.execute(ROLLBACK, &[]);
        }
    }
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!("INSERT INTO {table} ({}) VALUES ({marks})", columns.join(", "));
        let tx = self.conn.unchecked_transaction().map_err(tx_err)?;
        let mut n = 0;
        {
            let mut st = tx.prepare(&sql).map_err(tx_err)?;
            for row in rows {
                for (i, d) in row.iter().enumerate() {
                    st.raw_bind_parameter(i + 1, d).map_err(tx_err)?;
                }
                st.raw_execute().map_err(tx_err)?;
                n += 1;
            }
        }
        // Rows stop coming early on Ctrl-C: drop the partial load rather than commit it.
        if crate::signals::pending().is_some() {
            return Err(TxError::Fail("load interrupted".into()));
        }
        tx.commit().map_err(tx_err)?;
        Ok(n)
    }
}
