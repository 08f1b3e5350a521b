//! Engines: one folder each (the memory store, one file), registered in `all()`. An
//! engine launches or opens an instance for a profile, reads its settings back, and hands
//! out clients. It never knows a workload's tables.

pub mod access;
pub mod capability;
mod connection;
pub mod counters;
pub mod facts;
pub mod image;
pub mod kit;
pub mod machine;
pub mod memory;
pub mod mongo;
pub mod mysql;
pub mod postgres;
pub mod redis;
pub mod server;
pub mod sqlite;
pub mod waits;

use crate::error::Result;
use crate::profile::Profile;
use crate::results::Survives;
use std::collections::BTreeMap;

pub use capability::{
    Capability, Capable, DocField, DocIncr, DocIncrements, DocRanges, HashField, HashIncr, Hashes, SortedSets,
};
pub use connection::Connection;
pub use facts::Facts;
pub use machine::{BinDirs, BinFlag, Launch, Machine};
pub use server::ServerEngine;

/// What kind of client an engine hands out; workloads declare which they can drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    /// SQL statements with `?` placeholders.
    Sql,
    /// Key-value operations.
    Kv,
    /// Document operations (MongoDB's): inserts, finds by `_id`, `$set`, `$inc` upserts, ranges.
    Doc,
}

/// How an engine is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// dbrace starts (or opens) a throwaway instance itself.
    Managed,
    /// An existing server at this URL.
    Url(String),
}

/// How clients reach a throwaway server (`--transport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// The unix socket in the instance's 0700 directory.
    #[default]
    Socket,
    /// TCP on 127.0.0.1, a free port, a random password.
    Tcp,
}

impl Transport {
    /// The transport under `launcher`: a unix socket cannot cross the VM Docker runs
    /// containers in on a Mac or Windows (Docker Desktop), so there containers are reached
    /// over TCP.
    pub fn under(self, launcher: crate::launcher::Kind) -> Transport {
        match launcher {
            crate::launcher::Kind::Docker if crate::platform::host::DOCKER_IN_A_VM => Transport::Tcp,
            _ => self,
        }
    }
}

/// A database product dbrace can race.
pub trait Engine: Sync {
    /// Its static facts: name, interface, image, schemes, flags, limits.
    fn facts(&self) -> &'static Facts;
    /// The engine's name on the command line.
    fn name(&self) -> &'static str {
        self.facts().name
    }
    /// The engine's version, or why it cannot run on this machine.
    fn version(&self, machine: &Machine) -> Result<String>;
    /// The profile this engine runs for a requested one; `None` when it has no such mode.
    fn resolve_profile(&self, requested: &Profile) -> Option<Profile> {
        Some(requested.clone())
    }
    /// Whether `--set key=…` names a setting of this engine (on this machine's binaries).
    fn knows_setting(&self, key: &str, _machine: &Machine) -> bool {
        self.facts().setting_keys.contains(&key)
    }
    /// Why the tables it creates under `profile` keep a rolled-back transaction's changes,
    /// if they do (MariaDB's MEMORY tables under `unlogged`).
    fn no_rollback(&self, profile: &Profile) -> Option<&'static str> {
        let _ = profile;
        None
    }
    /// Refuse, before anything starts, a profile this engine cannot run on `target`.
    fn check(&self, _profile: &Profile, _target: &Target, _machine: &Machine) -> Result<()> {
        Ok(())
    }
    /// Whether this engine keeps files in a data directory (memory and in-memory modes do not).
    fn needs_data_dir(&self, profile: &Profile, target: &Target) -> bool;
    /// What a commit it acknowledged survives on an instance of `profile` whose settings
    /// read back are `settings` (its rule in engine/NAME/durability.rs; unknown where a
    /// setting that decides it is missing, never a guess).
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives;
    /// Start or open a fresh instance as `launch` says (its profile on its target, its
    /// files in its storage).
    fn launch(&self, launch: &Launch) -> Result<Box<dyn Instance>>;
    /// Refuse, before anything starts, a profile whose server cannot be handed to a user's
    /// own tools (`exec`, `serve`).
    fn check_exposed(&self, _profile: &Profile, _machine: &Machine) -> Result<()> {
        Err(not_exposable(self.name()))
    }
    /// Start a throwaway server as `launch` says that ordinary clients reach on 127.0.0.1
    /// as its access says.
    fn expose(&self, _launch: &Launch) -> Result<access::Exposed> {
        Err(not_exposable(self.name()))
    }
    /// Refuse, before any server starts, a `--setup` text this engine could not apply: why,
    /// in a few words. SQL is the server's to judge.
    fn check_setup(&self, _text: &str) -> std::result::Result<(), String> {
        Ok(())
    }
}

