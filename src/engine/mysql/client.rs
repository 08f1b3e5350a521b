//! A synchronous SQL client: our own wire client (wire/) where the account logs in by
//! mysql_native_password (managed servers, most `--url` accounts), else mysql_async on a
//! current-thread tokio runtime it blocks on. Our wire client parks in a fiber like the
//! other engines' (`--threads`); a mysql_async client keeps a thread of its own.
//! Statements are prepared once (binary protocol, `?` placeholders are MySQL's own); loads
//! go by LOAD DATA LOCAL INFILE from memory.
//!
//! mysql_async is built without TLS (its TLS would bring OpenSSL or a second rustls
//! stack): an account it must log in, under an `ssl-mode` that insists on TLS, is refused
//! in one line; under PREFERRED it logs in without TLS, and the settings say `tls: off`.

use super::endpoint::Endpoint;
use super::wire::{self, Wire, WireConnect};
use crate::engine::kit::patient;
use crate::engine::{ConnectError, Datum, Dialect, Param, SqlClient, Stmt, TxError, TxResult};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Row, Statement, Value};
use std::time::Duration;

/// Bytes per multi-row INSERT of a load, under any server's max_allowed_packet (4 MiB on
/// MySQL 5.7, 16 MiB on MariaDB 10.11, 64 MiB on MySQL 8); LOAD DATA streams 4 times that.
const LOAD_CHUNK: usize = 1 << 20;

/// How a client talks to the server.
enum Link {
    /// Our wire client: no per-row decoding, no allocation per statement.
    Wire(Wire),
    /// mysql_async, for accounts that log in some other way.
    Async(AsyncLink),
}

/// A mysql_async connection and the runtime it runs on (`conn` is taken by drop, or by a
/// wait given up on: its protocol state is then unknown).
struct AsyncLink {
    rt: tokio::runtime::Runtime,
    conn: Option<Conn>,
    stmts: Vec<Statement>,
    /// A wait was given up on: the connection must go.
    gone: std::cell::Cell<bool>,
}

/// What is left of a connection whose wait was given up on.
const GONE: &str = "mysql: connection lost: an earlier statement got no answer in time";

impl AsyncLink {
    fn parts(&mut self) -> TxResult<(Waiter<'_>, &mut Conn, &mut Vec<Statement>)> {
        if self.gone.get() {
            // Mid-exchange: no goodbye, the server sees the socket close.
            self.conn = None;
        }
        let conn = self.conn.as_mut().ok_or_else(|| TxError::Fail(GONE.into()))?;
        Ok((Waiter { rt: &self.rt, gone: &self.gone }, conn, &mut self.stmts))
    }
}

/// Runs one mysql_async call to its end on the link's runtime, as our wire client waits:
/// in slices, giving up after `patient::IDLE_TIMEOUT` without an answer or soon after a
/// signal, so a server that stops answering cannot hold a client forever.
struct Waiter<'a> {
    rt: &'a tokio::runtime::Runtime,
    gone: &'a std::cell::Cell<bool>,
}

impl Waiter<'_> {
    fn wait<T>(&self, f: impl std::future::Future<Output = mysql_async::Result<T>>) -> TxResult<T> {
        let r = self.rt.block_on(async {
            let mut f = std::pin::pin!(f);
            let start = std::time::Instant::now();
            loop {
                if let Ok(r) = tokio::time::timeout(patient::SLICE, &mut f).await {
                    return Ok(r);
                }
                if let Some(sig) = crate::signals::pending()
                    && start.elapsed() >= patient::GRACE
                {
                    return Err(format!("mysql: interrupted by signal {sig} while waiting for the server"));
                }
                if start.elapsed() >= patient::IDLE_TIMEOUT {
                    let idle = humantime::format_duration(patient::IDLE_TIMEOUT);
                    return Err(format!("mysql: connection lost: no answer within {idle}"));
                }
            }
        });
        match r {
            Ok(r) => r.map_err(tx_err),
            Err(why) => {
                self.gone.set(true);
                Err(TxError::Fail(why))
            }
        }
    }
}

impl Drop for AsyncLink {
    fn drop(&mut self) {
        if let Some(c) = self.conn.take().filter(|_| !self.gone.get()) {
            let _ = self.rt.block_on(async { tokio::time::timeout(Duration::from_secs(1), c.disconnect()).await });
        }
    }
}

