//! dbrace's key-value client: one synchronous RESP2 connection of our own per client,
//! every command packed by hand into a buffer the client reuses, every reply read where it
//! lies in the connection's buffer (no reply tree per command), keys under an optional
//! prefix so a run on someone's server touches only its own keys.

use super::endpoint::{Addr, Endpoint};
use super::resp::{Conn, Replies, Reply};
use crate::engine::kit::patient;
use crate::engine::kit::tls_failure::{self, Fixes};
use crate::engine::{Capable, ConnectError, HashField, HashIncr, Hashes, KvClient, SortedSets, TxError, TxResult};
use crate::redact::scrub;
use std::time::Duration;

/// The `rediss://` options that fix a failed TLS session.
const FIXES: Fixes = Fixes {
    any_host: "ssl_check_hostname=false",
    roots: "ssl_ca_certs=FILE (or check nothing with ssl_cert_reqs=none)",
    client_cert: "ssl_certfile=FILE&ssl_keyfile=FILE",
    plain: "write redis://",
};

/// A reply, owned: what setup, read-back and verify get (the hot path reads `Reply`s in place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// No such thing.
    Nil,
    /// An integer.
    Int(i64),
    /// A simple string (`OK`).
    Status(String),
    /// A bulk string, byte for byte.
    Bulk(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// An error inside an array (one at the top is a failed command).
    Error(String),
}

impl From<Reply<'_>> for Value {
    fn from(r: Reply<'_>) -> Value {
        match r {
            Reply::Simple(s) => Value::Status(String::from_utf8_lossy(s).into_owned()),
            Reply::Error(e) => Value::Error(String::from_utf8_lossy(e).into_owned()),
            Reply::Int(i) => Value::Int(i),
            Reply::Bulk(b) => Value::Bulk(b.to_vec()),
            Reply::Nil => Value::Nil,
            Reply::Array(items) => Value::Array(items.map(Value::from).collect()),
        }
    }
}

/// A reply for a message: what a command answered that it should not have.
fn describe(r: &Reply) -> String {
    match r {
        Reply::Simple(s) => format!("+{}", String::from_utf8_lossy(s)),
        Reply::Error(e) => format!("-{}", String::from_utf8_lossy(e)),
        Reply::Int(i) => format!(":{i}"),
        Reply::Bulk(b) => format!("{:?}", String::from_utf8_lossy(b)),
        Reply::Nil => "nil".into(),
        Reply::Array(items) => format!("an array of {}", items.len()),
    }
}

/// `cmd` answered something it should not have.
fn unexpected(cmd: &str, r: &Reply) -> TxError {
    TxError::Fail(format!("redis: {cmd} answered {}", describe(r)))
}

/// The first error among `replies`, as text.
fn first_error(mut replies: Replies) -> Option<String> {
    replies.find_map(|r| if let Reply::Error(e) = r { Some(String::from_utf8_lossy(e).into_owned()) } else { None })
}

/// A connection to one server; keys are stored under `prefix`.
pub struct RedisClient {
    conn: Conn,
    prefix: Vec<u8>,
    /// The packed commands being sent; reused, so the hot path does not allocate for them.
    buf: Vec<u8>,
}

