//! dbrace's MongoDB client: one synchronous connection per client, commands written into
//! the connection's reused buffer (`bson_out`) and replies read where they lie (`wire`),
//! the handshake (`hello`), SCRAM login, server errors with their codes, cursors walked
//! with `getMore`, and every write sent with the profile's write concern.

use super::bson_out::{self as out, Index};
use super::scram::{self, Mechanism, Scram};
use super::url::Endpoint;
use super::wire::Wire;
use crate::engine::{ConnectError, DocClient, DocField, DocIncr, DocValue, NewDoc, TxError, TxResult};
use bson::{RawBsonRef, RawDocument};
use std::time::Duration;

/// What every write asks of the server: acknowledged by the primary (`w: 1`), and
/// with `journal` only once its journal holds the write on disk (`j: true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteConcern {
    /// `j`: wait for the journal's sync.
    pub journal: bool,
}

/// Server error codes the client tells apart.
pub mod code {
    /// A unique index (`_id`) already holds the key.
    pub const DUPLICATE_KEY: i32 = 11000;
    /// Another operation wrote the document first: retry.
    pub const WRITE_CONFLICT: i32 = 112;
    /// The collection does not exist (dropping one that never was).
    pub const NAMESPACE_NOT_FOUND: i32 = 26;
    /// Wrong user or password.
    pub const AUTHENTICATION_FAILED: i32 = 18;
    /// The command needs a login or a role.
    pub const UNAUTHORIZED: i32 = 13;
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The connection: refused, closed, timed out, or a reply that is not one.
    Io(String),
    /// The server answered with an error (`ok: 0`, a write error, a write concern error).
    Server {
        /// Its code.
        code: i32,
        /// Its code name and message.
        msg: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(m) => write!(f, "mongo: {m}"),
            Failure::Server { code, msg } => write!(f, "mongo: {msg} (code {code})"),
        }
    }
}

impl Failure {
    /// The code of a server error, if it is one.
    pub fn code(&self) -> Option<i32> {
        match self {
            Failure::Server { code, .. } => Some(*code),
            Failure::Io(_) => None,
        }
    }

    /// As a transaction's error: WriteConflict is a conflict to retry; a duplicate key one
    /// only when `upsert` (two upserts of one new document raced), else `Duplicate`.
    fn tx(self, upsert: bool) -> TxError {
        match self.code() {
            Some(code::WRITE_CONFLICT) => TxError::Retry,
            Some(code::DUPLICATE_KEY) if upsert => TxError::Retry,
            Some(code::DUPLICATE_KEY) => TxError::Duplicate(self.to_string()),
            _ => TxError::Fail(self.to_string()),
        }
    }
}

/// The integer an `ok`, `n` or count field holds, whatever numeric type the server chose.
pub fn number(v: RawBsonRef) -> Option<i64> {
    match v {
        RawBsonRef::Int32(i) => Some(i.into()),
        RawBsonRef::Int64(i) => Some(i),
        RawBsonRef::Double(d) if d.fract() == 0.0 && d.abs() < 9.2e18 => Some(d as i64),
        RawBsonRef::Boolean(b) => Some(b.into()),
        _ => None,
    }
}

/// `doc[key]` as an integer.
pub fn get_number(doc: &RawDocument, key: &str) -> Option<i64> {
    doc.get(key).ok().flatten().and_then(number)
}

/// `doc[key]` as text. (The `bson` crate's own `get_str` and kin build an error, with
/// the key copied into it, for every miss: these only look.)
pub fn get_str<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a str> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::String(s)) => Some(s),
        _ => None,
    }
}

/// `doc[key]` as a document.
pub fn get_doc<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a RawDocument> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::Document(d)) => Some(d),
        _ => None,
    }
}

/// `doc[key]` as an array.
pub fn get_array<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a bson::RawArray> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::Array(a)) => Some(a),
        _ => None,
    }
}