/// One connection.
pub struct MyClient {
    link: Link,
    /// `ENGINE=MEMORY` for the `unlogged` profile.
    memory_tables: bool,
    in_tx: bool,
    /// Tables created for a load, analyzed by `finish_load`.
    loaded: Vec<String>,
}

/// Say goodbye to the server, so that it logs no aborted connection.
impl Drop for MyClient {
    fn drop(&mut self) {
        if let Link::Wire(w) = &mut self.link {
            w.quit();
        }
    }
}

impl MyClient {
    /// Connect within the endpoint's connect timeout; `memory_tables` makes `create_table` create MEMORY tables.
    pub fn connect(at: &Endpoint, memory_tables: bool) -> Result<MyClient, ConnectError> {
        let link = match Wire::connect(at) {
            Ok(w) => Link::Wire(w),
            Err(WireConnect::Unreachable(m)) => return Err(ConnectError::Unreachable(m)),
            Err(WireConnect::Refused(m)) => return Err(ConnectError::Refused(m)),
            Err(WireConnect::Full(m)) => return Err(ConnectError::Full(m)),
            Err(WireConnect::Tls(m)) => return Err(ConnectError::Tls(m)),
            Err(WireConnect::Unsupported(why)) if at.tls.mode.insists() => {
                return Err(ConnectError::Tls(format!(
                    "{}: {why}, which dbrace logs in by mysql_async, built without TLS; with ssl-mode={} use an \
                     account IDENTIFIED VIA mysql_native_password, or use ssl-mode=PREFERRED to go without TLS",
                    at.redacted(),
                    super::endpoint::ssl_mode_name(at.tls.mode)
                )));
            }
            Err(WireConnect::Unsupported(_)) => Self::connect_async(at)?,
        };
        Ok(MyClient { link, memory_tables, in_tx: false, loaded: Vec::new() })
    }

    /// One wait for the server lasts `idle` at most (a reader of counters gives up early);
    /// the mysql_async fallback keeps its own bound.
    pub fn set_patience(&mut self, idle: std::time::Duration) {
        if let Link::Wire(w) = &mut self.link {
            w.set_idle(idle);
        }
    }

    /// The TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or None.
    pub fn tls(&self) -> Option<&str> {
        match &self.link {
            Link::Wire(w) => w.tls(),
            Link::Async(_) => None,
        }
    }

    fn connect_async(at: &Endpoint) -> Result<Link, ConnectError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ConnectError::Unreachable(format!("cannot start a tokio runtime: {e}")))?;
        let where_ = at.redacted();
        let limit = at.connect_timeout.unwrap_or(patient::FOREVER);
        // Waited for in slices, so that a signal ends the wait as it does our wire client's.
        let conn = rt
            .block_on(async {
                let mut connect = std::pin::pin!(Conn::new(at.opts.clone()));
                let start = std::time::Instant::now();
                loop {
                    if let Ok(r) = tokio::time::timeout(patient::SLICE, &mut connect).await {
                        return Some(r);
                    }
                    if crate::signals::pending().is_some() || start.elapsed() >= limit {
                        return None;
                    }
                }
            })
            .ok_or_else(|| {
                ConnectError::Unreachable(format!(
                    "cannot connect to {where_}: no answer within {}",
                    humantime::format_duration(limit)
                ))
            })?
            .map_err(|e| match e {
                mysql_async::Error::Server(s) => ConnectError::Refused(format!("{where_}: {} ({})", s.message, s.code)),
                mysql_async::Error::Io(mysql_async::IoError::Io(e)) => {
                    ConnectError::Unreachable(format!("cannot connect to {where_}: {e}"))
                }
                e => ConnectError::Unreachable(format!("cannot connect to {where_}: {e}")),
            })?;
        Ok(Link::Async(AsyncLink { rt, conn: Some(conn), stmts: Vec::new(), gone: Default::default() }))
    }

    /// Run a statement by the text protocol, discarding any result.
    fn query(&mut self, sql: &str) -> TxResult<()> {
        match &mut self.link {
            Link::Wire(w) => w.query(sql, None, None).map_err(wire::tx_err),
            Link::Async(a) => {
                let (rt, conn, _) = a.parts()?;
                rt.wait(conn.query_drop(sql))
            }
        }
    }

    /// One value of a one-row query, as text (settings and versions).
    pub fn value(&mut self, sql: &str) -> TxResult<Option<String>> {
        let (rt, conn) = match &mut self.link {
            Link::Wire(w) => {
                let mut first = None;
                w.query(sql, Some(&mut first), None).map_err(wire::tx_err)?;
                return Ok(first);
            }
            Link::Async(a) => {
                let (rt, conn, _) = a.parts()?;
                (rt, conn)
            }
        };
        let row: Option<Row> = rt.wait(conn.query_first(sql))?;
        Ok(row.and_then(|r| r.as_ref(0).cloned()).and_then(|v| match v {
            Value::NULL => None,
            Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            Value::Int(i) => Some(i.to_string()),
            Value::UInt(u) => Some(u.to_string()),
            other => Some(other.as_sql(true)),
        }))
    }

    fn params(params: &[Param]) -> Params {
        if params.is_empty() {
            return Params::Empty;
        }
        Params::Positional(
            params
                .iter()
                .map(|p| match *p {
                    Param::Int(i) => Value::Int(i),
                    Param::Text(t) => Value::Bytes(t.as_bytes().to_vec()),
                })
                .collect(),
        )
    }
}

