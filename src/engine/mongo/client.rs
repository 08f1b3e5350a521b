//! dbrace's MongoDB client: one synchronous connection per client, commands written into
//! the connection's reused buffer (`bson_out`) and replies read where they lie (`wire`),
//! the handshake (`hello`) and login (`login.rs`), every write sent with the profile's write
//! concern. Beside it: `failure.rs` the errors and their codes, `reply.rs` fields read in
//! place, `cursor.rs` cursors walked with `getMore`, `doc_client.rs` the workloads'
//! operations, `setup.rs` the `--setup` commands.

use super::bson_out as out;
use super::failure::Failure;
use super::reply::get_number;
use super::scram::Mechanism;
use super::url::Endpoint;
use super::wire::Wire;
use crate::engine::ConnectError;
use crate::engine::kit::tls_failure::{self, Fixes};
use crate::redact::scrub;
use bson::RawDocument;
use std::time::Duration;

/// What every write asks of the server: acknowledged by the primary (`w: 1`), and
/// with `journal` only once its journal holds the write on disk (`j: true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteConcern {
    /// `j`: wait for the journal's sync.
    pub journal: bool,
}

/// A connection to one server, working in one database.
pub struct MongoClient {
    wire: Wire,
    pub(super) db: String,
    pub(super) wc: WriteConcern,
    /// A dotted path being built while a reply's nested fields are walked; reused.
    pub(super) path: String,
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
    /// Connect and shake hands within the endpoint's connect timeout (replies wait 30 s at
    /// most), and log in as the endpoint says; the client works in database `db` with write concern `wc`.
    pub fn connect(ep: &Endpoint, db: &str, wc: WriteConcern) -> Result<MongoClient, ConnectError> {
        let secret = ep.password.as_deref().unwrap_or("");
        let where_ = ep.redacted();
        let unreachable = |e: &dyn std::fmt::Display| {
            ConnectError::Unreachable(format!("cannot connect to {where_}: {}", scrub(&e.to_string(), secret)))
        };
        let config = match &ep.tls {
            Some(tls) => Some(tls.config().map_err(|e| {
                ConnectError::Tls(format!("{where_}: {e}; check the files of tlsCAFile and tlsCertificateKeyFile"))
            })?),
            None => None,
        };
        let tls = config.is_some();
        let mut wire =
            Wire::open(&ep.addr, ep.connect_timeout, Duration::from_secs(30), config).map_err(|e| unreachable(&e))?;
        if tls {
            wire.handshake().map_err(|e| tls_failed(&e, &ep.addr, secret).unwrap_or_else(|| unreachable(&e)))?;
        }
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

    /// The TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or None.
    pub fn tls(&self) -> Option<String> {
        self.wire.tls()
    }

    /// One wait for a reply lasts `idle` at most (a reader of counters gives up early).
    pub fn set_patience(&mut self, idle: Duration) {
        self.wire.set_io(idle);
    }

    /// Send the command `write` puts in its document (its name first), in database `db`;
    /// the reply, or the error it carries.
    pub(super) fn run_in(&mut self, db: &str, write: impl FnOnce(&mut Vec<u8>)) -> Result<&RawDocument, Failure> {
        exec(&mut self.wire, db, write)
    }

    /// As `run_in`, in the client's database.
    pub(super) fn run(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Result<&RawDocument, Failure> {
        exec(&mut self.wire, &self.db, write)
    }

    /// The write concern element of a write command.
    pub(super) fn write_concern(buf: &mut Vec<u8>, wc: WriteConcern) {
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
}

/// The URL options that fix a failed TLS session.
const FIXES: Fixes = Fixes {
    any_host: "tlsAllowInvalidHostnames=true",
    roots: "tlsCAFile=FILE (or check nothing with tlsInsecure=true)",
    client_cert: "tlsCertificateKeyFile=FILE (its certificate and key in one PEM)",
    plain: "drop tls=true",
};

/// A failed TLS handshake with the server at `addr`, in one line, or None when `e` is no
/// TLS failure.
fn tls_failed(e: &std::io::Error, addr: &super::wire::Addr, secret: &str) -> Option<ConnectError> {
    let server = match addr {
        super::wire::Addr::Tcp(h, p) => format!("{h}:{p}"),
        super::wire::Addr::Unix(p) => p.display().to_string(),
    };
    let m = match tls_failure::explain(e, &server, &FIXES) {
        Some(m) => m,
        // A server without TLS reads a TLS greeting as the start of a message, and may wait.
        None if e.kind() == std::io::ErrorKind::TimedOut => format!(
            "{server} sent no TLS answer in time ({e}): is TLS on there? (for a server without TLS, drop tls=true)"
        ),
        None => return None,
    };
    Some(ConnectError::Tls(scrub(&m, secret)))
}

/// Send the command `write` puts in its document on `wire`, in database `db`.
fn exec<'w>(wire: &'w mut Wire, db: &str, write: impl FnOnce(&mut Vec<u8>)) -> Result<&'w RawDocument, Failure> {
    let buf = wire.start();
    let top = out::begin(buf);
    write(buf);
    out::str(buf, "$db", db);
    out::end(buf, top);
    let r = wire.call().map_err(|e| Failure::Io(e.to_string()))?;
    match super::failure::reply_error(r) {
        Some(e) => Err(e),
        None => Ok(r),
    }
}