/// The error a reply carries: `ok: 0`, else its first write error, else its write
/// concern error.
fn reply_error(r: &RawDocument) -> Option<Failure> {
    let error = |d: &RawDocument| {
        let code = get_number(d, "code").unwrap_or(0) as i32;
        let name = get_str(d, "codeName").unwrap_or("");
        let msg = get_str(d, "errmsg").unwrap_or("no message");
        let msg = if name.is_empty() { msg.to_string() } else { format!("{name}: {msg}") };
        Failure::Server { code, msg }
    };
    if get_number(r, "ok") != Some(1) {
        return Some(error(r));
    }
    if let Some(errors) = get_array(r, "writeErrors")
        && let Some(Ok(RawBsonRef::Document(first))) = errors.into_iter().next()
    {
        return Some(error(first));
    }
    if let Some(wce) = get_doc(r, "writeConcernError") {
        return Some(error(wce));
    }
    None
}

/// A connection to one server, working in one database.
pub struct MongoClient {
    wire: Wire,
    db: String,
    wc: WriteConcern,
    /// A dotted path being built while a reply's nested fields are walked; reused.
    path: String,
}

/// Remove a secret from a message, whatever quoted it.
fn scrub(msg: &str, secret: &str) -> String {
    if secret.is_empty() { msg.to_string() } else { msg.replace(secret, "***") }
}