fn not_exposable(engine: &str) -> crate::error::Error {
    let can: Vec<&str> = all().iter().filter(|e| e.facts().exposes).map(|e| e.name()).collect();
    bad_input!("{engine} has no server to hand to a command; exec and serve run {}", or_list(&can))
}

/// `a, b or c`.
fn or_list(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "no engine".to_string(),
    }
}

/// A running instance of an engine, fresh for one cell and repeat.
pub trait Instance: Send + Sync {
    /// A new connection (one per client).
    fn connect(&self) -> Result<Connection>;
    /// The engine version that is actually running.
    fn version(&self) -> String;
    /// The settings in effect, read back from the engine.
    fn settings(&self) -> BTreeMap<String, String>;
    /// Fail when the instance's server has exited (killed from outside, crashed).
    fn alive(&self) -> Result<()> {
        Ok(())
    }
    /// A reader of the server's own counters on a connection of its own; None where the
    /// engine keeps none (an embedded engine's cost is the process's own).
    fn counters(&self) -> Result<Option<Box<dyn counters::CounterReader>>> {
        Ok(None)
    }
    /// A reader of what the server's client sessions wait for, on a connection of its
    /// own (`--hotspots`); None where the server has no such view.
    fn waits(&self) -> Result<Option<Box<dyn waits::WaitReader>>> {
        Ok(None)
    }
    /// What the server's processes have used so far; None where dbrace cannot see them (a
    /// `--url` server, an embedded engine).
    fn usage(&self) -> Option<crate::counters::Usage> {
        None
    }
    /// Which processes are the server's; None where dbrace cannot see them.
    fn processes(&self) -> Option<crate::launcher::usage::Processes> {
        None
    }
    /// Whether the engine runs in dbrace's process: its connections share one store
    /// (SQLite's file locks), so they open and load one at a time, not side by side.
    fn embedded(&self) -> bool {
        false
    }
}

/// A parameter of a prepared statement, borrowed so the hot path never allocates.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    /// A 64-bit integer.
    Int(i64),
    /// A text value.
    Text(&'a str),
}

/// An owned value, for bulk loading.
#[derive(Clone, Debug)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// A 64-bit integer.
    Int(i64),
    /// A text value.
    Text(String),
    /// `n` blanks for a char(n) column: engines that pad char(n) themselves get an empty
    /// string (as pgbench sends), the others the blanks.
    Blank(usize),
}

/// A prepared statement's handle on its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stmt(pub usize);

/// Why a transaction attempt failed.
#[derive(Debug)]
pub enum TxError {
    /// A conflict the engine asks us to retry (SQLITE_BUSY, serialization failure, deadlock).
    Retry,
    /// A unique-key violation: a conflict for a workload whose retry can succeed
    /// (sysbench's delete + insert racing another client's), a failure for the others.
    Duplicate(String),
    /// The connection is gone (closed, reset, the server shut down or ended the session):
    /// no statement on it can succeed, a new connection may.
    Lost(String),
    /// Anything else.
    Fail(String),
}

impl std::fmt::Display for TxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TxError::Retry => f.write_str("conflict (retryable)"),
            TxError::Fail(m) | TxError::Duplicate(m) | TxError::Lost(m) => f.write_str(m),
        }
    }
}

/// Why a connection could not be made: the caller decides whose fault that is (a URL
/// to fix, exit 2, or a throwaway server that failed, exit 1).
#[derive(Debug)]
pub enum ConnectError {
    /// Nothing answered (refused, no socket file, unknown host, timeout).
    Unreachable(String),
    /// The server answered but said no (credentials, unknown database or role).
    Refused(String),
    /// TLS failed or is missing where the URL insists on it: the message names the fix.
    Tls(String),
    /// The server takes no more connections (PostgreSQL's max_connections, MySQL's,
    /// Redis's maxclients).
    Full(String),
}

/// What a server that takes no more connections tells the user to do.
const FULL: &str = ": the server takes no more connections; raise its connection limit (max_connections, maxclients) or run fewer --clients";

