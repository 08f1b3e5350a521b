//! dbrace's key-value client on the `redis` crate: one synchronous connection per client,
//! every command packed by hand into a buffer the client reuses (the crate's `Cmd` would
//! allocate its argument vectors per command), keys under an optional prefix so a run on
//! someone's server touches only its own keys.

use crate::engine::{ConnectError, HashField, HashIncr, KvClient, TxError, TxResult};
use crate::error::Result;
use ::redis::{ConnectionAddr, ConnectionLike, IntoConnectionInfo, RedisConnectionInfo, Value};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Where a server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// TCP host and port.
    Tcp(String, u16),
    /// A unix socket file.
    Unix(PathBuf),
}

/// Where and as whom to connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The server's address.
    pub addr: Addr,
    /// ACL user name, if any (else `default`).
    pub username: Option<String>,
    /// Password, if any (never printed).
    pub password: Option<String>,
    /// Database number (SELECT).
    pub db: i64,
}

impl Endpoint {
    /// Parse `redis://[USER[:PASSWORD]@]HOST[:PORT][/DB]` or `redis+unix:///PATH[?db=N&pass=P]`.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let redacted = crate::engine::postgres::conninfo::redact(url);
        let bad = |why: &str| {
            bad_input!("--url {redacted}: {why}; write redis://[USER:PASSWORD@]HOST[:PORT][/DB] or redis+unix:///PATH")
        };
        if !(url.starts_with("redis://") || url.starts_with("redis+unix://")) {
            return Err(bad("not a redis:// URL (dbrace speaks plain TCP and unix sockets, no TLS)"));
        }
        let info = url.into_connection_info().map_err(|e| bad(&e.to_string()))?;
        let addr = match info.addr() {
            ConnectionAddr::Tcp(h, p) => Addr::Tcp(h.clone(), *p),
            ConnectionAddr::Unix(p) => Addr::Unix(p.clone()),
            _ => return Err(bad("unsupported address")),
        };
        let r = info.redis_settings();
        Ok(Endpoint {
            addr,
            username: r.username().map(str::to_string),
            password: r.password().map(str::to_string),
            db: r.db(),
        })
    }

    /// A URL safe to print and store: the password replaced by `***`.
    pub fn redacted(&self) -> String {
        let user = self.username.as_deref().unwrap_or("");
        match &self.addr {
            Addr::Tcp(h, p) => {
                let pw = if self.password.is_some() { ":***" } else { "" };
                let auth = if user.is_empty() && pw.is_empty() { String::new() } else { format!("{user}{pw}@") };
                format!("redis://{auth}{h}:{p}/{}", self.db)
            }
            Addr::Unix(p) => {
                let user = if user.is_empty() { String::new() } else { format!("&user={user}") };
                let pw = if self.password.is_some() { "&pass=***" } else { "" };
                format!("redis+unix://{}?db={}{user}{pw}", p.display(), self.db)
            }
        }
    }

    /// How clients reach the server, for the recorded settings.
    pub fn transport(&self) -> String {
        match &self.addr {
            Addr::Tcp(h, p) => format!("tcp {h}:{p}"),
            Addr::Unix(p) => format!("socket {}", p.display()),
        }
    }

    fn info(&self) -> std::result::Result<::redis::ConnectionInfo, ::redis::RedisError> {
        let addr = match &self.addr {
            Addr::Tcp(h, p) => ConnectionAddr::Tcp(h.clone(), *p),
            Addr::Unix(p) => ConnectionAddr::Unix(p.clone()),
        };
        let mut r = RedisConnectionInfo::default().set_db(self.db).set_skip_set_lib_name();
        if let Some(u) = &self.username {
            r = r.set_username(u);
        }
        if let Some(p) = &self.password {
            r = r.set_password(p);
        }
        // Request and reply are one small packet each: Nagle would only add delay.
        let tcp = ::redis::io::tcp::TcpSettings::default().set_nodelay(true);
        Ok(addr.into_connection_info()?.set_redis_settings(r).set_tcp_settings(tcp))
    }
}

/// Remove a secret from a message, whatever quoted it.
fn scrub(msg: &str, secret: &str) -> String {
    if secret.is_empty() { msg.to_string() } else { msg.replace(secret, "***") }
}

/// A connection to one server; keys are stored under `prefix`.
pub struct RedisClient {
    conn: ::redis::Connection,
    prefix: Vec<u8>,
    /// The packed command being sent; reused, so the hot path does not allocate for it.
    buf: Vec<u8>,
}

