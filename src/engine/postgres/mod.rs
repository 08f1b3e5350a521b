//! PostgreSQL: throwaway servers dbrace starts from the machine's binaries (managed), or
//! an existing server (`--url`), where each cell and repeat gets a fresh database and
//! profiles that need a restart or another data directory are refused.

mod account;
pub mod binaries;
pub mod client;
mod conn;
pub mod conninfo;
mod copy;
mod counters;
mod durability;
mod extended;
#[cfg(test)]
mod fuzz;
mod image;
mod login;
mod messages;
mod named;
mod placeholders;
pub mod server;
mod setting;
mod tls;
mod waits;

use super::ConnectError;
use super::access::{self, Exposed, Listen};
use super::kit::tls::{Mode as TlsMode, Tls};
use super::kit::{self, Owned, ReadBack, ServerUser, UrlDatabase};
use super::{BinFlag, Connection, Facts, Instance, Interface, Launch, Machine, ServerEngine, SqlClient, Target};
use crate::error::Result;
use crate::launcher::Dirs;
use crate::profile::{Durability, LocationKind, Profile};
use crate::results::Survives;
use client::{PgClient, Protocol};
use conninfo::ConnInfo;
use named::Named;
use server::PgServer;
use setting::Catalogued;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The PostgreSQL engine.
pub struct Postgres;

/// Settings always read back and recorded.
const RECORDED: &[&str] = &[
    "server_version",
    "synchronous_commit",
    "fsync",
    "full_page_writes",
    "wal_sync_method",
    "shared_buffers",
    "wal_level",
    "data_directory",
];

/// Server settings for a profile's durability.
fn durability_settings(d: Durability) -> Vec<(String, String)> {
    let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
    match d {
        Durability::Durable => vec![kv("fsync", "on"), kv("synchronous_commit", "on"), kv("full_page_writes", "on")],
        Durability::Async => vec![kv("fsync", "on"), kv("synchronous_commit", "off"), kv("full_page_writes", "on")],
        Durability::Off => vec![kv("fsync", "off"), kv("synchronous_commit", "off"), kv("full_page_writes", "off")],
    }
}

/// The engine's name.
const NAME: &str = "postgres";

/// Who PostgreSQL's servers run as when dbrace is root: it refuses root.
pub const USER: ServerUser = ServerUser { server: "PostgreSQL", default: "postgres", refuses_root: true };

/// `--set` values replace the profile's own.
fn merged(base: Vec<(String, String)>, over: &[(String, String)]) -> Vec<(String, String)> {
    kit::merged(base, over, kit::merge::as_written)
}

impl ServerEngine for Postgres {
    const FACTS: &'static Facts = &Facts {
        url_schemes: &["postgres", "postgresql"],
        setting_keys: &["any server setting (postgres --describe-config lists them; SET per session against --url)"],
        bin_flag: Some(BinFlag {
            long: "pg-bin",
            help: "Directory of the PostgreSQL server binaries (postgres, initdb) [default: found]",
        }),
        image: Some(&image::IMAGE),
        connection_limit: Some(("max_connections", 100)),
        serves_tls: true,
        server_user: Some(&USER),
        exposes: true,
        ..Facts::new(NAME, Interface::Sql)
    };
    type Managed = PgInstance;
    fn version(&self, machine: &Machine) -> Result<String> {
        machine.launcher.version(&PgServer::any(machine))
    }
    fn knows_setting(&self, key: &str, machine: &Machine) -> bool {
        let shaped = !key.is_empty()
            && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.');
        // An extension's own settings (dotted) are the server's to judge.
        match binaries::setting_names(machine.bin_dir(NAME)) {
            Some(names) if !key.contains('.') => names.iter().any(|n| n == key),
            _ => shaped,
        }
    }
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()> {
        kit::target::check(
            profile,
            target,
            || machine.launcher.launchable(&PgServer::new(profile, machine, Vec::new())),
            |url| ConnInfo::parse(url).map(drop),
            |p| p.location == LocationKind::Disk && p.durability != Durability::Off && p.wal.is_none(),
            " (data or WAL on tmpfs, or fsync off, need a restart); against --url only disk, async and unlogged apply",
        )
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        durability::survives(profile, settings)
    }
    fn managed(&self, launch: &Launch) -> Result<PgInstance> {
        managed_instance(launch)
    }
    fn on_url(&self, launch: &Launch, url: &str) -> Result<PgInstance> {
        on_url(launch.profile, url, launch.machine.protocol)
    }
    fn check_exposed(&self, profile: &Profile, machine: &Machine) -> Result<()> {
        if profile.unlogged {
            return Err(bad_input!(
                "profile '{}' makes the tables dbrace creates UNLOGGED, and a command creates its own; for postgres use ram-nosync (data on tmpfs, nothing synced)",
                profile.name
            ));
        }
        ServerEngine::check(self, profile, &Target::Managed, machine)
    }
    fn exposed(&self, inst: PgInstance) -> Result<Exposed> {
        Ok(exposed(inst))
    }
}