/// MySQL error codes the runner retries: deadlock (the server rolled back the whole
/// transaction), lock wait timeout, and MariaDB's "record has changed since last read";
/// a duplicate key is retried only by workloads that ask for it (oltp).
fn tx_err(e: mysql_async::Error) -> TxError {
    match e {
        mysql_async::Error::Server(s) if matches!(s.code, 1213 | 1205 | 1020) => TxError::Retry,
        mysql_async::Error::Server(s) if s.code == 1062 => TxError::Duplicate(format!("mysql: {} (1062)", s.message)),
        mysql_async::Error::Server(s) if matches!(s.code, 1053 | 1927) => {
            TxError::Lost(format!("mysql: {} ({})", s.message, s.code))
        }
        mysql_async::Error::Server(s) => TxError::Fail(format!("mysql: {} ({})", s.message, s.code)),
        mysql_async::Error::Io(e) => TxError::Lost(format!("mysql: connection lost: {e}")),
        e => TxError::Fail(format!("mysql: {e}")),
    }
}

/// A value as an SQL literal: a blank char(n) filler is an empty string (CHAR pads itself),
/// text with a backslash or NUL goes as hex so no sql_mode can change its meaning.
fn literal(d: &Datum, out: &mut String) {
    use std::fmt::Write as _;
    match d {
        Datum::Null => out.push_str("NULL"),
        Datum::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Datum::Blank(_) => out.push_str("''"),
        Datum::Text(t) if t.contains(['\\', '\0']) => {
            out.push_str("X'");
            for b in t.bytes() {
                let _ = write!(out, "{b:02x}");
            }
            out.push('\'');
        }
        Datum::Text(t) => {
            out.push('\'');
            for c in t.chars() {
                out.push(c);
                if c == '\'' {
                    out.push(c);
                }
            }
            out.push('\'');
        }
    }
}

/// The first column of a row as an integer: counts come as integers, sums as DECIMAL text.
fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Float(f) => Some(*f as i64),
        Value::Double(f) => Some(*f as i64),
        Value::Bytes(b) => {
            let s = std::str::from_utf8(b).ok()?;
            s.parse::<i64>().ok().or_else(|| s.parse::<f64>().ok().map(|f| f as i64))
        }
        _ => None,
    }
}

