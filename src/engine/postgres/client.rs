//! A small synchronous PostgreSQL client on the wire protocol (postgres-protocol encodes
//! the frontend messages; backend messages are read in place). Statements are prepared
//! once; each execution is one write (Bind, Execute, Sync) and reads into reused
//! buffers, so the measured path allocates nothing. Parameters and results use the text
//! format, as pgbench does; bulk loads use binary COPY.

use super::conninfo::ConnInfo;
use crate::engine::{ConnectError, Datum, Dialect, Param, SqlClient, Stmt, TxError, TxResult};
use bytes::BytesMut;
use postgres_protocol::IsNull;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256};
use postgres_protocol::message::frontend;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn io(&mut self) -> &mut dyn ReadWrite {
        match self {
            Stream::Tcp(s) => s,
            Stream::Unix(s) => s,
        }
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// How statements travel, as pgbench's `-M`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// One Query message with the values spelled into the SQL text.
    Simple,
    /// Parse, Bind, Execute of an unnamed statement every time.
    Extended,
    /// Parse once, then Bind and Execute of the named statement.
    #[default]
    Prepared,
}

static PROTOCOL: std::sync::OnceLock<Protocol> = std::sync::OnceLock::new();

/// Record `--protocol` for this process.
pub fn choose_protocol(p: Protocol) {
    let _ = PROTOCOL.set(p);
}

/// The protocol in use.
pub fn protocol() -> Protocol {
    PROTOCOL.get().copied().unwrap_or_default()
}

/// One connection.
pub struct PgClient {
    stream: Stream,
    wbuf: BytesMut,
    rbuf: Vec<u8>,
    rpos: usize,
    rend: usize,
    /// Transaction status from the last ReadyForQuery: b'I', b'T' or b'E'.
    status: u8,
    /// Each prepared statement's SQL: with `?` (simple) and with `$n` (extended).
    statements: Vec<(String, String)>,
    protocol: Protocol,
    /// The simple protocol's query text, rebuilt in place for every statement.
    query: String,
    /// Column names of the last RowDescription, end to end, and where each ends.
    columns: String,
    column_ends: Vec<usize>,
    unlogged: bool,
    /// Tables created for a load, with their deferred primary keys.
    loaded: Vec<(String, Option<String>)>,
    /// The server's version, from its ParameterStatus at startup.
    pub server_version: String,
}

/// What a statement returned.
struct Outcome {
    /// Rows changed, from the command tag.
    changed: u64,
    /// Rows received.
    rows: u64,
    /// The first column of the first row, as an integer.
    first: Option<i64>,
}

/// A server error: SQLSTATE and message.
struct ServerError {
    code: [u8; 5],
    message: String,
}

impl PgClient {
    /// Connect and authenticate; `unlogged` makes `create_table` create UNLOGGED tables.
    pub fn connect(info: &ConnInfo, unlogged: bool) -> Result<PgClient, ConnectError> {
        let where_ = info.redacted();
        let stream = if info.host.starts_with('/') {
            let path = format!("{}/.s.PGSQL.{}", info.host, info.port);
            Stream::Unix(
                UnixStream::connect(&path)
                    .map_err(|e| ConnectError::Unreachable(format!("cannot connect to {where_} ({path}): {e}")))?,
            )
        } else {
            // A host that drops packets must not hang the run: give up after 5 s.
            let unreachable = |e: std::io::Error| ConnectError::Unreachable(format!("cannot connect to {where_}: {e}"));
            let addrs: Vec<_> = (info.host.as_str(), info.port).to_socket_addrs().map_err(unreachable)?.collect();
            let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
            let mut stream = None;
            for a in addrs {
                match TcpStream::connect_timeout(&a, std::time::Duration::from_secs(5)) {
                    Ok(s) => {
                        stream = Some(s);
                        break;
                    }
                    Err(e) => last = e,
                }
            }
            let s = stream.ok_or_else(|| unreachable(last))?;
            let _ = s.set_nodelay(true);
            Stream::Tcp(s)
        };
        let mut c = PgClient {
            stream,
            wbuf: BytesMut::with_capacity(8192),
            rbuf: vec![0; 64 * 1024],
            rpos: 0,
            rend: 0,
            status: b'I',
            statements: Vec::new(),
            protocol: protocol(),
            query: String::with_capacity(256),
            columns: String::new(),
            column_ends: Vec::new(),
            unlogged,
            loaded: Vec::new(),
            server_version: String::new(),
        };
        c.startup(info).map_err(|e| match e {
            StartupError::Io(e) => ConnectError::Unreachable(format!("lost the connection to {where_}: {e}")),
            StartupError::Server(m) => ConnectError::Refused(format!("{where_}: {m}")),
        })?;
        Ok(c)
    }