impl ConnectError {
    /// A server given by `--url` that is not there or says no: the user's URL to fix;
    /// a connection a signal cut short is the signal's.
    pub fn url_mistake(self) -> crate::error::Error {
        if let Some(sig) = crate::signals::pending() {
            return crate::error::Error::Interrupted(sig);
        }
        match self {
            ConnectError::Unreachable(m) => {
                bad_input!("{m}; check the host and port in --url and that the server runs")
            }
            ConnectError::Refused(m) => bad_input!("{m}; check the user, password and database in --url"),
            ConnectError::Tls(m) => bad_input!("{m}"),
            ConnectError::Full(m) => bad_input!("{m}{FULL}"),
        }
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Unreachable(m) | ConnectError::Refused(m) | ConnectError::Tls(m) => f.write_str(m),
            ConnectError::Full(m) => write!(f, "{m}{FULL}"),
        }
    }
}

/// Result of one client operation.
pub type TxResult<T> = std::result::Result<T, TxError>;

/// Which SQL an engine speaks where dialects differ (upserts, JSON functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// PostgreSQL: `ON CONFLICT … DO UPDATE`, jsonb.
    Postgres,
    /// MariaDB/MySQL: `ON DUPLICATE KEY UPDATE`, JSON functions.
    Mysql,
    /// SQLite: `ON CONFLICT … DO UPDATE`, json1.
    Sqlite,
}