/// A 24-byte random nonce, base64: SCRAM's client nonce.
fn nonce() -> String {
    use base64::Engine as _;
    let mut b = [0u8; 24];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut b));
    if read.is_err() {
        // Never predictable alone: the time and the pid mixed in as a fallback.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        b[..16].copy_from_slice(&t.as_nanos().to_le_bytes());
        b[16..20].copy_from_slice(&std::process::id().to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// What `hello` said about the server.
#[derive(Clone, Debug, Default)]
pub struct Hello {
    /// The mechanisms it offers for the user, if it was asked.
    pub mechanisms: Vec<String>,
    /// Its wire versions.
    pub max_wire_version: i64,
    /// Whether it is a writable primary (or a standalone server).
    pub writable: bool,
}

impl MongoClient {
    /// Connect within 5 s (replies wait 30 s at most), shake hands and log in as the
    /// endpoint says; the client works in database `db` with write concern `wc`.
    pub fn connect(ep: &Endpoint, db: &str, wc: WriteConcern) -> Result<MongoClient, ConnectError> {
        let secret = ep.password.as_deref().unwrap_or("");
        let where_ = ep.redacted();
        let unreachable = |e: &dyn std::fmt::Display| {
            ConnectError::Unreachable(format!("cannot connect to {where_}: {}", scrub(&e.to_string(), secret)))
        };
        let wire =
            Wire::open(&ep.addr, Duration::from_secs(5), Duration::from_secs(30)).map_err(|e| unreachable(&e))?;
        let mut c = MongoClient { wire, db: db.to_string(), wc, path: String::with_capacity(64) };
        let hello = c.hello(ep).map_err(|e| match e {
            Failure::Io(_) => unreachable(&e),
            Failure::Server { .. } => {
                ConnectError::Refused(format!("{where_} refused the handshake: {}", scrub(&e.to_string(), secret)))
            }
        })?;
        if !hello.writable {
            return Err(ConnectError::Refused(format!(
                "{where_} is not a writable primary (a secondary or an arbiter); give the primary's address"
            )));
        }
        if let Some(user) = &ep.user {
            let mech = match ep.mechanism {
                Some(m) => m,
                // The server lists the user's mechanisms; SHA-256 when it is there.
                None if hello.mechanisms.iter().any(|m| m == "SCRAM-SHA-1")
                    && !hello.mechanisms.iter().any(|m| m == "SCRAM-SHA-256") =>
                {
                    Mechanism::Sha1
                }
                None => Mechanism::Sha256,
            };
            c.login(user, secret, &ep.auth_source, mech).map_err(|e| match e {
                Failure::Io(_) => unreachable(&e),
                Failure::Server { .. } => ConnectError::Refused(format!(
                    "{where_} refused the login of {user} ({}): {}",
                    mech.name(),
                    scrub(&e.to_string(), secret)
                )),
            })?;
        }
        Ok(c)
    }

    /// Send the command `write` puts in its document (its name first), in database `db`;
    /// the reply, or the error it carries.
    fn run_in(&mut self, db: &str, write: impl FnOnce(&mut Vec<u8>)) -> Result<&RawDocument, Failure> {
        exec(&mut self.wire, db, write)
    }

    /// As `run_in`, in the client's database.
    fn run(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Result<&RawDocument, Failure> {
        exec(&mut self.wire, &self.db, write)
    }

    /// The write concern element of a write command.
    fn write_concern(buf: &mut Vec<u8>, wc: WriteConcern) {
        let d = out::doc(buf, "writeConcern");
        out::i32(buf, "w", 1);
        out::bool(buf, "j", wc.journal);
        out::end(buf, d);
    }

    /// `hello`, asking for the user's mechanisms when there is a user.
    fn hello(&mut self, ep: &Endpoint) -> Result<Hello, Failure> {
        let user = ep.user.as_ref().map(|u| format!("{}.{u}", ep.auth_source));
        let r = self.run_in("admin", |b| {
            out::i32(b, "hello", 1);
            if let Some(u) = &user {
                out::str(b, "saslSupportedMechs", u);
            }
            let d = out::doc(b, "client");
            let app = out::doc(b, "application");
            out::str(b, "name", "dbrace");
            out::end(b, app);
            let drv = out::doc(b, "driver");
            out::str(b, "name", "dbrace");
            out::str(b, "version", env!("CARGO_PKG_VERSION"));
            out::end(b, drv);
            let os = out::doc(b, "os");
            out::str(b, "type", std::env::consts::OS);
            out::end(b, os);
            out::end(b, d);
        })?;
        let mut h = Hello {
            max_wire_version: get_number(r, "maxWireVersion").unwrap_or(0),
            writable: get_number(r, "isWritablePrimary").or_else(|| get_number(r, "ismaster")) == Some(1),
            ..Hello::default()
        };
        if let Ok(m) = r.get_array("saslSupportedMechs") {
            h.mechanisms = m.into_iter().filter_map(|v| v.ok()?.as_str().map(str::to_string)).collect();
        }
        Ok(h)
    }

    /// SCRAM with `mech` as `user` of database `source`.
    fn login(&mut self, user: &str, password: &str, source: &str, mech: Mechanism) -> Result<(), Failure> {
        let (mut s, first) = Scram::start(mech, user, scram::prepared_password(mech, user, password), &nonce());
        let r = self.run_in(source, |b| {
            out::i32(b, "saslStart", 1);
            out::str(b, "mechanism", mech.name());
            out::binary(b, "payload", first.as_bytes());
            out::bool(b, "autoAuthorize", true);
            let o = out::doc(b, "options");
            out::bool(b, "skipEmptyExchange", true);
            out::end(b, o);
        })?;
        let (conversation, payload) = sasl_reply(r)?;
        let fin = s.finish(&payload).map_err(Failure::Io)?;
        let r = self.run_in(source, |b| {
            out::i32(b, "saslContinue", 1);
            out::i32(b, "conversationId", conversation);
            out::binary(b, "payload", fin.as_bytes());
        })?;
        let done = r.get_bool("done").unwrap_or(false);
        let (_, payload) = sasl_reply(r)?;
        s.verify(&payload).map_err(Failure::Io)?;
        if !done {
            // Servers that ignore skipEmptyExchange want one empty message more.
            let r = self.run_in(source, |b| {
                out::i32(b, "saslContinue", 1);
                out::i32(b, "conversationId", conversation);
                out::binary(b, "payload", b"");
            })?;
            if !r.get_bool("done").unwrap_or(false) {
                return Err(Failure::Io("the server did not end the SCRAM conversation".into()));
            }
        }
        Ok(())
    }

    /// A command given as a whole document (setup, read-back, `--setup`; not the hot
    /// path), in `db`; the reply, owned.
    pub fn command_doc(&mut self, db: &str, cmd: &bson::Document) -> Result<bson::RawDocumentBuf, Failure> {
        let bytes = bson::to_vec(cmd).map_err(|e| Failure::Io(format!("cannot encode the command: {e}")))?;
        let body = RawDocument::from_bytes(&bytes).map_err(|e| Failure::Io(e.to_string()))?;
        let r = self.run_in(db, |b| {
            // The command's own elements, then `$db`.
            b.extend_from_slice(&body.as_bytes()[4..body.as_bytes().len() - 1]);
        })?;
        Ok(r.to_raw_document_buf())
    }

    /// A one-field command in the admin database, e.g. `{buildInfo: 1}`; the reply, owned.
    pub fn admin(&mut self, name: &str) -> Result<bson::RawDocumentBuf, Failure> {
        let r = self.run_in("admin", |b| out::i32(b, name, 1))?;
        Ok(r.to_raw_document_buf())
    }

    /// Whether this login may read the client's database (`listCollections`): a server
    /// that wants a password says so here, before any workload starts.
    pub fn probe(&mut self) -> Result<(), Failure> {
        self.run(|b| {
            out::i32(b, "listCollections", 1);
            out::bool(b, "nameOnly", true);
        })
        .map(drop)
    }

    /// Drop the client's database (a `--url` run's own, afterwards).
    pub fn drop_database(&mut self) -> Result<(), Failure> {
        self.run(|b| out::i32(b, "dropDatabase", 1)).map(drop)
    }

    /// Walk a cursor reply (`cursor.firstBatch` or `.nextBatch`), handing `doc` each
    /// document, then `getMore` until the server closes the cursor or `limit` documents
    /// were read (then `killCursors`); the number read.
    fn walk(
        &mut self,
        coll: &str,
        first: impl FnOnce(&mut Vec<u8>),
        limit: u64,
        doc: &mut dyn FnMut(&RawDocument, &mut String) -> Result<(), Failure>,
    ) -> Result<u64, Failure> {
        let mut path = std::mem::take(&mut self.path);
        let r = (|| {
            let mut n = 0u64;
            let mut batch = "firstBatch";
            let mut id = {
                let r = self.run(first)?;
                walk_batch(r, batch, limit, &mut n, &mut path, doc)?
            };
            batch = "nextBatch";
            while id != 0 && n < limit {
                let r = self.run(|b| {
                    out::i64(b, "getMore", id);
                    out::str(b, "collection", coll);
                })?;
                id = walk_batch(r, batch, limit, &mut n, &mut path, doc)?;
            }
            if id != 0 {
                self.run(|b| {
                    out::str(b, "killCursors", coll);
                    let a = out::array(b, "cursors");
                    out::i64(b, "0", id);
                    out::end(b, a);
                })?;
            }
            Ok(n)
        })();
        self.path = path;
        r
    }
}

/// Send the command `write` puts in its document on `wire`, in database `db`.
fn exec<'w>(wire: &'w mut Wire, db: &str, write: impl FnOnce(&mut Vec<u8>)) -> Result<&'w RawDocument, Failure> {
    let buf = wire.start();
    let top = out::begin(buf);
    write(buf);
    out::str(buf, "$db", db);
    out::end(buf, top);
    let r = wire.call().map_err(|e| Failure::Io(e.to_string()))?;
    match reply_error(r) {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

/// The conversation id and payload of a SASL reply.
fn sasl_reply(r: &RawDocument) -> Result<(i32, Vec<u8>), Failure> {
    let id = get_number(r, "conversationId").unwrap_or(0) as i32;
    match r.get_binary("payload") {
        Ok(b) => Ok((id, b.bytes.to_vec())),
        Err(_) => Err(Failure::Io("a SASL reply without a payload".into())),
    }
}

/// Hand each document of one cursor batch to `doc` (up to `limit` in all); the cursor's id.
fn walk_batch(
    r: &RawDocument,
    batch: &str,
    limit: u64,
    n: &mut u64,
    path: &mut String,
    doc: &mut dyn FnMut(&RawDocument, &mut String) -> Result<(), Failure>,
) -> Result<i64, Failure> {
    let bad = |why: &str| Failure::Io(format!("bad cursor reply: {why}"));
    let cursor = get_doc(r, "cursor").ok_or_else(|| bad("no cursor"))?;
    let id = get_number(cursor, "id").ok_or_else(|| bad("no cursor id"))?;
    let docs = get_array(cursor, batch).ok_or_else(|| bad(batch))?;
    for d in docs {
        match d.map_err(|e| bad(&e.to_string()))? {
            RawBsonRef::Document(d) if *n < limit => {
                doc(d, path)?;
                *n += 1;
            }
            RawBsonRef::Document(_) => {}
            _ => return Err(bad("a batch item that is not a document")),
        }
    }
    Ok(id)
}

/// Nested documents are walked this deep at most (counters nest one level).
const MAX_DEPTH: usize = 8;

/// Every element of `d`, read (a document is read whole, as a driver decodes it); the
/// number of elements.
fn read_whole(d: &RawDocument) -> Result<usize, Failure> {
    let mut n = 0;
    for e in d {
        e.map_err(|e| Failure::Io(format!("bad document: {e}")))?;
        n += 1;
    }
    Ok(n)
}

/// Hand `field` each integer of `d` under its dotted path (`duration.sum` for
/// `{duration: {sum: …}}`), `_id` aside; `path` is the prefix so far.
fn flatten(d: &RawDocument, id: &str, path: &mut String, depth: usize, field: &mut DocField) -> Result<(), Failure> {
    if depth > MAX_DEPTH {
        return Err(Failure::Io("documents nested too deep".into()));
    }
    for e in d {
        let (k, v) = e.map_err(|e| Failure::Io(format!("bad document: {e}")))?;
        if depth == 0 && k == "_id" {
            continue;
        }
        let len = path.len();
        if depth > 0 {
            path.push('.');
        }
        path.push_str(k);
        match v {
            RawBsonRef::Document(inner) => flatten(inner, id, path, depth + 1, field)?,
            v => field(id, path, number(v).unwrap_or(i64::MIN)),
        }
        path.truncate(len);
    }
    Ok(())
}

/// A document's `_id` as text (this client's collections key by text or integers).
fn id_text<'a>(d: &'a RawDocument, digits: &'a mut [u8; 24]) -> &'a str {
    match d.get("_id").ok().flatten() {
        Some(RawBsonRef::String(s)) => s,
        Some(v) => match number(v) {
            Some(i) => {
                use std::io::Write;
                let mut c = std::io::Cursor::new(&mut digits[..]);
                let _ = write!(c, "{i}");
                let l = c.position() as usize;
                std::str::from_utf8(&digits[..l]).unwrap_or("")
            }
            None => "",
        },
        None => "",
    }
}

fn value(buf: &mut Vec<u8>, name: &str, v: DocValue) {
    match v {
        DocValue::Int(i) => out::i64(buf, name, i),
        DocValue::Text(s) => out::str(buf, name, s),
    }
}

impl DocClient for MongoClient {
    fn drop_collection(&mut self, coll: &str) -> TxResult<()> {
        match self.run(|b| out::str(b, "drop", coll)) {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some(code::NAMESPACE_NOT_FOUND) => Ok(()),
            Err(e) => Err(e.tx(false)),
        }
    }

    fn insert(&mut self, coll: &str, docs: &[NewDoc]) -> TxResult<()> {
        let wc = self.wc;
        self.run(|b| {
            out::str(b, "insert", coll);
            let a = out::array(b, "documents");
            for (i, d) in docs.iter().enumerate() {
                let o = out::doc(b, Index::of(i).as_str());
                value(b, "_id", d.id);
                for &(k, v) in d.fields {
                    value(b, k, v);
                }
                out::end(b, o);
            }
            out::end(b, a);
            out::bool(b, "ordered", true);
            Self::write_concern(b, wc);
        })
        .map(drop)
        .map_err(|e| e.tx(false))
    }

    fn find_id(&mut self, coll: &str, id: &str) -> TxResult<bool> {
        let n = self
            .walk(
                coll,
                |b| {
                    out::str(b, "find", coll);
                    let f = out::doc(b, "filter");
                    out::str(b, "_id", id);
                    out::end(b, f);
                    out::i32(b, "limit", 1);
                    out::bool(b, "singleBatch", true);
                },
                1,
                &mut |d, _| read_whole(d).map(drop),
            )
            .map_err(|e| e.tx(false))?;
        Ok(n == 1)
    }

    fn set(&mut self, coll: &str, id: &str, field: &str, v: DocValue) -> TxResult<bool> {
        let wc = self.wc;
        let r = self
            .run(|b| {
                out::str(b, "update", coll);
                let a = out::array(b, "updates");
                let u = out::doc(b, "0");
                let q = out::doc(b, "q");
                out::str(b, "_id", id);
                out::end(b, q);
                let m = out::doc(b, "u");
                let s = out::doc(b, "$set");
                value(b, field, v);
                out::end(b, s);
                out::end(b, m);
                out::end(b, u);
                out::end(b, a);
                Self::write_concern(b, wc);
            })
            .map_err(|e| e.tx(false))?;
        Ok(get_number(r, "n") == Some(1))
    }

    fn scan(&mut self, coll: &str, from: &str, limit: usize) -> TxResult<u64> {
        self.walk(
            coll,
            |b| {
                out::str(b, "find", coll);
                let f = out::doc(b, "filter");
                let id = out::doc(b, "_id");
                out::str(b, "$gte", from);
                out::end(b, id);
                out::end(b, f);
                let s = out::doc(b, "sort");
                out::i32(b, "_id", 1);
                out::end(b, s);
                out::i64(b, "limit", limit as i64);
            },
            limit as u64,
            &mut |d, _| read_whole(d).map(drop),
        )
        .map_err(|e| e.tx(false))
    }

    fn inc(&mut self, coll: &str, incs: &[DocIncr], one_bulk: bool) -> TxResult<()> {
        let wc = self.wc;
        // Increments of one document are consecutive: one update statement each.
        let mut rest = incs;
        while !rest.is_empty() {
            let take = if one_bulk { rest.len() } else { rest.iter().take_while(|i| i.id == rest[0].id).count() };
            let (now, later) = rest.split_at(take);
            rest = later;
            self.run(|b| {
                out::str(b, "update", coll);
                let a = out::array(b, "updates");
                let mut at = 0;
                let mut i = 0;
                while at < now.len() {
                    let id = now[at].id;
                    let end = at + now[at..].iter().take_while(|x| x.id == id).count();
                    let u = out::doc(b, Index::of(i).as_str());
                    let q = out::doc(b, "q");
                    out::str(b, "_id", id);
                    out::end(b, q);
                    let m = out::doc(b, "u");
                    let d = out::doc(b, "$inc");
                    for x in &now[at..end] {
                        out::i64(b, x.field, x.by);
                    }
                    out::end(b, d);
                    out::end(b, m);
                    out::bool(b, "upsert", true);
                    out::end(b, u);
                    (at, i) = (end, i + 1);
                }
                out::end(b, a);
                out::bool(b, "ordered", true);
                Self::write_concern(b, wc);
            })
            .map_err(|e| e.tx(true))?;
        }
        Ok(())
    }

    fn range(&mut self, coll: &str, from: &str, to: &str, field: &mut DocField) -> TxResult<u64> {
        self.walk(
            coll,
            |b| {
                out::str(b, "find", coll);
                let f = out::doc(b, "filter");
                let id = out::doc(b, "_id");
                out::str(b, "$gte", from);
                out::str(b, "$lte", to);
                out::end(b, id);
                out::end(b, f);
                let s = out::doc(b, "sort");
                out::i32(b, "_id", 1);
                out::end(b, s);
            },
            u64::MAX,
            &mut |d, path| {
                let mut digits = [0u8; 24];
                let id = id_text(d, &mut digits);
                path.clear();
                flatten(d, id, path, 0, field)
            },
        )
        .map_err(|e| e.tx(false))
    }

    fn count(&mut self, coll: &str) -> TxResult<u64> {
        let r = self.run(|b| out::str(b, "count", coll)).map_err(|e| e.tx(false))?;
        get_number(r, "n").map(|n| n as u64).ok_or_else(|| TxError::Fail("mongo: count answered no n".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn raw(d: bson::Document) -> Vec<u8> {
        bson::to_vec(&d).unwrap()
    }

    #[test]
    fn errors_carry_their_codes() {
        let r = raw(doc! {"ok": 0.0, "errmsg": "bad auth", "code": 18, "codeName": "AuthenticationFailed"});
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert_eq!(e.code(), Some(18));
        assert_eq!(e.to_string(), "mongo: AuthenticationFailed: bad auth (code 18)");
        let r = raw(doc! {"ok": 1, "n": 0, "writeErrors": [{"index": 0, "code": 11000, "errmsg": "E11000 dup"}]});
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert!(matches!(e.tx(false), TxError::Duplicate(_)));
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert!(matches!(e.tx(true), TxError::Retry));
        let r = raw(doc! {"ok": 1.0, "writeConcernError": {"code": 100, "errmsg": "journal off"}});
        assert_eq!(reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap().code(), Some(100));
        let r = raw(doc! {"ok": 0, "code": 112, "errmsg": "WriteConflict"});
        assert!(matches!(reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap().tx(false), TxError::Retry));
        assert!(reply_error(RawDocument::from_bytes(&raw(doc! {"ok": 1.0, "n": 3})).unwrap()).is_none());
        // A reply without ok is not a success.
        assert!(reply_error(RawDocument::from_bytes(&raw(doc! {"n": 3})).unwrap()).is_some());
    }

    #[test]
    fn cursor_batches_stop_at_the_limit_and_refuse_junk() {
        let r = raw(
            doc! {"ok": 1, "cursor": {"id": 7i64, "ns": "d.c", "firstBatch": [{"_id": "a"}, {"_id": "b"}, {"_id": "c"}]}},
        );
        let (mut n, mut path) = (0, String::new());
        let mut seen = Vec::new();
        let id = walk_batch(RawDocument::from_bytes(&r).unwrap(), "firstBatch", 2, &mut n, &mut path, &mut |d, _| {
            seen.push(d.get_str("_id").unwrap().to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!((id, n, seen), (7, 2, vec!["a".to_string(), "b".to_string()]));
        for bad in [
            doc! {"ok": 1},
            doc! {"ok": 1, "cursor": {"id": 0}},
            doc! {"ok": 1, "cursor": {"id": 0, "firstBatch": [1]}},
        ] {
            let r = raw(bad);
            let got = walk_batch(
                RawDocument::from_bytes(&r).unwrap(),
                "firstBatch",
                9,
                &mut 0,
                &mut path,
                &mut |_, _| Ok(()),
            );
            assert!(got.is_err());
        }
    }

    #[test]
    fn nested_counters_flatten_to_paths() {
        let r = raw(doc! {"_id": "m::1h::5", "count": 2i64, "duration": {"sum": 4, "max": 6.0}, "note": "x"});
        let d = RawDocument::from_bytes(&r).unwrap();
        let mut got = Vec::new();
        let mut path = String::new();
        let mut digits = [0u8; 24];
        let id = id_text(d, &mut digits).to_string();
        flatten(d, &id, &mut path, 0, &mut |i, p, v| got.push((i.to_string(), p.to_string(), v))).unwrap();
        let want = [("count", 2), ("duration.sum", 4), ("duration.max", 6), ("note", i64::MIN)];
        assert_eq!(got, want.map(|(p, v)| ("m::1h::5".to_string(), p.to_string(), v)));
        let r = raw(doc! {"_id": 42i64});
        assert_eq!(id_text(RawDocument::from_bytes(&r).unwrap(), &mut digits), "42");
    }
}
