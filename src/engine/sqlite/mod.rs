//! SQLite, embedded (bundled): a database file in the profile's location, WAL, and
//! durability mapped to `synchronous`; `unlogged` is a shared in-memory database.

mod client;
mod durability;
mod pragmas;

use super::access::Exposed;
use super::{Connection, Engine, Facts, Instance, Interface, Launch, Machine, Target};
use crate::error::Result;
use crate::profile::{Durability, Profile};
use crate::results::Survives;
use client::SqliteClient;
use pragmas::{pragmas, read_back};
use rusqlite::OpenFlags;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The SQLite engine.
pub struct Sqlite;

/// PRAGMAs `--set` may change; they are applied on every connection and read back.
const SETTINGS: &[&str] = &[
    "synchronous",
    "journal_mode",
    "fullfsync",
    "checkpoint_fullfsync",
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

/// SQL on a file, its PRAGMAs the settings, handed to a command as the file's path.
static FACTS: Facts =
    Facts { setting_keys: SETTINGS, exposes: true, embedded: true, ..Facts::new("sqlite", Interface::Sql) };

impl Engine for Sqlite {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }
    fn version(&self, _machine: &Machine) -> Result<String> {
        Ok(rusqlite::version().to_string())
    }
    fn needs_data_dir(&self, profile: &Profile, _target: &Target) -> bool {
        !profile.unlogged
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        durability::survives(profile, settings)
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
    fn check(&self, profile: &Profile, _target: &Target, _machine: &Machine) -> Result<()> {
        super::kit::target::log_beside_data(profile, "SQLite keeps its WAL beside the database")
    }
    fn launch(&self, launch: &Launch) -> Result<Box<dyn Instance>> {
        let (profile, storage) = (launch.profile, launch.storage);
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
    fn check_exposed(&self, profile: &Profile, machine: &Machine) -> Result<()> {
        if profile.unlogged || profile.durability != Durability::Durable {
            return Err(bad_input!(
                "profile '{}' is set on dbrace's own SQLite connections ({}), and a command opens its own: for sqlite, exec and serve take disk and ram",
                profile.name,
                if profile.unlogged { "an in-memory database" } else { "PRAGMA synchronous" }
            ));
        }
        self.check(profile, &Target::Managed, machine)
    }
    fn expose(&self, launch: &Launch) -> Result<Exposed> {
        let (storage, access) = (launch.storage, launch.access);
        if access.port.is_some() || access.given() {
            return Err(bad_input!(
                "sqlite is a file, with no port, account or database name; drop --port, --user, --password and --database"
            ));
        }
        let instance = self.launch(launch)?;
        let path = storage.data.as_ref().map(|d| d.path().join("dbrace.db")).unwrap_or_default();
        // SQLAlchemy's form: three slashes, then the absolute path's own.
        let url = format!("sqlite:///{}", path.display());
        let env = vec![("DATABASE_URL".to_string(), url.clone())];
        Ok(Exposed { instance, redacted: url.clone(), url, env, unset: &[], password: String::new() })
    }
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
    fn embedded(&self) -> bool {
        FACTS.embedded
    }
    fn settings(&self) -> BTreeMap<String, String> {
        self.settings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::pragmas::normalize;
    use super::*;
    use crate::instance::DataDir;
    use crate::instance::Storage;
    use crate::profile::Profile;

    fn settings_for(profile: &str) -> BTreeMap<String, String> {
        let p = Profile::builtin(profile).unwrap();
        let base = tempfile::tempdir().unwrap();
        let data = if p.unlogged { None } else { Some(DataDir::create(base.path()).unwrap()) };
        Sqlite
            .launch(&Launch::run(&p, &Target::Managed, &Storage { data, wal: None }, &Machine::default()))
            .unwrap()
            .settings()
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
        let s = Sqlite
            .launch(&Launch::run(&p, &Target::Managed, &Storage { data, wal: None }, &Machine::default()))
            .unwrap()
            .settings();
        assert_eq!((s["page_size"].as_str(), s["synchronous"].as_str()), ("8192", "0"));
    }

    #[test]
    fn normalize_names_and_numbers() {
        assert_eq!(normalize("synchronous", "FULL"), normalize("synchronous", "2"));
        assert_eq!(normalize("temp_store", "memory"), "2");
        assert_eq!(normalize("journal_mode", "WAL"), "wal");
    }
}