    fn startup(&mut self, info: &ConnInfo) -> Result<(), StartupError> {
        let params = [
            ("user", info.user.as_str()),
            ("database", info.database.as_str()),
            ("application_name", "dbrace"),
            ("client_encoding", "UTF8"),
        ];
        frontend::startup_message(params.iter().copied(), &mut self.wbuf)?;
        self.flush()?;
        let password = || {
            info.password.as_deref().ok_or_else(|| {
                StartupError::Server(
                    "the server asks for a password; put it in the URL (postgres://USER:PASSWORD@…)".into(),
                )
            })
        };
        let mut scram: Option<ScramSha256> = None;
        loop {
            let (tag, body) = self.read_message()?;
            match tag {
                b'R' => {
                    let body = self.rbuf[body].to_vec();
                    let code = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                    match code {
                        0 => {}
                        3 => frontend::password_message(password()?.as_bytes(), &mut self.wbuf)?,
                        5 => {
                            let salt = [body[4], body[5], body[6], body[7]];
                            let hash = postgres_protocol::authentication::md5_hash(
                                info.user.as_bytes(),
                                password()?.as_bytes(),
                                salt,
                            );
                            frontend::password_message(hash.as_bytes(), &mut self.wbuf)?;
                        }
                        10 => {
                            let s = ScramSha256::new(password()?.as_bytes(), ChannelBinding::unsupported());
                            frontend::sasl_initial_response("SCRAM-SHA-256", s.message(), &mut self.wbuf)?;
                            scram = Some(s);
                        }
                        11 | 12 => {
                            let s =
                                scram.as_mut().ok_or_else(|| StartupError::Server("unexpected SASL message".into()))?;
                            if code == 11 {
                                s.update(&body[4..])?;
                                frontend::sasl_response(s.message(), &mut self.wbuf)?;
                            } else {
                                s.finish(&body[4..])?;
                            }
                        }
                        other => {
                            return Err(StartupError::Server(format!("unsupported authentication method {other}")));
                        }
                    }
                    self.flush()?;
                }
                b'S' => {
                    let mut parts = self.rbuf[body].split(|b| *b == 0);
                    if parts.next() == Some(b"server_version") {
                        self.server_version = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
                    }
                }
                b'E' => return Err(StartupError::Server(self.error(body).message)),
                b'Z' => return Ok(()),
                _ => {}
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.io().write_all(&self.wbuf)?;
        self.wbuf.clear();
        Ok(())
    }

    /// The next backend message: its tag and the range of its body in `rbuf`.
    fn read_message(&mut self) -> std::io::Result<(u8, std::ops::Range<usize>)> {
        loop {
            let avail = self.rend - self.rpos;
            if avail >= 5 {
                let h = &self.rbuf[self.rpos..];
                let len = u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
                if avail > len {
                    let tag = h[0];
                    let start = self.rpos + 5;
                    self.rpos += 1 + len;
                    return Ok((tag, start..self.rpos));
                }
                if 1 + len > self.rbuf.len() {
                    // A message larger than the buffer: grow once (setup and verify only).
                    self.rbuf.resize(1 + len, 0);
                }
            }
            if self.rpos > 0 {
                self.rbuf.copy_within(self.rpos..self.rend, 0);
                self.rend -= self.rpos;
                self.rpos = 0;
            }
            let n = self.stream.io().read(&mut self.rbuf[self.rend..])?;
            if n == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed the connection"));
            }
            self.rend += n;
        }
    }

    fn error(&self, body: std::ops::Range<usize>) -> ServerError {
        let mut e = ServerError { code: *b"XX000", message: String::new() };
        for field in self.rbuf[body].split(|b| *b == 0) {
            match field.split_first() {
                Some((b'C', v)) if v.len() == 5 => e.code.copy_from_slice(v),
                Some((b'M', v)) => e.message = String::from_utf8_lossy(v).into_owned(),
                _ => {}
            }
        }
        e
    }

    /// Read up to ReadyForQuery: every row (counted; the first one's first column kept)
    /// and the rows changed.
    fn finish(&mut self) -> TxResult<Outcome> {
        let (mut changed, mut rows, mut value, mut err) = (0, 0, None, None);
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'D' => {
                    rows += 1;
                    if value.is_none() {
                        value = Some(self.first_column(body));
                    }
                }
                b'C' => changed = rows_changed(&self.rbuf[body]),
                b'E' => err = err.or(Some(self.error(body))),
                b'Z' => {
                    self.status = self.rbuf[body.start];
                    break;
                }
                _ => {}
            }
        }
        match err {
            None => Ok(Outcome { changed, rows, first: value.flatten() }),
            Some(e) => Err(tx_error(e)),
        }
    }

    fn first_column(&self, body: std::ops::Range<usize>) -> Option<i64> {
        let b = &self.rbuf[body];
        if b.len() < 6 || u16::from_be_bytes([b[0], b[1]]) == 0 {
            return None;
        }
        let len = i32::from_be_bytes([b[2], b[3], b[4], b[5]]);
        let text = std::str::from_utf8(b.get(6..6 + usize::try_from(len).ok()?)?).ok()?;
        text.parse().ok()
    }

    /// The value of a server setting, as SHOW prints it.
    pub fn show(&mut self, name: &str) -> TxResult<String> {
        self.text(&format!("SHOW {name}"))
    }

    /// The first column of the first row as text (setup, not the hot path).
    fn text(&mut self, sql: &str) -> TxResult<String> {
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

    fn simple(&mut self, sql: &str) -> TxResult<Outcome> {
        frontend::query(sql, &mut self.wbuf).map_err(lost)?;
        self.flush().map_err(lost)?;
        self.finish()
    }

    fn run(&mut self, s: Stmt, params: &[Param]) -> TxResult<Outcome> {
        let mut name = [0u8; 12];
        let name = match self.protocol {
            Protocol::Simple => return self.run_simple(s, params),
            Protocol::Extended => {
                frontend::parse("", &self.statements[s.0].1, std::iter::empty(), &mut self.wbuf).map_err(lost)?;
                ""
            }
            Protocol::Prepared => stmt_name(s, &mut name),
        };
        frontend::bind(
            "",
            name,
            std::iter::empty(),
            params.iter(),
            |p, buf| {
                use std::fmt::Write as _;
                match p {
                    Param::Int(i) => write!(buf, "{i}")?,
                    Param::Text(t) => buf.extend_from_slice(t.as_bytes()),
                }
                Ok(IsNull::No)
            },
            std::iter::empty(),
            &mut self.wbuf,
        )
        .map_err(|_| TxError::Fail("postgres: cannot encode parameters".into()))?;
        frontend::execute("", 0, &mut self.wbuf).map_err(lost)?;
        frontend::sync(&mut self.wbuf);
        self.flush().map_err(lost)?;
        self.finish()
    }

    /// Run a statement with a Describe of its result, passing every row's columns to
    /// `row` (the simple protocol describes by itself).
    fn run_each(&mut self, s: Stmt, params: &[Param], row: &mut dyn FnMut(usize, &str, Option<&str>)) -> TxResult<u64> {
        let mut name = [0u8; 12];
        match self.protocol {
            Protocol::Simple => {
                let mut q = std::mem::take(&mut self.query);
                q.clear();
                spell(&mut q, &self.statements[s.0].0, params);
                let sent = frontend::query(&q, &mut self.wbuf);
                self.query = q;
                sent.map_err(lost)?;
            }
            protocol => {
                let name = if protocol == Protocol::Extended {
                    frontend::parse("", &self.statements[s.0].1, std::iter::empty(), &mut self.wbuf).map_err(lost)?;
                    ""
                } else {
                    stmt_name(s, &mut name)
                };
                frontend::bind(
                    "",
                    name,
                    std::iter::empty(),
                    params.iter(),
                    |p, buf| {
                        use std::fmt::Write as _;
                        match p {
                            Param::Int(i) => write!(buf, "{i}")?,
                            Param::Text(t) => buf.extend_from_slice(t.as_bytes()),
                        }
                        Ok(IsNull::No)
                    },
                    std::iter::empty(),
                    &mut self.wbuf,
                )
                .map_err(|_| TxError::Fail("postgres: cannot encode parameters".into()))?;
                frontend::describe(b'P', "", &mut self.wbuf).map_err(lost)?;
                frontend::execute("", 0, &mut self.wbuf).map_err(lost)?;
                frontend::sync(&mut self.wbuf);
            }
        }
        self.flush().map_err(lost)?;
        self.finish_each(row)
    }

    /// Read up to ReadyForQuery, passing each DataRow's fields to `row` by column.
    fn finish_each(&mut self, row: &mut dyn FnMut(usize, &str, Option<&str>)) -> TxResult<u64> {
        let (mut rows, mut err) = (0u64, None);
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'T' => {
                    // Field count, then per field: name, table oid, column, type, size, modifier, format.
                    self.columns.clear();
                    self.column_ends.clear();
                    let b = &self.rbuf[body];
                    let mut at = 2;
                    for _ in 0..u16::from_be_bytes([b[0], b[1]]) {
                        let len = b[at..].iter().position(|x| *x == 0).unwrap_or(0);
                        self.columns.push_str(std::str::from_utf8(&b[at..at + len]).unwrap_or("?column?"));
                        self.column_ends.push(self.columns.len());
                        at += len + 1 + 18;
                    }
                }
                b'D' => {
                    rows += 1;
                    let b = &self.rbuf[body];
                    let mut at = 2;
                    for i in 0..usize::from(u16::from_be_bytes([b[0], b[1]])) {
                        let len = i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                        at += 4;
                        let value = usize::try_from(len).ok().map(|n| {
                            at += n;
                            std::str::from_utf8(&b[at - n..at]).unwrap_or("")
                        });
                        let start = if i == 0 { 0 } else { self.column_ends.get(i - 1).copied().unwrap_or(0) };
                        let end = self.column_ends.get(i).copied().unwrap_or(start);
                        row(i, &self.columns[start..end], value);
                    }
                }
                b'E' => err = err.or(Some(self.error(body))),
                b'Z' => {
                    self.status = self.rbuf[body.start];
                    break;
                }
                _ => {}
            }
        }
        match err {
            None => Ok(rows),
            Some(e) => Err(tx_error(e)),
        }
    }
}

