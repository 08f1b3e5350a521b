//! PostgreSQL. For now against an existing server (`--url postgres://…`): each cell and
//! repeat gets a fresh database there, dropped afterwards; profiles that need a restart
//! or another data directory are refused. Throwaway managed servers come next.

pub mod client;
pub mod conninfo;

use super::{Connection, Engine, Instance, Interface, SqlClient, Target};
use crate::error::{Error, Result};
use crate::instance::DataDir;
use crate::profile::{Durability, LocationKind, Profile};
use client::{ConnectError, PgClient};
use conninfo::ConnInfo;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The PostgreSQL engine.
pub struct Postgres;

/// Settings always read back and recorded.
const RECORDED: &[&str] =
    &["server_version", "synchronous_commit", "fsync", "full_page_writes", "shared_buffers", "wal_level"];

impl Engine for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }
    fn interface(&self) -> Interface {
        Interface::Sql
    }
    fn version(&self) -> Result<String> {
        Err(bad_input!("throwaway PostgreSQL servers are not built yet; run against a server with --url postgres://…"))
    }
    fn setting_keys(&self) -> &'static [&'static str] {
        &["any setting SET accepts (per session against --url)"]
    }
    fn knows_setting(&self, key: &str) -> bool {
        !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
    }
    fn url_schemes(&self) -> &'static [&'static str] {
        &["postgres", "postgresql"]
    }
    fn check(&self, profile: &Profile, target: &Target) -> Result<()> {
        let Target::Url(url) = target else {
            return Err(bad_input!(
                "throwaway PostgreSQL servers are not built yet; run against an existing server with --url postgres://USER@HOST/DB"
            ));
        };
        ConnInfo::parse(url)?;
        if profile.location != LocationKind::Disk || profile.durability == Durability::Off {
            return Err(bad_input!(
                "profile '{}' needs a server dbrace starts itself (data on tmpfs or fsync off need a restart); against --url only disk, async and unlogged apply",
                profile.name
            ));
        }
        Ok(())
    }
    fn needs_data_dir(&self, _profile: &Profile, _target: &Target) -> bool {
        false
    }
    fn launch(&self, profile: &Profile, target: &Target, _dir: Option<&DataDir>) -> Result<Box<dyn Instance>> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let Target::Url(url) = target else { return Err(failed!("postgres needs --url for now")) };
        let admin = ConnInfo::parse(url)?;
        let mut c = connect(&admin, false)?;
        let db = format!("dbrace_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        c.batch(&format!("CREATE DATABASE {db}")).map_err(|e| {
            bad_input!("cannot create a database on {}: {e}; the role needs CREATEDB", admin.redacted())
        })?;
        let mut session: Vec<(String, String)> = Vec::new();
        if profile.durability == Durability::Async {
            session.push(("synchronous_commit".into(), "off".into()));
        }
        session.extend(profile.settings.iter().cloned());
        let mut inst = PgInstance {
            admin,
            db,
            session,
            unlogged: profile.unlogged,
            version: c.server_version.clone(),
            settings: BTreeMap::new(),
        };
        // From here the database is dropped with `inst`, whatever fails next.
        inst.settings = inst.read_back(&profile.name)?;
        Ok(Box::new(inst))
    }
}

/// Connect; a server that is not there or says no is the user's URL to fix (exit 2).
fn connect(info: &ConnInfo, unlogged: bool) -> Result<PgClient> {
    PgClient::connect(info, unlogged).map_err(|e| match e {
        ConnectError::Unreachable(m) => bad_input!("{m}; check the host and port in --url and that the server runs"),
        ConnectError::Refused(m) => bad_input!("{m}; check the user, password and database in --url"),
    })
}

/// A fresh database on an existing server, dropped when the instance goes.
struct PgInstance {
    admin: ConnInfo,
    db: String,
    session: Vec<(String, String)>,
    unlogged: bool,
    version: String,
    settings: BTreeMap<String, String>,
}

impl PgInstance {
    fn client(&self) -> Result<PgClient> {
        let mut c = connect(&self.admin.with_database(&self.db), self.unlogged)?;
        for (k, v) in &self.session {
            c.batch(&format!("SET {k} = '{}'", v.replace('\'', "''")))
                .map_err(|e| bad_input!("postgres refused SET {k} = {v}: {e}; check the value given with --set"))?;
        }
        Ok(c)
    }

    /// SHOW the recorded settings and those we set; fail when one did not take.
    fn read_back(&self, profile: &str) -> Result<BTreeMap<String, String>> {
        let mut c = self.client()?;
        let mut out = BTreeMap::new();
        for key in RECORDED.iter().copied().chain(self.session.iter().map(|(k, _)| k.as_str())) {
            let v = c.show(key).map_err(|e| failed!("postgres: SHOW {key}: {e}"))?;
            out.insert(key.to_string(), v);
        }
        for (k, v) in &self.session {
            let have = out[k].to_ascii_lowercase();
            if have != v.to_ascii_lowercase() && !(k == "synchronous_commit" && have == "off" && v == "off") {
                return Err(Error::Run(format!(
                    "profile '{profile}' did not take effect on postgres: {k} is {have}, expected {v}"
                )));
            }
        }
        Ok(out)
    }
}

impl Instance for PgInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Sql(Box::new(self.client()?)))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn settings(&self) -> BTreeMap<String, String> {
        self.settings.clone()
    }
}

impl Drop for PgInstance {
    fn drop(&mut self) {
        if let Ok(mut c) = PgClient::connect(&self.admin, false) {
            let _ = c.batch(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.db));
        }
    }
}
