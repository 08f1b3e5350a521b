//! SQLite, embedded (bundled): a database file in the profile's location, WAL, and
//! durability mapped to `synchronous`; `unlogged` is a shared in-memory database.

use super::access::{Access, Exposed};
use super::{
    Connection, Datum, Dialect, Engine, Instance, Interface, Param, SqlClient, Stmt, Target, TxError, TxResult,
};
use crate::error::Result;
use crate::instance::Storage;
use crate::profile::{Durability, Profile};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{ErrorCode, OpenFlags, OptionalExtension, Statement, ToSql};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Blanks for char(n) fillers, borrowed rather than allocated per row.
const BLANKS: &str = "                                                                                                                                ";

/// The SQLite engine.
pub struct Sqlite;

/// PRAGMAs `--set` may change; they are applied on every connection and read back.
const SETTINGS: &[&str] = &[
    "synchronous",
    "journal_mode",
    "cache_size",
    "page_size",
    "mmap_size",
    "temp_store",
    "locking_mode",
    "wal_autocheckpoint",
    "journal_size_limit",
    "cache_spill",
    "automatic_index",
    "foreign_keys",
    "secure_delete",
    "auto_vacuum",
];

/// Settings always recorded, besides any the user set.
const RECORDED: &[&str] = &["journal_mode", "synchronous", "page_size", "cache_size", "locking_mode", "mmap_size"];

impl Engine for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }
    fn interface(&self) -> Interface {
        Interface::Sql
    }
    fn version(&self) -> Result<String> {
        Ok(rusqlite::version().to_string())
    }
    fn setting_keys(&self) -> &'static [&'static str] {
        SETTINGS
    }
    fn needs_data_dir(&self, profile: &Profile, _target: &Target) -> bool {
        !profile.unlogged
    }
    /// `unlogged` is an in-memory database: in RAM, nothing to sync.
    fn resolve_profile(&self, requested: &Profile) -> Option<Profile> {
        let mut p = requested.clone();
        if p.unlogged {
            p.location = crate::profile::LocationKind::Ram;
            p.durability = Durability::Off;
        }
        Some(p)
    }
    fn check(&self, profile: &Profile, _target: &Target) -> Result<()> {
        match profile.wal {
            Some(w) if w != profile.location => Err(bad_input!(
                "profile '{}' puts the WAL apart from the data; SQLite keeps its WAL beside the database",
                profile.name
            )),
            _ => Ok(()),
        }
    }
    fn launch(&self, profile: &Profile, _target: &Target, storage: &Storage) -> Result<Box<dyn Instance>> {
        let dir = storage.data.as_ref();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let target = match (profile.unlogged, dir) {
            // memdb is shared by every connection in this process that names it.
            (true, _) => {
                format!("file:/dbrace-{}-{}?vfs=memdb", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
            }
            (false, Some(d)) => d.path().join("dbrace.db").to_string_lossy().into_owned(),
            (false, None) => {
                return Err(failed!("sqlite profile '{}' needs a data directory", profile.name));
            }
        };
        let pragmas = pragmas(profile);
        let anchor = open(&target, &pragmas)?;
        let settings = read_back(&anchor, &pragmas, &profile.name)?;
        // Only an in-memory database needs a connection to stay alive; an idle extra
        // connection on a file costs every commit some lock bookkeeping in the kernel.
        let anchor = profile.unlogged.then(|| Mutex::new(anchor));
        Ok(Box::new(SqliteInstance { target, pragmas, _anchor: anchor, settings }))
    }
    /// A database file in the profile's location, in WAL mode (which stays with the file).
    /// `synchronous` belongs to each connection, the command's own included, so only the
    /// durable profiles mean for the command what their names say.
    fn check_exposed(&self, profile: &Profile) -> Result<()> {
        if profile.unlogged || profile.durability != Durability::Durable {
            return Err(bad_input!(
                "profile '{}' is set on dbrace's own SQLite connections ({}), and a command opens its own: for sqlite, exec and serve take disk and ram",
                profile.name,
                if profile.unlogged { "an in-memory database" } else { "PRAGMA synchronous" }
            ));
        }
        self.check(profile, &Target::Managed)
    }
    fn expose(&self, profile: &Profile, storage: &Storage, access: &Access) -> Result<Exposed> {
        if access.port.is_some() || access.given() {
            return Err(bad_input!(
                "sqlite is a file, with no port, account or database name; drop --port, --user, --password and --database"
            ));
        }
        let instance = self.launch(profile, &Target::Managed, storage)?;
        let path = storage.data.as_ref().map(|d| d.path().join("dbrace.db")).unwrap_or_default();
        // SQLAlchemy's form: three slashes, then the absolute path's own.
        let url = format!("sqlite:///{}", path.display());
        let env = vec![("DATABASE_URL".to_string(), url.clone())];
        Ok(Exposed { instance, redacted: url.clone(), url, env, unset: &[], password: String::new() })
    }
}