impl SqlClient for MyClient {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }
    /// mysql_async blocks its thread on a runtime of its own.
    fn evented(&self) -> bool {
        matches!(self.link, Link::Wire(_))
    }
    /// The key is declared at once: InnoDB clusters rows by it, so loading in key order
    /// into the keyed table beats rebuilding the table with ALTER TABLE afterwards.
    fn create_table(&mut self, name: &str, columns: &str, key: Option<&str>) -> TxResult<()> {
        let key = key.map_or(String::new(), |k| format!(", PRIMARY KEY ({k})"));
        let engine = if self.memory_tables { " ENGINE=MEMORY" } else { "" };
        self.query(&format!("CREATE TABLE {name} ({columns}{key}){engine}"))?;
        self.loaded.push(name.to_string());
        Ok(())
    }
    /// InnoDB takes rows from several LOAD DATA streams at once: pgbench_accounts at
    /// scale 10 in two ranges on a throwaway MariaDB 10.11 loads in 2.2–3.4 s (median
    /// 2.7) against 3.6–4.4 s (3.9) in one, on 2 cores.
    fn splits_loads(&self) -> bool {
        true
    }
    /// Fresh statistics for the loaded tables (pgbench's ANALYZE step).
    fn finish_load(&mut self) -> TxResult<()> {
        let tables = std::mem::take(&mut self.loaded);
        if tables.is_empty() {
            return Ok(());
        }
        self.query(&format!("ANALYZE TABLE {}", tables.join(", ")))
    }
    fn batch(&mut self, sql: &str) -> TxResult<()> {
        self.query(sql)
    }
    fn prepare(&mut self, sql: &str) -> TxResult<Stmt> {
        match &mut self.link {
            Link::Wire(w) => w.prepare(sql).map(Stmt).map_err(wire::tx_err),
            Link::Async(a) => {
                let (rt, conn, stmts) = a.parts()?;
                let st = rt.wait(conn.prep(sql))?;
                stmts.push(st);
                Ok(Stmt(stmts.len() - 1))
            }
        }
    }
    fn execute(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64> {
        let (rt, conn, stmts) = match &mut self.link {
            Link::Wire(w) => return w.count(stmt.0, params).map_err(wire::tx_err),
            Link::Async(a) => a.parts()?,
        };
        rt.wait(conn.exec_drop(&stmts[stmt.0], Self::params(params)))?;
        Ok(conn.affected_rows())
    }
    fn query_i64(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<Option<i64>> {
        let (rt, conn, stmts) = match &mut self.link {
            Link::Wire(w) => return w.first_i64(stmt.0, params).map_err(wire::tx_err),
            Link::Async(a) => a.parts()?,
        };
        let row: Option<Row> = rt.wait(conn.exec_first(&stmts[stmt.0], Self::params(params)))?;
        Ok(row.and_then(|r| r.as_ref(0).and_then(as_i64)))
    }
    /// Every row is read to the end, as sysbench does with a range: the wire client counts
    /// packets; mysql_async decodes each row (~0.7 µs a row).
    fn query_rows(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64> {
        let (rt, conn, stmts) = match &mut self.link {
            Link::Wire(w) => return w.count(stmt.0, params).map_err(wire::tx_err),
            Link::Async(a) => a.parts()?,
        };
        let params = Self::params(params);
        let st = &stmts[stmt.0];
        rt.wait(async {
            let mut result = conn.exec_iter(st, params).await?;
            let mut n = 0u64;
            result.for_each(|_| n += 1).await?;
            Ok::<_, mysql_async::Error>(n)
        })
    }
    fn query_each(
        &mut self,
        stmt: Stmt,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> TxResult<u64> {
        let (rt, conn, stmts) = match &mut self.link {
            Link::Wire(w) => return w.each(stmt.0, params, row).map_err(wire::tx_err),
            Link::Async(a) => a.parts()?,
        };
        let rows: Vec<Row> = rt.wait(conn.exec(&stmts[stmt.0], Self::params(params)))?;
        for r in &rows {
            let columns = r.columns_ref();
            for (i, c) in columns.iter().enumerate() {
                let text = match r.as_ref(i) {
                    None | Some(Value::NULL) => None,
                    Some(Value::Bytes(b)) => Some(String::from_utf8_lossy(b).into_owned()),
                    Some(Value::Int(v)) => Some(v.to_string()),
                    Some(Value::UInt(v)) => Some(v.to_string()),
                    Some(v) => Some(v.as_sql(true).trim_matches('\'').to_string()),
                };
                row(i, &c.name_str(), text.as_deref());
            }
        }
        Ok(rows.len() as u64)
    }
    fn begin(&mut self, _write: bool) -> TxResult<()> {
        self.in_tx = true;
        self.query("BEGIN")
    }
    fn commit(&mut self) -> TxResult<()> {
        self.query("COMMIT")?;
        self.in_tx = false;
        Ok(())
    }
    fn rollback(&mut self) {
        if self.in_tx {
            let _ = self.query("ROLLBACK");
        }
        self.in_tx = false;
    }
    /// LOAD DATA LOCAL INFILE of about 4 MiB at a time (measured at scale 10 on MariaDB
    /// 10.11: 2.6–3.6 s, against 4.7 s for 1 MiB multi-row INSERTs and 6–13 s for MariaDB's
    /// unique_checks=0 bulk mode), or multi-row INSERTs where the server refuses local files
    /// (MySQL 8's default). Each chunk commits on its own: as fast as one transaction, and
    /// a Ctrl-C leaves at most one chunk to roll back rather than the whole table.
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        let infile = self.value("SELECT @@local_infile")?.is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("on"));
        let head = if infile {
            format!("LOAD DATA LOCAL INFILE 'dbrace' INTO TABLE {table} ({})", columns.join(", "))
        } else {
            format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "))
        };
        let limit = if infile { 4 * LOAD_CHUNK } else { LOAD_CHUNK };
        let mut chunk: Vec<u8> = Vec::with_capacity(limit + 4096);
        let mut n = 0;
        let mut rows = rows.peekable();
        while rows.peek().is_some() {
            chunk.clear();
            for row in rows.by_ref() {
                if infile {
                    tsv_row(&row, &mut chunk);
                } else {
                    chunk.extend_from_slice(if chunk.is_empty() { head.as_bytes() } else { b"," });
                    sql_row(&row, &mut chunk);
                }
                n += 1;
                if chunk.len() >= limit {
                    break;
                }
            }
            // Rows stop coming early on Ctrl-C: stop, the instance and its data are going away.
            if crate::signals::pending().is_some() {
                return Err(TxError::Fail("load interrupted".into()));
            }
            if chunk.is_empty() {
                break;
            }
            if infile {
                let data = std::mem::replace(&mut chunk, Vec::with_capacity(limit + 4096));
                self.load_chunk(&head, bytes::Bytes::from(data))?;
            } else {
                self.query(std::str::from_utf8(&chunk).map_err(|e| TxError::Fail(format!("load: {e}")))?)?;
            }
        }
        Ok(n)
    }
}

impl MyClient {
    /// One LOAD DATA LOCAL INFILE whose "file" is `data`.
    fn load_chunk(&mut self, sql: &str, data: bytes::Bytes) -> TxResult<()> {
        use futures_util::StreamExt;
        let (rt, conn) = match &mut self.link {
            Link::Wire(w) => return w.query(sql, None, Some(&data)).map_err(wire::tx_err),
            Link::Async(a) => {
                let (rt, conn, _) = a.parts()?;
                (rt, conn)
            }
        };
        conn.set_infile_handler(async move { Ok(futures_util::stream::once(async move { Ok(data) }).boxed()) });
        rt.wait(conn.query_drop(sql))
    }
}

/// A row in LOAD DATA's default text format: tab-separated, `\N` for NULL, backslash
/// escapes; a blank char(n) filler is an empty field (CHAR pads itself).
fn tsv_row(row: &[Datum], out: &mut Vec<u8>) {
    for (i, d) in row.iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        match d {
            Datum::Null => out.extend_from_slice(b"\\N"),
            Datum::Int(i) => {
                let _ = std::io::Write::write_fmt(out, format_args!("{i}"));
            }
            Datum::Blank(_) => {}
            Datum::Text(t) => {
                for b in t.bytes() {
                    match b {
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b'\t' => out.extend_from_slice(b"\\t"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        0 => out.extend_from_slice(b"\\0"),
                        _ => out.push(b),
                    }
                }
            }
        }
    }
    out.push(b'\n');
}

/// A row as `(v, v, …)` of SQL literals.
fn sql_row(row: &[Datum], out: &mut Vec<u8>) {
    let mut s = String::new();
    s.push('(');
    for (i, d) in row.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        literal(d, &mut s);
    }
    s.push(')');
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_survive_any_sql_mode() {
        let mut s = String::new();
        for d in [Datum::Null, Datum::Int(-7), Datum::Blank(84), Datum::Text("it's".into()), Datum::Text("a\\b".into())]
        {
            literal(&d, &mut s);
            s.push(' ');
        }
        assert_eq!(s, "NULL -7 '' 'it''s' X'615c62' ");
        assert_eq!(as_i64(&Value::Bytes(b"-12".to_vec())), Some(-12));
        assert_eq!(as_i64(&Value::Bytes(b"3.0000".to_vec())), Some(3));
        assert_eq!(as_i64(&Value::UInt(5)), Some(5));
        assert_eq!(as_i64(&Value::NULL), None);
    }
}