enum StartupError {
    Io(std::io::Error),
    Server(String),
}

impl From<std::io::Error> for StartupError {
    fn from(e: std::io::Error) -> Self {
        StartupError::Io(e)
    }
}

/// A server error as a transaction's outcome: conflicts are retried. A unique violation
/// too, as sysbench's pgsql driver: a delete + insert of the same id racing another
/// client's fails on the insert, and a retry succeeds.
fn tx_error(e: ServerError) -> TxError {
    let m = || format!("postgres: {} ({})", e.message, String::from_utf8_lossy(&e.code));
    match &e.code {
        b"40001" | b"40P01" => TxError::Retry,
        b"23505" => TxError::Duplicate(m()),
        _ => TxError::Fail(m()),
    }
}

fn lost(e: std::io::Error) -> TxError {
    TxError::Fail(format!("postgres: connection lost: {e}"))
}

/// "UPDATE 1", "INSERT 0 1", "SELECT 1": the last number.
fn rows_changed(tag: &[u8]) -> u64 {
    let tag = tag.strip_suffix(&[0]).unwrap_or(tag);
    let digits = tag.rsplit(|b| *b == b' ').next().unwrap_or_default();
    digits.iter().try_fold(0u64, |n, d| d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0'))).unwrap_or(0)
}

/// "s<N>" in a stack buffer: statement names without allocation.
fn stmt_name(s: Stmt, buf: &mut [u8; 12]) -> &str {
    let mut n = s.0;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    i -= 1;
    buf[i] = b's';
    std::str::from_utf8(&buf[i..]).unwrap_or("s0")
}

/// `sql` into `q` with each `?` placeholder replaced by its value spelled as SQL, as
/// pgbench -M simple does.
fn spell(q: &mut String, sql: &str, params: &[Param]) {
    use std::fmt::Write as _;
    let mut from = 0;
    for p in params {
        let Some(at) = next_placeholder(sql, from) else { break };
        q.push_str(&sql[from..at]);
        from = at + 1;
        match p {
            Param::Int(i) => {
                let _ = write!(q, "{i}");
            }
            Param::Text(t) => {
                q.push('\'');
                for c in t.chars() {
                    q.push(c);
                    if c == '\'' {
                        q.push(c);
                    }
                }
                q.push('\'');
            }
        }
    }
    q.push_str(&sql[from..]);
}

/// `?` placeholders as `$1`, `$2`, … (outside quotes and comments).
fn numbered(sql: &str) -> String {
    let (mut out, mut n, mut from) = (String::with_capacity(sql.len() + 8), 0, 0);
    while let Some(at) = next_placeholder(sql, from) {
        n += 1;
        out.push_str(&sql[from..at]);
        out.push_str(&format!("${n}"));
        from = at + 1;
    }
    out.push_str(&sql[from..]);
    out
}

/// Where the next `?` placeholder is at or after `from` (a place outside quotes): a `?`
/// inside '…', E'…', "…", $tag$…$tag$, -- and /* */ comments is text.
fn next_placeholder(sql: &str, from: usize) -> Option<usize> {
    let b = sql.as_bytes();
    let word = |i: usize| i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] >= 0x80);
    let mut i = from;
    while i < b.len() {
        i = match b[i] {
            b'?' => return Some(i),
            q @ (b'\'' | b'"') => {
                // E'…' strings take backslash escapes.
                let escapes = q == b'\'' && i > 0 && matches!(b[i - 1], b'E' | b'e') && !word(i - 1);
                let mut j = i + 1;
                while j < b.len() {
                    if escapes && b[j] == b'\\' {
                        j += 2;
                    } else if b[j] == q {
                        if b.get(j + 1) == Some(&q) {
                            j += 2;
                        } else {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                j + 1
            }
            b'-' if b.get(i + 1) == Some(&b'-') => b[i..].iter().position(|x| *x == b'\n').map_or(b.len(), |n| i + n),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (0, i);
                while j < b.len() {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                j
            }
            b'$' if !word(i) => {
                let tag_end = b[i + 1..].iter().position(|x| !(x.is_ascii_alphanumeric() || *x == b'_' || *x >= 0x80));
                match tag_end.map(|n| i + 1 + n) {
                    Some(e) if b[e] == b'$' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                        let tag = &sql[i..=e];
                        sql[e + 1..].find(tag).map_or(b.len(), |n| e + 1 + n + tag.len())
                    }
                    _ => i + 1,
                }
            }
            _ => i + 1,
        };
    }
    None
}

/// COPY text format: tabs, newlines and backslashes escaped, NULL as \N.
fn copy_field(d: &Datum, out: &mut Vec<u8>) {
    match d {
        Datum::Null => out.extend_from_slice(b"\\N"),
        Datum::Int(i) => {
            let _ = std::io::Write::write_fmt(out, format_args!("{i}"));
        }
        // char(n) pads on the server: send nothing, as pgbench does.
        Datum::Blank(_) => {}
        Datum::Text(t) => {
            for b in t.bytes() {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    _ => out.push(b),
                }
            }
        }
    }
}