impl RedisClient {
    /// Connect (and authenticate, select the database) within 5 s; replies wait 30 s at most.
    pub fn connect(ep: &Endpoint, prefix: &[u8]) -> std::result::Result<RedisClient, ConnectError> {
        let secret = ep.password.as_deref().unwrap_or("");
        let where_ = ep.redacted();
        let info =
            ep.info().map_err(|e| ConnectError::Unreachable(format!("{where_}: {}", scrub(&e.to_string(), secret))))?;
        let conn = ::redis::Client::open(info)
            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(5)))
            .map_err(|e| {
                let m = scrub(&e.to_string(), secret);
                if e.is_io_error() || e.is_connection_refusal() || e.is_timeout() {
                    ConnectError::Unreachable(format!("cannot connect to {where_}: {m}"))
                } else {
                    ConnectError::Refused(format!("{where_} refused the connection: {m}"))
                }
            })?;
        let timeout = Some(Duration::from_secs(30));
        let set = conn.set_read_timeout(timeout).and_then(|()| conn.set_write_timeout(timeout));
        set.map_err(|e| ConnectError::Unreachable(format!("{where_}: {e}")))?;
        let mut c = RedisClient { conn, prefix: prefix.to_vec(), buf: Vec::with_capacity(256) };
        c.buf.extend_from_slice(b"*1\r\n$4\r\nPING\r\n");
        match c.conn.req_packed_command(&c.buf) {
            // A server still loading its data is not ready yet.
            Ok(Value::ServerError(e)) if e.code() == "LOADING" => {
                Err(ConnectError::Unreachable(format!("{where_} is loading its data: {e}")))
            }
            // NOAUTH and the like: no password given where one is needed.
            Ok(Value::ServerError(e)) => Err(ConnectError::Refused(format!("{where_} refused the connection: {e}"))),
            Ok(_) => Ok(c),
            Err(e) => Err(ConnectError::Unreachable(format!("cannot talk to {where_}: {e}"))),
        }
    }

    /// Send the command in `buf` and read its reply; a server error is a failure.
    fn roundtrip(&mut self) -> TxResult<Value> {
        match self.conn.req_packed_command(&self.buf) {
            Ok(Value::ServerError(e)) => Err(TxError::Fail(format!("redis: {e}"))),
            Ok(v) => Ok(v),
            Err(e) => Err(TxError::Fail(format!("redis: {e}"))),
        }
    }

    /// Send the `n` commands packed in `buf` at once and read their replies (a pipeline:
    /// one round trip); a server error in any reply is a failure.
    fn pipeline(&mut self, n: usize) -> TxResult<Vec<Value>> {
        let replies =
            self.conn.req_packed_commands(&self.buf, 0, n).map_err(|e| TxError::Fail(format!("redis: {e}")))?;
        match replies.iter().find_map(|v| if let Value::ServerError(e) = v { Some(e) } else { None }) {
            Some(e) => Err(TxError::Fail(format!("redis: {e}"))),
            None => Ok(replies),
        }
    }

    /// Append a command whose first word is `cmd` and whose second is a prefixed key.
    fn keyed(&mut self, cmd: &[u8], key: &[u8], words: usize) {
        let _ = write!(self.buf, "*{}\r\n", words + 2);
        bulk(&mut self.buf, &[cmd]);
        bulk(&mut self.buf, &[&self.prefix, key]);
    }

    /// Run one command given as its words (setup, read-back, verify; not the hot path).
    pub fn command(&mut self, args: &[&[u8]]) -> TxResult<Value> {
        self.buf.clear();
        let _ = write!(self.buf, "*{}\r\n", args.len());
        for a in args {
            bulk(&mut self.buf, &[a]);
        }
        self.roundtrip()
    }

    /// `CONFIG GET key`: its value, or None when the server has no such setting.
    pub fn config_get(&mut self, key: &str) -> TxResult<Option<String>> {
        let v = self.command(&[b"CONFIG", b"GET", key.as_bytes()])?;
        let items = match v {
            Value::Array(items) => items,
            Value::Map(pairs) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
            other => return Err(TxError::Fail(format!("redis: CONFIG GET {key} answered {other:?}"))),
        };
        Ok(items.get(1).map(text))
    }

    /// One field of `INFO section` (e.g. redis_version).
    pub fn info_field(&mut self, section: &str, field: &str) -> TxResult<Option<String>> {
        let info = text(&self.command(&[b"INFO", section.as_bytes()])?);
        Ok(info.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':')).map(|v| v.trim().to_string()))
    }

    /// Keys under this client's prefix, a SCAN batch at a time; `unlink` removes them too.
    pub fn scan_prefixed(&mut self, unlink: bool) -> TxResult<u64> {
        let mut pattern = self.prefix.clone();
        pattern.push(b'*');
        let (mut cursor, mut n) = (b"0".to_vec(), 0u64);
        loop {
            let reply = self.command(&[b"SCAN", &cursor, b"MATCH", &pattern, b"COUNT", b"1000"])?;
            let Value::Array(mut parts) = reply else {
                return Err(TxError::Fail(format!("redis: SCAN answered {reply:?}")));
            };
            let keys = match parts.pop() {
                Some(Value::Array(keys)) => keys,
                other => return Err(TxError::Fail(format!("redis: SCAN answered {other:?}"))),
            };
            cursor = text(parts.first().unwrap_or(&Value::Nil)).into_bytes();
            n += keys.len() as u64;
            if unlink && !keys.is_empty() {
                // Keys are binary: hand them back byte for byte.
                let mut args: Vec<&[u8]> = vec![b"UNLINK"];
                for k in &keys {
                    match k {
                        Value::BulkString(b) => args.push(b),
                        other => return Err(TxError::Fail(format!("redis: SCAN gave a key {other:?}"))),
                    }
                }
                self.command(&args)?;
            }
            if cursor == b"0" {
                return Ok(n);
            }
        }
    }
}

