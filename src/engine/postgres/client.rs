//! A small synchronous PostgreSQL client on the wire protocol (postgres-protocol encodes
//! the frontend messages; backend messages are read in place). Statements are prepared
//! once; each execution is one write (Bind, Describe, Execute, Sync: the messages
//! libpq's PQsendQueryPrepared sends for pgbench -M prepared) and reads into reused
//! buffers, so the measured path allocates nothing. Parameters and results use the text
//! format, as pgbench does; bulk loads use binary COPY.

pub use super::conn::{PgClient, Protocol};
use super::conninfo::ConnInfo;
use super::login::StartupError;
use super::messages::{Outcome, lost};
use super::placeholders::{numbered, spell};
use super::tls;
use crate::engine::kit::patient::{self, Patient};
use crate::engine::kit::stream::Stream;
use crate::engine::kit::tls::Mode;
use crate::engine::{ConnectError, Datum, Dialect, Param, SqlClient, Stmt, TxError, TxResult};
use postgres_protocol::message::frontend;
use std::time::Instant;

impl PgClient {
    /// How this connection's statements travel (`--protocol`): set before the first prepare.
    pub fn set_protocol(&mut self, protocol: Protocol) {
        self.protocol = protocol;
    }

    /// Connect and authenticate within the URL's `connect_timeout`, over TLS as its
    /// `sslmode` says; `unlogged` makes `create_table` create UNLOGGED tables. A server
    /// that answers in another protocol is named with what it said.
    pub fn connect(info: &ConnInfo, unlogged: bool) -> Result<PgClient, ConnectError> {
        let started = Instant::now();
        let mut c = match PgClient::attempt(info, unlogged, info.tls.mode.asks(), started) {
            // allow: plain first, and TLS when the server wants it, as libpq.
            Err(e) if tls::retry_with_tls(info, &e) => PgClient::attempt(info, unlogged, true, started),
            r => r,
        }
        .map_err(|e| e.described(info))?;
        c.stream.clear_deadline();
        c.stream.set_idle(Some(patient::IDLE_TIMEOUT));
        Ok(c)
    }

    /// One connection and its startup, asking for TLS first when `tls`.
    fn attempt(info: &ConnInfo, unlogged: bool, tls: bool, started: Instant) -> Result<PgClient, StartupError> {
        let where_ = info.redacted();
        let limit = info.connect_timeout.unwrap_or(patient::FOREVER).saturating_sub(started.elapsed());
        let limit = limit.max(std::time::Duration::from_millis(1));
        let unreachable = |e: std::io::Error| StartupError::Unreachable(format!("cannot connect to {where_}: {e}"));
        let stream = if info.host.starts_with('/') {
            let path = format!("{}/.s.PGSQL.{}", info.host, info.port);
            let s = patient::connect_unix(path.as_ref(), limit)
                .map_err(|e| StartupError::Unreachable(format!("cannot connect to {where_} ({path}): {e}")))?;
            Stream::Unix(s)
        } else {
            let addr = info.hostaddr.as_deref().unwrap_or(&info.host);
            Stream::Tcp(patient::connect_tcp(addr, info.port, limit).map_err(unreachable)?)
        };
        let mut stream = Patient::new(stream).map_err(unreachable)?;
        // libpq's connect_timeout covers the whole connection, TLS and logging in included.
        stream.set_deadline(started, info.connect_timeout);
        if tls {
            stream = tls::negotiate(stream, info)?;
        }
        let mut c = PgClient::over(stream, unlogged);
        c.startup(info)?;
        Ok(c)
    }

    /// A connection of dbrace's own beside the clients' (the counters', the wait events'):
    /// plain queries, since a pooler in between keeps no named statements; one wait lasts
    /// `PATIENCE` at most; named `application_name` so that it is never taken for a client.
    pub fn side(info: &ConnInfo, application_name: &str) -> Result<PgClient, String> {
        let mut client = PgClient::connect(info, false).map_err(|e| e.to_string())?;
        client.set_protocol(Protocol::Simple);
        client.set_patience(crate::engine::counters::PATIENCE);
        client.batch(&format!("SET application_name = '{application_name}'")).map_err(|e| e.to_string())?;
        Ok(client)
    }