impl SqlClient for PgClient {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
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
        if self.protocol == Protocol::Prepared {
            let mut name = [0u8; 12];
            let name = stmt_name(s, &mut name).to_string();
            frontend::parse(&name, &numbered(sql), std::iter::empty(), &mut self.wbuf).map_err(lost)?;
            frontend::sync(&mut self.wbuf);
            self.flush().map_err(lost)?;
            self.finish()?;
        }
        self.statements.push((sql.to_string(), numbered(sql)));
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
    /// written frozen (no hint-bit rewrites, a cheap VACUUM afterwards).
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        self.simple("BEGIN")?;
        match self.copy_in(table, columns, rows) {
            Ok(n) => self.simple("COMMIT").map(|_| n),
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }
}

impl PgClient {
    fn copy_in(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64> {
        self.simple(&format!("TRUNCATE {table}"))?;
        // Binary COPY when every column has a type we encode: the server skips parsing text.
        let kinds = self.column_kinds(table, columns)?;
        let format = if kinds.is_some() { "FORMAT binary, FREEZE" } else { "FREEZE" };
        let sql = format!("COPY {table} ({}) FROM STDIN WITH ({format})", columns.join(", "));
        frontend::query(&sql, &mut self.wbuf).map_err(lost)?;
        self.flush().map_err(lost)?;
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'G' => break,
                b'E' => {
                    let e = self.error(body);
                    self.finish().ok();
                    return Err(TxError::Fail(format!("postgres: {}", e.message)));
                }
                _ => {}
            }
        }
        let (mut n, mut chunk) = (0u64, Vec::with_capacity(1 << 17));
        let send = |c: &mut PgClient, chunk: &mut Vec<u8>| -> TxResult<()> {
            frontend::CopyData::new(&chunk[..]).map_err(lost)?.write(&mut c.wbuf);
            chunk.clear();
            c.flush().map_err(lost)
        };
        if kinds.is_some() {
            chunk.extend_from_slice(b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0");
        }
        let mut bad = None;
        for row in rows {
            match &kinds {
                Some(kinds) => {
                    chunk.extend_from_slice(&(row.len() as i16).to_be_bytes());
                    for (d, k) in row.iter().zip(kinds) {
                        if let Err(e) = binary_field(d, *k, &mut chunk) {
                            bad.get_or_insert(e);
                        }
                    }
                }
                None => {
                    for (i, d) in row.iter().enumerate() {
                        if i > 0 {
                            chunk.push(b'\t');
                        }
                        copy_field(d, &mut chunk);
                    }
                    chunk.push(b'\n');
                }
            }
            n += 1;
            if chunk.len() >= 1 << 16 {
                send(self, &mut chunk)?;
            }
        }
        if kinds.is_some() {
            chunk.extend_from_slice(&(-1i16).to_be_bytes());
        }
        if !chunk.is_empty() {
            send(self, &mut chunk)?;
        }
        // Rows stop coming early on Ctrl-C: abandon the COPY rather than commit part of it.
        if crate::signals::pending().is_some() || bad.is_some() {
            frontend::copy_fail("interrupted", &mut self.wbuf).map_err(lost)?;
        } else {
            frontend::copy_done(&mut self.wbuf);
        }
        self.flush().map_err(lost)?;
        let done = self.finish();
        if let Some(e) = bad {
            return Err(TxError::Fail(format!("postgres: cannot load {table}: {e}")));
        }
        done?;
        Ok(n)
    }

