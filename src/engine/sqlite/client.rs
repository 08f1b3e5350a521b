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

/// A connection's prepared statements, each borrowing it.
type Statements<'conn> = Vec<Statement<'conn>>;

self_cell::self_cell!(
    /// A connection and the statements prepared on it, kept together.
    struct Prepared {
        owner: rusqlite::Connection,
        #[covariant]
        dependent: Statements,
    }
);

/// A connection with its prepared statements.
pub(super) struct SqliteClient {
    prepared: Prepared,
    /// A number's text for `query_each`, reused.
    scratch: String,
}

// SAFETY: a `Statement` is not `Send` only because it borrows its `Connection`, which is.
// Here the connection and every statement on it move together as one value, and a client
// is used by one thread at a time (SQLite's multi-thread mode allows that).
unsafe impl Send for SqliteClient {}

const BEGIN_WRITE: Stmt = Stmt(0);
const BEGIN_READ: Stmt = Stmt(1);
const COMMIT: Stmt = Stmt(2);
const ROLLBACK: Stmt = Stmt(3);

impl SqliteClient {
    pub(super) fn new(conn: rusqlite::Connection) -> SqliteClient {
        let mut c = SqliteClient { prepared: Prepared::new(conn, |_| Vec::new()), scratch: String::new() };
        for sql in ["BEGIN IMMEDIATE", "BEGIN", "COMMIT", "ROLLBACK"] {
            c.prepare(sql).expect("static transaction statements prepare");
        }
        c
    }

    /// Bind `params` to statement `s` and hand it to `run`.
    fn with_bound<T>(
        &mut self,
        s: Stmt,
        params: &[Param],
        run: impl FnOnce(&mut Statement<'_>) -> TxResult<T>,
    ) -> TxResult<T> {
        self.prepared.with_dependent_mut(|_, stmts| {
            let st = &mut stmts[s.0];
            for (i, p) in params.iter().enumerate() {
                st.raw_bind_parameter(i + 1, p).map_err(tx_err)?;
            }
            run(st)
        })
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
        self.prepared.borrow_owner().execute_batch(sql).map_err(tx_err)
    }
    fn prepare(&mut self, sql: &str) -> TxResult<Stmt> {
        self.prepared.with_dependent_mut(|conn, stmts| {
            stmts.push(conn.prepare(sql).map_err(tx_err)?);
            Ok(Stmt(stmts.len() - 1))
        })
    }
    fn execute(&mut self, s: Stmt, params: &[Param]) -> TxResult<u64> {
        self.with_bound(s, params, |st| st.raw_execute().map(|n| n as u64).map_err(tx_err))
    }
    fn query_i64(&mut self, s: Stmt, params: &[Param]) -> TxResult<Option<i64>> {
        self.with_bound(s, params, |st| match st.raw_query().next().map_err(tx_err)? {
            Some(row) => row.get::<_, Option<i64>>(0).map_err(tx_err),
            None => Ok(None),
        })
    }
    fn query_rows(&mut self, s: Stmt, params: &[Param]) -> TxResult<u64> {
        self.with_bound(s, params, |st| {
            let mut rows = st.raw_query();
            let mut n = 0;
            // Each step makes SQLite produce the next row: this is reading it.
            while rows.next().map_err(tx_err)?.is_some() {
                n += 1;
            }
            Ok(n)
        })
    }
    fn query_each(
        &mut self,
        s: Stmt,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> TxResult<u64> {
        use std::fmt::Write as _;
        let scratch = &mut self.scratch;
        let prepared = &mut self.prepared;
        prepared.with_dependent_mut(|_, stmts| {
            let st = &mut stmts[s.0];
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
        })
    }
    fn begin(&mut self, write: bool) -> TxResult<()> {
        self.execute(if write { BEGIN_WRITE } else { BEGIN_READ }, &[]).map(drop)
    }
    fn commit(&mut self) -> TxResult<()> {
        self.execute(COMMIT, &[]).map(drop)
    }
    fn rollback(&mut self) {
        if !self.prepared.borrow_owner().is_autocommit() {
            let _ = self.execute(ROLLBACK, &[]);
        }
    }
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!("INSERT INTO {table} ({}) VALUES ({marks})", columns.join(", "));
        let tx = self.prepared.borrow_owner().unchecked_transaction().map_err(tx_err)?;
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