/// A throwaway server for the launch's profile, listening as it says; TCP clients connect
/// as its access says.
fn managed_instance(launch: &Launch) -> Result<PgInstance> {
    let (profile, machine) = (launch.profile, launch.machine);
    let dir = launch.data_dir(NAME)?;
    let mut base = durability_settings(profile.durability);
    let mut listen = launch.listen;
    let mut root_cert = None;
    if profile.tls {
        let (settings, ca) = server::with_tls(dir.path(), USER.resolve(machine.run_as())?.as_ref())?;
        base.extend(settings);
        root_cert = Some(ca);
        // TLS runs over TCP: the socket stays for dbrace's own setup, trusted and plain.
        if listen == Listen::Socket {
            listen = Listen::Tcp(None);
        }
    }
    let expected = merged(base, &profile.settings);
    let server = PgServer::new(profile, machine, expected.clone());
    let dirs = Dirs { data: dir, apart: launch.storage.wal.as_ref() };
    let started = machine.launcher.launch(&server, dirs, listen)?;
    let mut info = match started.port {
        Some(port) => account::account(&started.login, port, launch.access)?,
        None => started.login,
    };
    if root_cert.is_some() {
        // Checked as a careful client checks a server: the CA's chain and the host name.
        info.tls = Tls::new(TlsMode::VerifyFull, root_cert, None);
    }
    let mut inst = PgInstance {
        info,
        session: Vec::new(),
        expected,
        unlogged: profile.unlogged,
        protocol: machine.protocol,
        named: Arc::default(),
        version: started.version.clone().unwrap_or_default(),
        settings: BTreeMap::new(),
        owned: Owned::Server(started.server),
    };
    inst.settings = inst.read_back(&profile.name)?;
    if started.version.is_none() {
        // "15.20 (Debian 15.20-0+deb12u1)": the number, as the binaries' version reads.
        let read = inst.settings.get("server_version").cloned().unwrap_or_default();
        inst.version = read.split_whitespace().next().unwrap_or("unknown").to_string();
    }
    inst.settings.extend(started.noted);
    inst.time_wal_io()?;
    Ok(inst)
}

/// The connection handed to a user's tools: DATABASE_URL and libpq's variables.
fn exposed(inst: PgInstance) -> Exposed {
    let i = &inst.info;
    let password = i.password.clone().unwrap_or_default();
    let (mut url, mut redacted) = access::urls("postgresql", &i.user, &password, &i.host, i.port, &i.database);
    let mut tls_env = Vec::new();
    if let Some(ca) = &i.tls.root_cert {
        // libpq's own words, so psql and every libpq or JDBC-style client check the server.
        let ca = ca.to_string_lossy().into_owned();
        let query = format!("?sslmode={}&sslrootcert={}", i.tls.mode.name(), access::encode(&ca).replace("%2F", "/"));
        url.push_str(&query);
        redacted.push_str(&query);
        tls_env.push(("PGSSLMODE".to_string(), i.tls.mode.name().to_string()));
        tls_env.push(("PGSSLROOTCERT".to_string(), ca));
    }
    let mut env = vec![
        ("DATABASE_URL".to_string(), url.clone()),
        ("PGHOST".to_string(), i.host.clone()),
        ("PGPORT".to_string(), i.port.to_string()),
        ("PGUSER".to_string(), i.user.clone()),
        ("PGPASSWORD".to_string(), password.clone()),
        ("PGDATABASE".to_string(), i.database.clone()),
    ];
    env.extend(tls_env);
    // PGHOSTADDR wins over PGHOST, and a service file can name another server.
    Exposed { instance: Box::new(inst), url, redacted, env, unset: &["PGHOSTADDR", "PGSERVICE"], password }
}