    /// How to encode each column in binary COPY; `None` when some type is not ours to encode.
    fn column_kinds(&mut self, table: &str, columns: &[&str]) -> TxResult<Option<Vec<Kind>>> {
        let names: Vec<String> = columns.iter().map(|c| format!("'{}'", c.replace('\'', "''"))).collect();
        let types = self.text(&format!(
            "SELECT string_agg(t.typname, ',' ORDER BY c.n) FROM unnest(ARRAY[{}]) WITH ORDINALITY AS c(name, n) \
             JOIN pg_attribute a ON a.attrelid = '{table}'::regclass AND a.attname = c.name \
             JOIN pg_type t ON t.oid = a.atttypid",
            names.join(", ")
        ))?;
        let kinds: Vec<Option<Kind>> = types
            .split(',')
            .map(|t| match t {
                "int2" => Some(Kind::Int(2)),
                "int4" => Some(Kind::Int(4)),
                "int8" => Some(Kind::Int(8)),
                "bpchar" => Some(Kind::Bpchar),
                "text" | "varchar" => Some(Kind::Text),
                _ => None,
            })
            .collect();
        Ok((kinds.len() == columns.len()).then(|| kinds.into_iter().collect()).flatten())
    }
}

/// A column's binary COPY encoding.
#[derive(Clone, Copy)]
enum Kind {
    /// A big-endian integer of this many bytes.
    Int(usize),
    /// char(n): the server pads, so blanks travel as an empty string.
    Bpchar,
    /// text or varchar: the bytes as they are.
    Text,
}