    /// One wait for the server lasts `idle` at most (a reader of counters gives up early).
    pub fn set_patience(&mut self, idle: std::time::Duration) {
        self.stream.set_idle(Some(idle));
    }

    /// The value of a server setting, as SHOW prints it.
    pub fn show(&mut self, name: &str) -> TxResult<String> {
        self.text(&format!("SHOW {name}"))
    }

    /// The first column of the first row as text (setup, not the hot path).
    pub(super) fn text(&mut self, sql: &str) -> TxResult<String> {
        frontend::query(sql, &mut self.wbuf).map_err(lost)?;
        self.flush().map_err(lost)?;
        let (mut value, mut err) = (None, None);
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'D' if value.is_none() => {
                    let b = &self.rbuf[body];
                    value = Some(String::from_utf8_lossy(b.get(6..).unwrap_or_default()).into_owned());
                }
                b'E' => err = err.or(Some(self.error(body).message)),
                b'Z' => break,
                _ => {}
            }
        }
        err.map_or(Ok(value.unwrap_or_default()), |e| Err(TxError::Fail(format!("postgres: {e}"))))
    }

    /// The values spelled into the SQL text, as pgbench -M simple does.
    fn run_simple(&mut self, s: Stmt, params: &[Param]) -> TxResult<Outcome> {
        let mut q = std::mem::take(&mut self.query);
        q.clear();
        spell(&mut q, &self.statements[s.0].0, params);
        let r = self.simple(&q);
        self.query = q;
        r
    }

    pub(super) fn simple(&mut self, sql: &str) -> TxResult<Outcome> {
        frontend::query(sql, &mut self.wbuf).map_err(lost)?;
        self.flush().map_err(lost)?;
        self.finish()
    }

    fn run(&mut self, s: Stmt, params: &[Param]) -> TxResult<Outcome> {
        if self.protocol == Protocol::Simple {
            return self.run_simple(s, params);
        }
        let idle = self.status == b'I';
        self.send_execution(s, params)?;
        self.flush().map_err(lost)?;
        match self.finish() {
            Err(e) => {
                // A named statement the pooler lost: again, unnamed.
                self.fall_back(idle, e)?;
                self.send_execution(s, params)?;
                self.flush().map_err(lost)?;
                self.finish()
            }
            done => done,
        }
    }

    /// Run a statement, passing every row's columns (named by the RowDescription the
    /// Describe brings; the simple protocol describes by itself) to `row`.
    fn run_each(&mut self, s: Stmt, params: &[Param], row: &mut dyn FnMut(usize, &str, Option<&str>)) -> TxResult<u64> {
        let idle = self.status == b'I';
        match self.protocol {
            Protocol::Simple => {
                let mut q = std::mem::take(&mut self.query);
                q.clear();
                spell(&mut q, &self.statements[s.0].0, params);
                let sent = frontend::query(&q, &mut self.wbuf);
                self.query = q;
                sent.map_err(lost)?;
            }
            _ => self.send_execution(s, params)?,
        }
        self.flush().map_err(lost)?;
        match self.finish_each(row) {
            Err(e) => {
                // A lost name fails at Bind, before any row: nothing was passed to `row`.
                self.fall_back(idle, e)?;
                self.send_execution(s, params)?;
                self.flush().map_err(lost)?;
                self.finish_each(row)
            }
            done => done,
        }
    }
}