/// A SQL connection: what SQL workloads drive. Statements use `?` placeholders.
pub trait SqlClient: Send {
    /// The SQL dialect, for the few statements that cannot be written portably.
    fn dialect(&self) -> Dialect;
    /// Whether every wait of this connection is on a socket a fiber can park on, so
    /// that many clients may share a thread (`--threads`).
    fn evented(&self) -> bool {
        false
    }
    /// Create a table, volatile (UNLOGGED, MEMORY, …) when the profile says so, with a
    /// primary key on `key`: declared at once, or after the load where that is faster.
    fn create_table(&mut self, name: &str, columns: &str, key: Option<&str>) -> TxResult<()>;
    /// Whether one table loads faster over several connections at once than over one.
    fn splits_loads(&self) -> bool {
        false
    }
    /// Finish a bulk load: deferred primary keys, statistics (pgbench's vacuum step).
    fn finish_load(&mut self) -> TxResult<()> {
        Ok(())
    }
    /// Run one or more statements without parameters or results.
    fn batch(&mut self, sql: &str) -> TxResult<()>;
    /// Prepare a statement once; use its handle in the hot path.
    fn prepare(&mut self, sql: &str) -> TxResult<Stmt>;
    /// Execute a prepared statement; the number of rows changed.
    fn execute(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64>;
    /// Run a prepared query; the first column of its first row.
    fn query_i64(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<Option<i64>>;
    /// Run a prepared query and read every row it returns, to the end, without keeping
    /// or converting the values (as sysbench does with a range); the number of rows.
    fn query_rows(&mut self, stmt: Stmt, params: &[Param]) -> TxResult<u64>;
    /// Run a prepared query, read every row, and hand each row's columns to `row` as
    /// (index, name, text; `None` for NULL); the number of rows. For scripts that keep a
    /// query's results (`\gset`, `\aset`).
    fn query_each(
        &mut self,
        stmt: Stmt,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> TxResult<u64> {
        let _ = (stmt, params, row);
        Err(TxError::Fail("this engine cannot keep a query's results yet (\\gset, \\aset)".into()))
    }
    /// Start a transaction; `write` says it will write (SQLite takes the lock up front).
    fn begin(&mut self, write: bool) -> TxResult<()>;
    /// Commit the open transaction.
    fn commit(&mut self) -> TxResult<()>;
    /// Roll back the open transaction, if any.
    fn rollback(&mut self);
    /// Bulk-load rows by the engine's fastest path; the number of rows loaded.
    fn load(&mut self, table: &str, columns: &[&str], rows: &mut dyn Iterator<Item = Vec<Datum>>) -> TxResult<u64>;
    /// As `load`, adding to rows other connections load into the same table at the same
    /// time (its parts loaded side by side): nothing of the table is emptied first.
    fn load_more(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &mut dyn Iterator<Item = Vec<Datum>>,
    ) -> TxResult<u64> {
        self.load(table, columns, rows)
    }

    /// One integer from a one-off query (setup and verify, not the hot path).
    fn scalar(&mut self, sql: &str) -> TxResult<i64> {
        let s = self.prepare(sql)?;
        Ok(self.query_i64(s, &[])?.unwrap_or(0))
    }
}

/// A key-value connection: what key-value workloads drive; hashes and sorted sets are
/// capabilities (`Capable`).
pub trait KvClient: Capable + Send {
    /// Whether every wait of this connection is on a socket a fiber can park on, so
    /// that many clients may share a thread (`--threads`).
    fn evented(&self) -> bool {
        false
    }
    /// Store `value` under `key`.
    fn set(&mut self, key: &[u8], value: &[u8]) -> TxResult<()>;
    /// Store `value` under each of `keys` as one transaction, in one round trip (Redis:
    /// MULTI, the SETs, EXEC): all of them or, when it fails, none.
    fn set_all(&mut self, keys: &mut dyn Iterator<Item = &[u8]>, value: &[u8]) -> TxResult<()>;
    /// Read `key` into `out`; whether it existed.
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> TxResult<bool>;
    /// Number of keys stored (verify, not the hot path).
    fn count(&mut self) -> TxResult<u64>;
}

/// A value in a document, borrowed so the hot path never allocates.
#[derive(Clone, Copy, Debug)]
pub enum DocValue<'a> {
    /// A 64-bit integer.
    Int(i64),
    /// A string.
    Text(&'a str),
}

/// A document to insert: its `_id` and its fields.
#[derive(Clone, Copy, Debug)]
pub struct NewDoc<'a> {
    /// The document's `_id`.
    pub id: DocValue<'a>,
    /// Its other fields, in order.
    pub fields: &'a [(&'a str, DocValue<'a>)],
}

/// A document connection: what document workloads drive, in collections of one database;
/// increments and ranges are capabilities (`Capable`).
pub trait DocClient: Capable + Send {
    /// Whether every wait of this connection is on a socket a fiber can park on, so
    /// that many clients may share a thread (`--threads`).
    fn evented(&self) -> bool {
        false
    }
    /// Drop collection `coll` if it exists (a fresh data set).
    fn drop_collection(&mut self, coll: &str) -> TxResult<()>;
    /// Insert `docs` in one round trip (a duplicate `_id` is `TxError::Duplicate`).
    fn insert(&mut self, coll: &str, docs: &[NewDoc]) -> TxResult<()> {
        self.insert_each(coll, &mut docs.iter().copied())
    }
    /// As `insert`, the documents written as `docs` yields them: a batch made in place,
    /// with no list of them to allocate.
    fn insert_each(&mut self, coll: &str, docs: &mut dyn Iterator<Item = NewDoc<'_>>) -> TxResult<()>;
    /// Read the document whose `_id` is `id`, every field; whether it exists.
    fn find_id(&mut self, coll: &str, id: &str) -> TxResult<bool>;
    /// `$set` one field of the document whose `_id` is `id`; whether it exists.
    fn set(&mut self, coll: &str, id: &str, field: &str, value: DocValue) -> TxResult<bool>;
    /// Up to `limit` documents from `_id` = `from` on, in `_id` order, every field read;
    /// the number read.
    fn scan(&mut self, coll: &str, from: &str, limit: usize) -> TxResult<u64>;
    /// Documents in `coll` (verify, not the hot path).
    fn count(&mut self, coll: &str) -> TxResult<u64>;
    /// Run a `--setup` file's commands (exec, serve; the engine's `check_setup` took it).
    fn setup(&mut self, text: &str) -> TxResult<()> {
        let _ = text;
        Err(TxError::Fail("this document engine takes no --setup".into()))
    }
}

/// Every engine dbrace knows, in the order `dbrace engines` lists them.
pub fn all() -> &'static [&'static dyn Engine] {
    &[&sqlite::Sqlite, &memory::Memory, &postgres::Postgres, &mysql::Mysql, &redis::Redis, &mongo::Mongo]
}

/// The names of the engines `which` keeps, in `all()`'s order, for help texts: "a, b, c".
pub fn names(which: impl Fn(&dyn Engine) -> bool) -> String {
    all().iter().filter(|e| which(**e)).map(|e| e.name()).collect::<Vec<_>>().join(", ")
}

/// The engine whose scheme a `--url` has; refused, naming the schemes, when none has it.
pub fn by_url(url: &str) -> Result<&'static dyn Engine> {
    let scheme = url.split("://").next().unwrap_or_default();
    all().iter().copied().find(|e| e.facts().url_schemes.contains(&scheme)).ok_or_else(|| {
        let known: Vec<String> = all().iter().flat_map(|e| e.facts().url_schemes).map(|s| format!("{s}://…")).collect();
        bad_input!("--url {}: no engine speaks '{scheme}://'; use {}", crate::redact::redact(url), known.join(", "))
    })
}

/// Look an engine up by name.
pub fn by_name(name: &str) -> Result<&'static dyn Engine> {
    all().iter().copied().find(|e| e.name() == name).ok_or_else(|| {
        let names: Vec<_> = all().iter().map(|e| e.name()).collect();
        bad_input!("unknown engine '{name}'; valid engines: {}", names.join(", "))
    })
}