impl RedisClient {
    /// Connect, authenticate and select the database within the endpoint's timeout;
    /// replies wait 30 s at most after that. A server that answers in another protocol is
    /// named with what it said.
    pub fn connect(ep: &Endpoint, prefix: &[u8]) -> std::result::Result<RedisClient, ConnectError> {
        let secret = ep.password.as_deref().unwrap_or("");
        let where_ = ep.redacted();
        let config = match &ep.tls {
            Some(tls) => Some(tls.config().map_err(|e| {
                ConnectError::Tls(format!(
                    "{where_}: {e}; check the files of ssl_ca_certs, ssl_certfile and ssl_keyfile"
                ))
            })?),
            None => None,
        };
        let conn = Conn::open(&ep.addr, ep.timeout, config).map_err(|e| {
            ConnectError::Unreachable(format!("cannot connect to {where_}: {}", scrub(&e.to_string(), secret)))
        })?;
        let mut c = RedisClient { conn, prefix: prefix.to_vec(), buf: Vec::with_capacity(256) };
        // AUTH, SELECT and a PING in one round trip; the PING says whether the server is ready.
        let mut n = 1;
        // An empty password is a server without one (a Compose service's, `requirepass ""`).
        if let Some(pw) = ep.password.as_ref().filter(|p| !p.is_empty()) {
            match &ep.username {
                Some(u) => pack(&mut c.buf, &[b"AUTH", u.as_bytes(), pw.as_bytes()]),
                None => pack(&mut c.buf, &[b"AUTH", pw.as_bytes()]),
            }
            n += 1;
        }
        if ep.db != 0 {
            pack(&mut c.buf, &[b"SELECT", ep.db.to_string().as_bytes()]);
            n += 1;
        }
        pack(&mut c.buf, &[b"PING"]);
        let server = match &ep.addr {
            Addr::Tcp(h, p) => format!("{h}:{p}"),
            Addr::Unix(p) => p.display().to_string(),
        };
        let replies = match c.conn.call(&c.buf, n) {
            Ok(r) => r,
            Err(e) if ep.tls.is_some() && e.kind() == std::io::ErrorKind::TimedOut => {
                // A server without TLS reads a TLS greeting as the start of a command, and waits.
                return Err(ConnectError::Tls(format!(
                    "{server} sent no answer over TLS in time ({e}): is TLS on there? (for a server without TLS, write redis://)"
                )));
            }
            Err(e) if let Some(m) = tls_failure::explain(&e, &server, &FIXES) => {
                return Err(ConnectError::Tls(scrub(&m, secret)));
            }
            Err(e) => {
                let m = match e.kind() {
                    // A server with TLS drops a client without it.
                    std::io::ErrorKind::UnexpectedEof if ep.tls.is_none() && c.conn.unread().is_empty() => {
                        format!("{} (is TLS on there? then write rediss://)", patient::foreign(&server, "Redis", b""))
                    }
                    std::io::ErrorKind::ConnectionReset if ep.tls.is_none() => {
                        format!("cannot talk to {where_}: {e} (is TLS on there? then write rediss://)")
                    }
                    std::io::ErrorKind::InvalidData | std::io::ErrorKind::UnexpectedEof => {
                        patient::foreign(&server, "Redis", c.conn.unread())
                    }
                    std::io::ErrorKind::TimedOut => {
                        format!("{server} sent no Redis answer in time ({e}, timeout): is it a Redis server?")
                    }
                    _ => format!("cannot talk to {where_}: {e}"),
                };
                return Err(ConnectError::Unreachable(scrub(&m, secret)));
            }
        };
        match first_error(replies).map(|e| scrub(&e, secret)) {
            // A server still loading its data is not ready yet.
            Some(e) if e.starts_with("LOADING") => {
                Err(ConnectError::Unreachable(format!("{where_} is loading its data: {e}")))
            }
            Some(e) if e.contains("max number of clients") => Err(ConnectError::Full(format!("{where_}: {e}"))),
            // NOAUTH, WRONGPASS, a database out of range: the server said no.
            Some(e) => Err(ConnectError::Refused(format!("{where_} refused the connection: {e}"))),
            None => {
                c.conn.logged_in(Duration::from_secs(30));
                Ok(c)
            }
        }
    }

    /// The TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or None.
    pub fn tls(&self) -> Option<String> {
        self.conn.tls()
    }

    /// One wait for a reply lasts `idle` at most (a reader of counters gives up early).
    pub fn set_patience(&mut self, idle: Duration) {
        self.conn.logged_in(idle);
    }