fn on_url(profile: &Profile, url: &str, protocol: Protocol) -> Result<PgInstance> {
    let admin = ConnInfo::parse(url)?;
    let mut c = PgClient::connect(&admin, false).map_err(ConnectError::url_mistake)?;
    let db = kit::url_database::create(&mut c, &admin.redacted(), "the role needs CREATEDB")?;
    let mut session: Vec<(String, String)> = Vec::new();
    if profile.durability == Durability::Async {
        session.push(("synchronous_commit".into(), "off".into()));
    }
    session = merged(session, &profile.settings);
    let mut inst = PgInstance {
        info: admin.with_database(&db),
        expected: session.clone(),
        session,
        unlogged: profile.unlogged,
        protocol,
        named: Arc::default(),
        version: c.server_version.clone(),
        settings: BTreeMap::new(),
        owned: Owned::Url(url_database(admin, db)),
    };
    // From here the database is dropped with `inst`, whatever fails next.
    inst.settings = inst.read_back(&profile.name)?;
    Ok(inst)
}

/// The run's database `name` on the `--url` server, dropped as `admin` when it goes.
fn url_database(admin: ConnInfo, name: String) -> UrlDatabase {
    let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
    let run = move |sql: &str| -> std::result::Result<(), String> {
        let mut c = PgClient::connect(&admin, false).map_err(|e| e.to_string())?;
        c.batch(sql).map_err(|e| e.to_string())
    };
    UrlDatabase::new(name, sql, Box::new(run))
}

/// The protocol recorded when named statements were lost and the connections fell back.
const FELL_BACK: &str = "extended (prepared statements did not survive the pooler)";

/// A fresh PostgreSQL database to measure.
pub struct PgInstance {
    info: ConnInfo,
    /// SET on every connection (url targets).
    session: Vec<(String, String)>,
    /// What SHOW must say.
    expected: Vec<(String, String)>,
    unlogged: bool,
    /// How statements travel (`--protocol`).
    protocol: Protocol,
    /// What its connections learn together about named statements.
    named: Arc<Named>,
    version: String,
    settings: BTreeMap<String, String>,
    owned: Owned<UrlDatabase>,
}

impl PgInstance {
    fn client(&self) -> Result<PgClient> {
        let mut c = PgClient::connect(&self.info, self.unlogged).map_err(|e| self.unreachable(e))?;
        c.set_protocol(self.protocol);
        c.share_names(&self.named);
        kit::session::apply(
            &mut c,
            &self.session,
            |k, v| format!("SET {k} = '{}'", v.replace('\'', "''")),
            |k, v, e| bad_input!("postgres refused SET {k} = {v}: {e}; check the value given with --set"),
        )?;
        Ok(c)
    }

    /// A connection that failed. PgBouncer's "no such database" for the database the run
    /// just made is a pooler with no route to it: the fix is in its configuration.
    fn unreachable(&self, e: ConnectError) -> crate::error::Error {
        match (&self.owned, &e) {
            (Owned::Url(db), ConnectError::Refused(said)) if said.contains("no such database") => bad_input!(
                "{}:{} has no route to the database {} the run made behind it (\"no such database\" is PgBouncer's answer for one its [databases] section does not list); dbrace makes a database per repeat, so give pgbouncer.ini a fallback line `* = host=SERVER port=PORT` (docs/engines.md), or point --url at the server itself",
                self.info.host,
                self.info.port,
                db.name,
            ),
            _ => self.owned.unreachable(e),
        }
    }

    /// Have the throwaway server time its WAL writes and syncs (PostgreSQL 14 on), so its
    /// counters say how long commits waited for fsync: two clock reads per WAL write.
    fn time_wal_io(&self) -> Result<()> {
        let major = self.version.split('.').next().and_then(|m| m.parse::<u32>().ok()).unwrap_or(0);
        if major < 14 {
            return Ok(());
        }
        let mut c = self.client()?;
        // Two statements: ALTER SYSTEM refuses to run in a batch's implicit transaction.
        c.batch("ALTER SYSTEM SET track_wal_io_timing = on")
            .and_then(|_| c.batch("SELECT pg_reload_conf()"))
            .map_err(|e| failed!("postgres: cannot turn on track_wal_io_timing: {e}"))
    }