/// The PRAGMAs for a profile, in the order they must run: `--set` values replace the
/// profile's own, and page_size / auto_vacuum come before the switch to WAL (after it
/// they no longer apply).
fn pragmas(profile: &Profile) -> Vec<(String, String)> {
    const BEFORE_WAL: [&str; 2] = ["page_size", "auto_vacuum"];
    let user = |key: &str| profile.settings.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: String| {
        out.retain(|(x, _)| x != k);
        out.push((k.to_string(), v));
    };
    for (k, v) in profile.settings.iter().filter(|(k, _)| BEFORE_WAL.contains(&k.as_str())) {
        push(k, v.clone());
    }
    if !profile.unlogged {
        push("journal_mode", user("journal_mode").unwrap_or_else(|| "wal".into()));
    }
    let sync = match profile.durability {
        Durability::Durable => "FULL",
        Durability::Async => "NORMAL",
        Durability::Off => "OFF",
    };
    push("synchronous", user("synchronous").unwrap_or_else(|| sync.into()));
    for (k, v) in &profile.settings {
        if !BEFORE_WAL.contains(&k.as_str()) && k != "journal_mode" && k != "synchronous" {
            push(k, v.clone());
        }
    }
    out
}

/// One SQLite database; the anchor connection keeps an in-memory database alive.
struct SqliteInstance {
    target: String,
    pragmas: Vec<(String, String)>,
    _anchor: Option<Mutex<rusqlite::Connection>>,
    settings: BTreeMap<String, String>,
}

/// Open a connection and apply the pragmas (synchronous and friends are per connection).
fn open(target: &str, pragmas: &[(String, String)]) -> Result<rusqlite::Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = rusqlite::Connection::open_with_flags(target, flags)
        .map_err(|e| failed!("cannot open sqlite database {target}: {e}"))?;
    // Busy waits are retried and counted by the runner, never hidden in a timeout.
    conn.busy_timeout(std::time::Duration::ZERO).map_err(|e| failed!("sqlite: {e}"))?;
    for (k, v) in pragmas {
        conn.pragma_update(None, k, v)
            .map_err(|e| bad_input!("sqlite refused PRAGMA {k} = {v}: {e}; check the value given with --set"))?;
    }
    Ok(conn)
}

impl Instance for SqliteInstance {
    fn connect(&self) -> Result<Connection> {
        let conn = open(&self.target, &self.pragmas)?;
        Ok(Connection::Sql(Box::new(SqliteClient::new(conn))))
    }
    fn version(&self) -> String {
        rusqlite::version().to_string()
    }
    fn settings(&self) -> BTreeMap<String, String> {
        self.settings.clone()
    }
}