    /// Send the `n` commands packed in `buf` at once and read their replies (a pipeline:
    /// one round trip); a server error in any reply is a failure.
    fn roundtrip(&mut self, n: usize) -> TxResult<Replies<'_>> {
        let replies = self.conn.call(&self.buf, n).map_err(|e| TxError::Lost(format!("redis: {e}")))?;
        match first_error(replies) {
            Some(e) => Err(TxError::Fail(format!("redis: {e}"))),
            None => Ok(replies),
        }
    }

    /// Send the one command packed in `buf` and read its reply; a server error is a failure.
    fn one(&mut self) -> TxResult<Reply<'_>> {
        self.roundtrip(1)?.next().ok_or_else(|| TxError::Fail("redis: no reply".into()))
    }

    /// Append a command whose first word is `cmd` and whose second is a prefixed key.
    fn keyed(&mut self, cmd: &[u8], key: &[u8], words: usize) {
        header(&mut self.buf, b'*', words + 2);
        bulk(&mut self.buf, &[cmd]);
        bulk(&mut self.buf, &[&self.prefix, key]);
    }

    /// Run one command given as its words (setup, read-back, verify; not the hot path).
    pub fn command(&mut self, args: &[&[u8]]) -> TxResult<Value> {
        self.buf.clear();
        pack(&mut self.buf, args);
        self.one().map(Value::from)
    }

    /// `CONFIG GET key`: its value, or None when the server has no such setting.
    pub fn config_get(&mut self, key: &str) -> TxResult<Option<String>> {
        match self.command(&[b"CONFIG", b"GET", key.as_bytes()])? {
            Value::Array(items) => Ok(items.get(1).map(text)),
            other => Err(TxError::Fail(format!("redis: CONFIG GET {key} answered {other:?}"))),
        }
    }

    /// One field of `INFO section` (e.g. redis_version).
    pub fn info_field(&mut self, section: &str, field: &str) -> TxResult<Option<String>> {
        let info = self.info(Some(section))?;
        Ok(info.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':')).map(|v| v.trim().to_string()))
    }

    /// `INFO section`, or INFO's default sections: `name:value` lines under `# Section`
    /// headings.
    pub fn info(&mut self, section: Option<&str>) -> TxResult<String> {
        let reply = match section {
            Some(s) => self.command(&[b"INFO", s.as_bytes()])?,
            None => self.command(&[b"INFO"])?,
        };
        Ok(text(&reply))
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
                        Value::Bulk(b) => args.push(b),
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

/// Append a command made of `words`.
fn pack(buf: &mut Vec<u8>, words: &[&[u8]]) {
    header(buf, b'*', words.len());
    for w in words {
        bulk(buf, &[w]);
    }
}

/// Append one RESP bulk string made of `parts` end to end (a prefix and a key).
fn bulk(buf: &mut Vec<u8>, parts: &[&[u8]]) {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    header(buf, b'$', len);
    for p in parts {
        buf.extend_from_slice(p);
    }
    buf.extend_from_slice(b"\r\n");
}

/// Append an integer as a bulk string.
fn int_bulk(buf: &mut Vec<u8>, n: i64) {
    let mut text = itoa::Buffer::new();
    let d = text.format(n).as_bytes();
    header(buf, b'$', d.len());
    buf.extend_from_slice(d);
    buf.extend_from_slice(b"\r\n");
}

/// Append a RESP header line: `kind` (`*` or `$`) and a count (itoa: faster than
/// `write!`'s formatting machinery, and this runs several times per command).
fn header(buf: &mut Vec<u8>, kind: u8, n: usize) {
    buf.push(kind);
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    buf.extend_from_slice(b"\r\n");
}

/// A reply as text (setup and read-back only).
fn text(v: &Value) -> String {
    match v {
        Value::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Status(s) | Value::Error(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Nil => String::new(),
        other => format!("{other:?}"),
    }
}

impl KvClient for RedisClient {
    fn evented(&self) -> bool {
        true
    }
    fn set(&mut self, key: &[u8], value: &[u8]) -> TxResult<()> {
        self.buf.clear();
        self.buf.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
        bulk(&mut self.buf, &[&self.prefix, key]);
        bulk(&mut self.buf, &[value]);
        match self.one()? {
            Reply::Simple(b"OK") => Ok(()),
            other => Err(unexpected("SET", &other)),
        }
    }
    /// MULTI, a SET per key and EXEC, sent at once: one round trip, one transaction.
    fn set_all(&mut self, keys: &mut dyn Iterator<Item = &[u8]>, value: &[u8]) -> TxResult<()> {
        self.buf.clear();
        self.buf.extend_from_slice(b"*1\r\n$5\r\nMULTI\r\n");
        let mut n = 0;
        for key in keys {
            self.buf.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
            bulk(&mut self.buf, &[&self.prefix, key]);
            bulk(&mut self.buf, &[value]);
            n += 1;
        }
        self.buf.extend_from_slice(b"*1\r\n$4\r\nEXEC\r\n");
        // +OK, a +QUEUED per SET, then EXEC's array of each SET's reply.
        let Some(exec) = self.roundtrip(n + 2)?.last() else {
            return Err(TxError::Fail("redis: no reply to EXEC".into()));
        };
        match exec {
            Reply::Array(mut each) if each.len() == n => match each.find(|r| !matches!(r, Reply::Simple(b"OK"))) {
                None => Ok(()),
                Some(other) => Err(unexpected("SET in MULTI", &other)),
            },
            other => Err(unexpected("EXEC", &other)),
        }
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> TxResult<bool> {
        self.buf.clear();
        self.buf.extend_from_slice(b"*2\r\n$3\r\nGET\r\n");
        bulk(&mut self.buf, &[&self.prefix, key]);
        out.clear();
        match self.one()? {
            Reply::Bulk(v) => {
                out.extend_from_slice(v);
                Ok(true)
            }
            Reply::Nil => Ok(false),
            other => Err(unexpected("GET", &other)),
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
}

/// Hashes and sorted sets are Redis's own.
impl Capable for RedisClient {
    fn hashes(&mut self) -> Option<&mut dyn Hashes> {
        Some(self)
    }
    fn sorted_sets(&mut self) -> Option<&mut dyn SortedSets> {
        Some(self)
    }
}

impl Hashes for RedisClient {
    fn hset(&mut self, key: &[u8], fields: &[(&[u8], &[u8])]) -> TxResult<()> {
        self.buf.clear();
        self.keyed(b"HSET", key, 2 * fields.len());
        for (f, v) in fields {
            bulk(&mut self.buf, &[f]);
            bulk(&mut self.buf, &[v]);
        }
        self.one().map(drop)
    }
    fn hincrby(&mut self, incs: &[HashIncr]) -> TxResult<()> {
        self.buf.clear();
        for inc in incs {
            self.keyed(b"HINCRBY", inc.key, 2);
            bulk(&mut self.buf, &[inc.field]);
            int_bulk(&mut self.buf, inc.by);
        }
        self.roundtrip(incs.len()).map(drop)
    }
    fn hgetall(&mut self, keys: &[&[u8]], field: &mut HashField) -> TxResult<u64> {
        self.buf.clear();
        for key in keys {
            self.keyed(b"HGETALL", key, 0);
        }
        let mut found = 0;
        // Every reply is read before the first field is handed on: a failure hands on none.
        for (i, reply) in self.roundtrip(keys.len())?.enumerate() {
            // RESP2 answers a flat array of field, value.
            let Reply::Array(mut items) = reply else { return Err(unexpected("HGETALL", &reply)) };
            found += u64::from(!items.is_empty());
            while let Some(f) = items.next() {
                match (f, items.next()) {
                    (Reply::Bulk(f), Some(Reply::Bulk(v))) => field(i, f, v),
                    (f, _) => return Err(unexpected("HGETALL", &f)),
                }
            }
        }
        Ok(found)
    }
}

impl SortedSets for RedisClient {
    fn zadd(&mut self, key: &[u8], score: i64, member: &[u8]) -> TxResult<()> {
        self.buf.clear();
        self.keyed(b"ZADD", key, 2);
        int_bulk(&mut self.buf, score);
        bulk(&mut self.buf, &[member]);
        self.one().map(drop)
    }
    fn zrange_from(&mut self, key: &[u8], min: i64, count: usize, member: &mut dyn FnMut(&[u8])) -> TxResult<u64> {
        self.buf.clear();
        self.keyed(b"ZRANGEBYSCORE", key, 5);
        int_bulk(&mut self.buf, min);
        for word in [&b"+inf"[..], b"LIMIT", b"0"] {
            bulk(&mut self.buf, &[word]);
        }
        int_bulk(&mut self.buf, i64::try_from(count).unwrap_or(i64::MAX));
        match self.one()? {
            Reply::Array(items) => {
                let n = items.len() as u64;
                for item in items {
                    match item {
                        Reply::Bulk(m) => member(m),
                        other => return Err(unexpected("ZRANGEBYSCORE", &other)),
                    }
                }
                Ok(n)
            }
            other => Err(unexpected("ZRANGEBYSCORE", &other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_packed_as_resp() {
        let mut buf = Vec::new();
        buf.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
        bulk(&mut buf, &[b"p:", b"k1"]);
        bulk(&mut buf, &[b"value"]);
        assert_eq!(buf, b"*3\r\n$3\r\nSET\r\n$4\r\np:k1\r\n$5\r\nvalue\r\n");
        buf.clear();
        for n in [0, 7, -7, 1234567890, i64::MIN, i64::MAX] {
            int_bulk(&mut buf, n);
        }
        let want = ["0", "7", "-7", "1234567890", "-9223372036854775808", "9223372036854775807"]
            .map(|n| format!("${}\r\n{n}\r\n", n.len()))
            .concat();
        assert_eq!(String::from_utf8(buf).unwrap(), want);
    }

    /// Against the system Redis (scripts/test starts it), under a prefix of its own.
    #[test]
    fn hashes_and_sorted_sets() {
        let ep = Endpoint::parse("redis://127.0.0.1:6379/0").unwrap();
        let prefix = format!("dbrace-unit-{}:", std::process::id());
        let mut c = RedisClient::connect(&ep, prefix.as_bytes())
            .unwrap_or_else(|e| panic!("the system Redis on 127.0.0.1:6379 (scripts/test starts it): {e}"));
        c.scan_prefixed(true).unwrap();
        crate::engine::capability::check_kv_ops(&mut c);
        c.scan_prefixed(true).unwrap();
    }

    /// Replies larger than the read buffer, and a pipeline of them, arrive in many reads.
    #[test]
    fn large_replies_span_many_reads() {
        let ep = Endpoint::parse("redis://127.0.0.1:6379/0").unwrap();
        let prefix = format!("dbrace-unit-large-{}:", std::process::id());
        let mut c = RedisClient::connect(&ep, prefix.as_bytes()).unwrap();
        c.scan_prefixed(true).unwrap();
        let big: Vec<u8> = (0..300_000u32).map(|i| b"\r\nab$*:-+"[i as usize % 9]).collect();
        c.set(b"big", &big).unwrap();
        let mut out = Vec::new();
        assert!(c.get(b"big", &mut out).unwrap());
        assert!(out == big, "a 300 kB value came back changed");
        let fields: Vec<(Vec<u8>, Vec<u8>)> =
            (0..3000).map(|i| (format!("field-{i}").into_bytes(), format!("value\r\n{i}").into_bytes())).collect();
        let pairs: Vec<(&[u8], &[u8])> = fields.iter().map(|(f, v)| (&f[..], &v[..])).collect();
        for k in [b"h0", b"h1", b"h2"] {
            c.hset(k, &pairs).unwrap();
        }
        let mut seen = [0usize; 4];
        let found = c.hgetall(&[b"h0", b"nope", b"h1", b"h2"], &mut |i, f, v| {
            let n = std::str::from_utf8(f).unwrap().strip_prefix("field-").unwrap();
            assert_eq!(v, format!("value\r\n{n}").as_bytes());
            seen[i] += 1;
        });
        assert_eq!((found.unwrap(), seen), (3, [3000, 0, 3000, 3000]));
        assert!(c.get(b"nope", &mut out).is_ok_and(|had| !had) && out.is_empty());
        assert_eq!(c.scan_prefixed(true).unwrap(), 4);
    }
}