    /// SHOW the recorded settings and those we set; fail when one did not take.
    fn read_back(&self, profile: &str) -> Result<BTreeMap<String, String>> {
        let mut c = self.client()?;
        let mut out = BTreeMap::new();
        out.insert("protocol".to_string(), format!("{:?}", self.protocol).to_lowercase());
        let via = if self.info.host.starts_with('/') {
            "socket".to_string()
        } else {
            format!("tcp {}:{}", self.info.host, self.info.port)
        };
        out.insert("transport".to_string(), via);
        out.insert("tls".to_string(), c.tls().unwrap_or_else(|| "off".to_string()));
        let rb = ReadBack { engine: "postgres", profile, recorded: RECORDED, expected: &self.expected };
        rb.read(&mut out, |key| match c.show(key) {
            Ok(v) => Ok(Some(v)),
            // data_directory is for superusers and the like: not having it is no failure.
            Err(_) if !rb.is_expected(key) => Ok(None),
            Err(e) => Err(failed!("postgres: SHOW {key}: {e}")),
        })?;
        let catalogue = catalogued(&mut c, &self.expected);
        rb.verify(&out, |key, want, have| {
            let took = match catalogue.get(key) {
                Some(setting) => setting.holds(want),
                None => same_setting(&have.unwrap_or_default().to_ascii_lowercase(), &want.to_ascii_lowercase()),
            };
            (!took).then(|| (have.unwrap_or_default().to_string(), want.to_string()))
        })?;
        Ok(out)
    }
}

/// The catalogue's type, unit and value of each setting asked for that it has, so that
/// a value is compared as the server reads it (`1.0` is `1`, `128MB` is 16384 pages).
fn catalogued(c: &mut PgClient, expected: &[(String, String)]) -> BTreeMap<String, Catalogued> {
    let row = |c: &mut PgClient, key: &str| c.text(&setting::query(key)).ok().and_then(|r| Catalogued::parse(&r));
    expected.iter().filter_map(|(k, _)| row(c, k).map(|s| (k.clone(), s))).collect()
}

/// A setting pg_settings does not list (an extension's placeholder): on/true/1 and
/// off/false/0 are the same, the rest compared as written without spaces (both lowercased).
fn same_setting(have: &str, want: &str) -> bool {
    let norm = |s: &str| match s {
        "on" | "true" | "yes" | "1" => "on".to_string(),
        "off" | "false" | "no" | "0" => "off".to_string(),
        s => s.replace(' ', ""),
    };
    norm(have) == norm(want)
}

impl Instance for PgInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Sql(Box::new(self.client()?)))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn settings(&self) -> BTreeMap<String, String> {
        let mut settings = self.settings.clone();
        if self.named.lost().is_some() {
            settings.insert("protocol".into(), FELL_BACK.into());
        }
        settings
    }
    fn alive(&self) -> Result<()> {
        self.owned.alive()
    }
    fn counters(&self) -> Result<Option<Box<dyn crate::engine::counters::CounterReader>>> {
        let reader = counters::PgCounters::open(&self.info).map_err(|e| failed!("{e}"))?;
        Ok(Some(Box::new(reader)))
    }
    fn waits(&self) -> Result<Option<Box<dyn crate::engine::waits::WaitReader>>> {
        let reader = waits::PgWaits::open(&self.info).map_err(|e| failed!("{e}"))?;
        Ok(Some(Box::new(reader)))
    }
    fn usage(&self) -> Option<crate::counters::Usage> {
        self.owned.usage()
    }
    fn processes(&self) -> Option<crate::launcher::usage::Processes> {
        self.owned.processes()
    }
}

impl Drop for PgInstance {
    /// The fallback is said once per process (again only to add that SET values do not
    /// hold), once the instance's clients are done (not under a progress bar); each cell
    /// records it as its protocol.
    fn drop(&mut self) {
        use std::sync::atomic::{AtomicU8, Ordering};
        const NOTED: u8 = 1;
        const SET_NOTED: u8 = 2;
        static SAID: AtomicU8 = AtomicU8::new(0);
        let Some(why) = self.named.lost() else { return };
        let says = if self.session.is_empty() { NOTED } else { NOTED | SET_NOTED };
        if SAID.fetch_or(says, Ordering::Relaxed) & says == says {
            return;
        }
        let set = if self.session.is_empty() {
            ""
        } else {
            "; its SET values (async, --set) hold only on the server connection that ran them, so they may not be in effect"
        };
        eprintln!(
            "dbrace: note: named prepared statements did not survive between transactions at {}:{} ({why}), as behind a transaction pooler such as PgBouncer; its connections fell back to --protocol extended (Parse, Bind, Execute every time), recorded as the protocol in the results{set}",
            self.info.host, self.info.port
        );
    }
}