/// Read the settings back and fail when one did not take the value we set.
fn read_back(
    conn: &rusqlite::Connection,
    wanted: &[(String, String)],
    profile: &str,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let keys = RECORDED.iter().map(|k| k.to_string()).chain(wanted.iter().map(|(k, _)| k.clone()));
    for key in keys {
        // Some pragmas answer nothing on some VFSes (mmap_size on memdb).
        let v: Option<String> = conn
            .query_row(&format!("PRAGMA {key}"), [], |r| r.get_ref(0).map(value_text))
            .optional()
            .map_err(|e| failed!("sqlite: cannot read PRAGMA {key}: {e}"))?;
        if let Some(v) = v {
            out.insert(key, v);
        }
    }
    for (k, v) in wanted {
        let Some(have) = out.get(k) else {
            out.insert(k.clone(), "(not supported by this database)".into());
            continue;
        };
        if normalize(k, have) != normalize(k, v) {
            return Err(failed!("profile '{profile}' did not take effect on sqlite: {k} is {have}, expected {v}"));
        }
    }
    Ok(out)
}

fn value_text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Null => String::new(),
        ValueRef::Blob(_) => "<blob>".into(),
    }
}

/// Names and numbers SQLite treats as the same value, in one spelling.
fn normalize(key: &str, v: &str) -> String {
    let v = v.trim().to_ascii_lowercase();
    let named: &[&str] = match key {
        "synchronous" => &["off", "normal", "full", "extra"],
        "temp_store" => &["default", "file", "memory"],
        "auto_vacuum" => &["none", "full", "incremental"],
        "secure_delete" | "automatic_index" | "foreign_keys" | "cache_spill" => &["off", "on"],
        _ => &[],
    };
    match named.iter().position(|n| *n == v) {
        Some(i) => i.to_string(),
        None if v == "true" || v == "yes" => "1".into(),
        None if v == "false" || v == "no" => "0".into(),
        None => v,
    }
}

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
struct SqliteClient {
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
    fn new(conn: rusqlite::Connection) -> SqliteClient {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::DataDir;
    use crate::profile::Profile;

    fn settings_for(profile: &str) -> BTreeMap<String, String> {
        let p = Profile::builtin(profile).unwrap();
        let base = tempfile::tempdir().unwrap();
        let data = if p.unlogged { None } else { Some(DataDir::create(base.path()).unwrap()) };
        Sqlite.launch(&p, &Target::Managed, &Storage { data, wal: None }).unwrap().settings()
    }

    #[test]
    fn profiles_map_to_pragmas_read_back() {
        let disk = settings_for("disk");
        assert_eq!((disk["journal_mode"].as_str(), disk["synchronous"].as_str()), ("wal", "2"));
        assert_eq!(settings_for("async")["synchronous"], "1");
        assert_eq!(settings_for("nosync")["synchronous"], "0");
        assert_ne!(settings_for("unlogged")["journal_mode"], "wal");
    }

    #[test]
    fn set_values_replace_the_profile_and_page_size_comes_before_wal() {
        let mut p = Profile::builtin("disk").unwrap();
        p.settings = vec![("synchronous".into(), "OFF".into()), ("page_size".into(), "8192".into())];
        let keys: Vec<_> = pragmas(&p).into_iter().collect();
        assert_eq!(
            keys,
            vec![
                ("page_size".to_string(), "8192".to_string()),
                ("journal_mode".to_string(), "wal".to_string()),
                ("synchronous".to_string(), "OFF".to_string()),
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        let data = Some(DataDir::create(dir.path()).unwrap());
        let s = Sqlite.launch(&p, &Target::Managed, &Storage { data, wal: None }).unwrap().settings();
        assert_eq!((s["page_size"].as_str(), s["synchronous"].as_str()), ("8192", "0"));
    }

    #[test]
    fn normalize_names_and_numbers() {
        assert_eq!(normalize("synchronous", "FULL"), normalize("synchronous", "2"));
        assert_eq!(normalize("temp_store", "memory"), "2");
        assert_eq!(normalize("journal_mode", "WAL"), "wal");
    }
}