/// Append one RESP bulk string made of `parts` end to end (a prefix and a key).
fn bulk(buf: &mut Vec<u8>, parts: &[&[u8]]) {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    // Writing an integer into a Vec formats in place: no allocation.
    let _ = write!(buf, "${len}\r\n");
    for p in parts {
        buf.extend_from_slice(p);
    }
    buf.extend_from_slice(b"\r\n");
}

/// A reply as text (setup and read-back only).
fn text(v: &Value) -> String {
    match v {
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::SimpleString(s) | Value::VerbatimString { text: s, .. } => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Okay => "OK".into(),
        Value::Nil => String::new(),
        other => format!("{other:?}"),
    }
}

impl KvClient for RedisClient {
    fn set(&mut self, key: &[u8], value: &[u8]) -> TxResult<()> {
        self.buf.clear();
        self.buf.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
        bulk(&mut self.buf, &[&self.prefix, key]);
        bulk(&mut self.buf, &[value]);
        match self.roundtrip()? {
            Value::Okay => Ok(()),
            other => Err(TxError::Fail(format!("redis: SET answered {other:?}"))),
        }
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> TxResult<bool> {
        self.buf.clear();
        self.buf.extend_from_slice(b"*2\r\n$3\r\nGET\r\n");
        bulk(&mut self.buf, &[&self.prefix, key]);
        out.clear();
        match self.roundtrip()? {
            Value::BulkString(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            Value::Nil => Ok(false),
            other => Err(TxError::Fail(format!("redis: GET answered {other:?}"))),
        }
    }
    fn count(&mut self) -> TxResult<u64> {
        if !self.prefix.is_empty() {
            return self.scan_prefixed(false);
        }
        match self.command(&[b"DBSIZE"])? {
            Value::Int(n) => Ok(n as u64),
            other => Err(TxError::Fail(format!("redis: DBSIZE answered {other:?}"))),
        }
    }
    fn hset(&mut self, key: &[u8], fields: &[(&[u8], &[u8])]) -> TxResult<()> {
        self.buf.clear();
        self.keyed(b"HSET", key, 2 * fields.len());
        for (f, v) in fields {
            bulk(&mut self.buf, &[f]);
            bulk(&mut self.buf, &[v]);
        }
        self.roundtrip().map(drop)
    }
    fn hincrby(&mut self, incs: &[HashIncr]) -> TxResult<()> {
        self.buf.clear();
        for inc in incs {
            self.keyed(b"HINCRBY", inc.key, 2);
            bulk(&mut self.buf, &[inc.field]);
            let _ = write!(self.buf, "${}\r\n{}\r\n", decimal_len(inc.by), inc.by);
        }
        self.pipeline(incs.len()).map(drop)
    }
    fn hgetall(&mut self, keys: &[&[u8]], field: &mut HashField) -> TxResult<u64> {
        self.buf.clear();
        for key in keys {
            self.keyed(b"HGETALL", key, 0);
        }
        let mut found = 0;
        for (i, reply) in self.pipeline(keys.len())?.into_iter().enumerate() {
            // RESP2 answers a flat array of field, value; RESP3 a map.
            let pairs: Vec<(Value, Value)> = match reply {
                Value::Map(pairs) => pairs,
                Value::Array(items) => {
                    let mut it = items.into_iter();
                    std::iter::from_fn(|| Some((it.next()?, it.next()?))).collect()
                }
                other => return Err(TxError::Fail(format!("redis: HGETALL answered {other:?}"))),
            };
            found += u64::from(!pairs.is_empty());
            for (f, v) in &pairs {
                match (f, v) {
                    (Value::BulkString(f), Value::BulkString(v)) => field(i, f, v),
                    other => return Err(TxError::Fail(format!("redis: HGETALL gave {other:?}"))),
                }
            }
        }
        Ok(found)
    }
    fn zadd(&mut self, key: &[u8], score: i64, member: &[u8]) -> TxResult<()> {
        self.buf.clear();
        self.keyed(b"ZADD", key, 2);
        bulk(&mut self.buf, &[score.to_string().as_bytes()]);
        bulk(&mut self.buf, &[member]);
        self.roundtrip().map(drop)
    }
    fn zrange_from(&mut self, key: &[u8], min: i64, count: usize, member: &mut dyn FnMut(&[u8])) -> TxResult<u64> {
        self.buf.clear();
        self.keyed(b"ZRANGEBYSCORE", key, 5);
        for word in [min.to_string().as_bytes(), b"+inf", b"LIMIT", b"0", count.to_string().as_bytes()] {
            bulk(&mut self.buf, &[word]);
        }
        match self.roundtrip()? {
            Value::Array(items) => {
                for item in &items {
                    match item {
                        Value::BulkString(m) => member(m),
                        other => return Err(TxError::Fail(format!("redis: ZRANGEBYSCORE gave {other:?}"))),
                    }
                }
                Ok(items.len() as u64)
            }
            other => Err(TxError::Fail(format!("redis: ZRANGEBYSCORE answered {other:?}"))),
        }
    }
}

/// Digits (and sign) of `n` in decimal, for a RESP length header.
fn decimal_len(n: i64) -> usize {
    let sign = usize::from(n < 0);
    sign + n.unsigned_abs().checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_redact() {
        let e = Endpoint::parse("redis://bob:s%40cret@127.0.0.1:6390/3").unwrap();
        assert_eq!(e.addr, Addr::Tcp("127.0.0.1".into(), 6390));
        assert_eq!((e.username.as_deref(), e.password.as_deref(), e.db), (Some("bob"), Some("s@cret"), 3));
        assert_eq!(e.redacted(), "redis://bob:***@127.0.0.1:6390/3");
        let e = Endpoint::parse("redis://:pw@localhost").unwrap();
        assert_eq!((e.addr.clone(), e.username.clone(), e.db), (Addr::Tcp("localhost".into(), 6379), None, 0));
        assert_eq!(e.redacted(), "redis://:***@localhost:6379/0");
        let e = Endpoint::parse("redis+unix:///run/redis/redis.sock?db=2&pass=pw").unwrap();
        assert_eq!((e.addr.clone(), e.db), (Addr::Unix("/run/redis/redis.sock".into()), 2));
        assert_eq!(e.redacted(), "redis+unix:///run/redis/redis.sock?db=2&pass=***");
        let err = Endpoint::parse("redis+unix:///s?db=x&pass=hunter2").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
        for bad in ["rediss://h:1", "postgres://h", "redis://h:xx", "redis://h:1/notadb"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        let err = Endpoint::parse("redis://u:hunter2@h:zz/0").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[test]
    fn commands_are_packed_as_resp() {
        let mut buf = Vec::new();
        buf.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
        bulk(&mut buf, &[b"p:", b"k1"]);
        bulk(&mut buf, &[b"value"]);
        assert_eq!(buf, b"*3\r\n$3\r\nSET\r\n$4\r\np:k1\r\n$5\r\nvalue\r\n");
    }

    /// Against the system Redis (scripts/test starts it), under a prefix of its own.
    #[test]
    fn hashes_and_sorted_sets() {
        let ep = Endpoint::parse("redis://127.0.0.1:6379/0").unwrap();
        let prefix = format!("dbrace-unit-{}:", std::process::id());
        let mut c = RedisClient::connect(&ep, prefix.as_bytes())
            .unwrap_or_else(|e| panic!("the system Redis on 127.0.0.1:6379 (scripts/test starts it): {e}"));
        c.scan_prefixed(true).unwrap();
        crate::engine::check_kv_ops(&mut c);
        c.scan_prefixed(true).unwrap();
    }
}