/// One field of binary COPY: its length (-1 for NULL), then its bytes.
fn binary_field(d: &Datum, k: Kind, out: &mut Vec<u8>) -> Result<(), String> {
    let bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as i32).to_be_bytes());
        out.extend_from_slice(b);
    };
    match (d, k) {
        (Datum::Null, _) => out.extend_from_slice(&(-1i32).to_be_bytes()),
        (Datum::Int(i), Kind::Int(w)) => {
            let fits = match w {
                2 => i16::try_from(*i).is_ok(),
                4 => i32::try_from(*i).is_ok(),
                _ => true,
            };
            if !fits {
                return Err(format!("{i} does not fit a {}-byte integer column", w));
            }
            bytes(out, &i.to_be_bytes()[8 - w..]);
        }
        (Datum::Int(i), _) => bytes(out, i.to_string().as_bytes()),
        (Datum::Blank(_), Kind::Bpchar) => bytes(out, b""),
        (Datum::Blank(n), _) => bytes(out, " ".repeat(*n).as_bytes()),
        (Datum::Text(t), Kind::Int(_)) => return Err(format!("text '{t}' for an integer column")),
        (Datum::Text(t), _) => bytes(out, t.as_bytes()),
    }
    Ok(())
}

impl Drop for PgClient {
    fn drop(&mut self) {
        frontend::terminate(&mut self.wbuf);
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_tags_and_names() {
        assert_eq!(
            numbered("UPDATE t SET a = a + ? WHERE id = ? AND s = '?'"),
            "UPDATE t SET a = a + $1 WHERE id = $2 AND s = '?'"
        );
        assert_eq!(
            numbered("SELECT $$?$$, $a$'?$a$, E'\\'?', \"it's?\", ? -- ?\n, /* ? /* ? */ */ ?, x$y ?"),
            "SELECT $$?$$, $a$'?$a$, E'\\'?', \"it's?\", $1 -- ?\n, /* ? /* ? */ */ $2, x$y $3"
        );
        assert_eq!(rows_changed(b"INSERT 0 1\0"), 1);
        assert_eq!(rows_changed(b"UPDATE 12\0"), 12);
        assert_eq!(rows_changed(b"BEGIN\0"), 0);
        let mut b = [0u8; 12];
        assert_eq!(stmt_name(Stmt(0), &mut b), "s0");
        assert_eq!(stmt_name(Stmt(123), &mut b), "s123");
    }

    #[test]
    fn binary_copy_fields() {
        let enc = |d: Datum, k: Kind| {
            let mut out = Vec::new();
            binary_field(&d, k, &mut out).map(|_| out)
        };
        assert_eq!(enc(Datum::Int(258), Kind::Int(4)).unwrap(), [0, 0, 0, 4, 0, 0, 1, 2]);
        assert_eq!(enc(Datum::Int(-1), Kind::Int(2)).unwrap(), [0, 0, 0, 2, 0xff, 0xff]);
        assert!(enc(Datum::Int(1 << 40), Kind::Int(4)).is_err());
        assert_eq!(enc(Datum::Null, Kind::Text).unwrap(), [0xff; 4]);
        assert_eq!(enc(Datum::Blank(3), Kind::Bpchar).unwrap(), [0, 0, 0, 0]);
        assert_eq!(enc(Datum::Blank(2), Kind::Text).unwrap(), [0, 0, 0, 2, b' ', b' ']);
        assert_eq!(enc(Datum::Int(42), Kind::Text).unwrap(), [0, 0, 0, 2, b'4', b'2']);
    }
}