impl SqlClient for PgClient {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn evented(&self) -> bool {
        true
    }
    /// As pgbench: the table first, its primary key after the load.
    fn create_table(&mut self, name: &str, columns: &str, key: Option<&str>) -> TxResult<()> {
        let kind = if self.unlogged { "UNLOGGED TABLE" } else { "TABLE" };
        self.batch(&format!("CREATE {kind} {name} ({columns})"))?;
        self.loaded.push((name.to_string(), key.map(str::to_string)));
        Ok(())
    }
    /// pgbench's order: VACUUM (ANALYZE) the loaded tables, then add the primary keys.
    fn finish_load(&mut self) -> TxResult<()> {
        let tables: Vec<_> = std::mem::take(&mut self.loaded);
        if tables.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = tables.iter().map(|(t, _)| t.as_str()).collect();
        self.batch(&format!("VACUUM ANALYZE {}", names.join(", ")))?;
        for (t, key) in &tables {
            if let Some(k) = key {
                self.batch(&format!("ALTER TABLE {t} ADD PRIMARY KEY ({k})"))?;
            }
        }
        Ok(())
    }
    fn batch(&mut self, sql: &str) -> TxResult<()> {
        self.simple(sql).map(drop)
    }
    fn prepare(&mut self, sql: &str) -> TxResult<Stmt> {
        let s = Stmt(self.statements.len());
        let numbered = numbered(sql);
        if self.protocol == Protocol::Prepared {
            self.parse_named(s, &numbered)?;
        }
        self.statements.push((sql.to_string(), numbered));
        Ok(s)
    }
    fn execute(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64> {
        self.run(stmt, params).map(|r| r.changed)
    }
    fn query_i64(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<Option<i64>> {
        self.run(stmt, params).map(|r| r.first)
    }
    fn query_rows(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64> {
        self.run(stmt, params).map(|r| r.rows)
    }
    fn query_each(
        &mut self,
        stmt: Stmt,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> TxResult<u64> {
        self.run_each(stmt, params, row)
    }
    fn begin(&mut self, _write: bool) -> TxResult<()> {
        self.simple("BEGIN").map(drop)
    }
    fn commit(&mut self) -> TxResult<()> {
        self.simple("COMMIT").map(drop)
    }
    fn rollback(&mut self) {
        if self.status != b'I' {
            let _ = self.simple("ROLLBACK");
        }
    }
    /// As pgbench -i: TRUNCATE and COPY … FREEZE in one transaction, so the rows are
    /// written frozen (no hint-bit rewrites, a cheap VACUUM afterwards). One stream per
    /// table: only that transaction may FREEZE, and two streams into pgbench_accounts
    /// (PostgreSQL 15, scale 10, 2 cores, medians of 3) copied in 0.76 s instead of
    /// 0.93 s but left VACUUM ANALYZE twice the work (0.56 s against 0.28 s).
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        self.copied(table, columns, rows, true)
    }
    fn load_more(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &mut dyn Iterator<Item = Vec<Datum>>,
    ) -> TxResult<u64> {
        self.copied(table, columns, rows, false)
    }
}

impl PgClient {
    /// `rows` copied into `table` in a transaction of their own; `fresh`: emptied first.
    fn copied(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &mut dyn Iterator<Item = Vec<Datum>>,
        fresh: bool,
    ) -> TxResult<u64> {
        self.simple("BEGIN")?;
        match self.copy_in(table, columns, rows, fresh) {
            Ok(n) => self.simple("COMMIT").map(|_| n),
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }
}

impl Drop for PgClient {
    fn drop(&mut self) {
        frontend::terminate(&mut self.wbuf);
        let _ = self.flush();
    }
}

impl StartupError {
    /// The error a caller reports, in one line naming the server and the reason.
    pub(super) fn described(self, info: &ConnInfo) -> ConnectError {
        let where_ = info.redacted();
        let server = format!("{}:{}", info.host, info.port);
        match self {
            StartupError::Io(e) => match tls::failure(info, &e) {
                Some(m) => ConnectError::Unreachable(m),
                None if e.kind() == std::io::ErrorKind::TimedOut => ConnectError::Unreachable(format!(
                    "{server} sent no PostgreSQL answer in time ({e}, connect_timeout): is it a PostgreSQL server?"
                )),
                None => ConnectError::Unreachable(format!("lost the connection to {where_}: {e}")),
            },
            StartupError::Foreign(said) => ConnectError::Unreachable(patient::foreign(&server, "PostgreSQL", &said)),
            StartupError::Denied(m) if info.tls.mode == Mode::Disable && m.contains("no encryption") => {
                ConnectError::Refused(format!(
                    "{where_}: {m} (the server takes TCP clients with TLS only: drop sslmode=disable)"
                ))
            }
            StartupError::Server(m) | StartupError::Denied(m) => ConnectError::Refused(format!("{where_}: {m}")),
            StartupError::Unreachable(m) => ConnectError::Unreachable(m),
            StartupError::Full(m) => ConnectError::Full(format!("{where_}: {m}")),
            StartupError::NoTls => ConnectError::Unreachable(tls::declined(info)),
            StartupError::Setup(m) => ConnectError::Unreachable(format!(
                "{where_}: cannot use its TLS files ({m}): check sslrootcert, sslcert and sslkey"
            )),
        }
    }
}
