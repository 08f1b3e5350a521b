//! MariaDB / MySQL: throwaway servers dbrace starts from the machine's binaries (managed),
//! or an existing server (`--url`), where each cell and repeat gets a fresh database and
//! only what a session can set applies. Profiles map to InnoDB's durability settings,
//! `unlogged` to MEMORY tables; the settings in effect are read back with `SELECT @@…`.

mod account;
pub mod binaries;
pub mod client;
mod counters;
mod durability;
pub mod endpoint;
mod image;
pub mod server;
pub mod wire;

use super::ConnectError;
use super::access::{self, Exposed};
use super::kit::tls::{Mode, Tls};
use super::kit::{self, Owned, ReadBack, ServerUser, UrlDatabase};
use super::{BinFlag, Connection, Facts, Instance, Interface, Launch, Machine, ServerEngine, SqlClient, Target};
use crate::error::Result;
use crate::instance::certs::{self, Certs};
use crate::launcher::Dirs;
use crate::profile::{Durability, LocationKind, Profile};
use crate::results::Survives;
use client::MyClient;
use endpoint::Endpoint;
use server::{DATABASE, MyServer};
use std::collections::BTreeMap;

/// The MariaDB / MySQL engine.
pub struct Mysql;

/// Settings always read back and recorded.
const RECORDED: &[&str] = &[
    "innodb_flush_log_at_trx_commit",
    "innodb_doublewrite",
    "sync_binlog",
    "log_bin",
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_method",
    "default_storage_engine",
    "datadir",
    "innodb_log_group_home_dir",
];

/// Server settings for a profile's durability: the redo log synced at every commit, once a
/// second, or never; the binlog (off unless `--set log_bin=ON`) likewise; torn-page
/// protection (doublewrite) off only when nothing is synced anyway.
fn durability_settings(d: Durability) -> Vec<(String, String)> {
    let (flush, doublewrite, sync_binlog) = match d {
        Durability::Durable => ("1", "ON", "1"),
        Durability::Async => ("2", "ON", "0"),
        Durability::Off => ("0", "OFF", "0"),
    };
    vec![
        ("innodb_flush_log_at_trx_commit".into(), flush.into()),
        ("innodb_doublewrite".into(), doublewrite.into()),
        ("sync_binlog".into(), sync_binlog.into()),
    ]
}

/// `unlogged`: new tables in MEMORY, which may grow to half the machine's RAM (the
/// default cap, 16 MB, would not hold pgbench's accounts at scale 1).
fn memory_settings() -> Vec<(String, String)> {
    let ram = crate::platform::host::memory_bytes();
    let half_mib = ((ram / 2) >> 20).max(64);
    vec![("default_storage_engine".into(), "MEMORY".into()), ("max_heap_table_size".into(), format!("{half_mib}M"))]
}

/// The engine's name.
const NAME: &str = "mysql";

/// Who MariaDB's (and MySQL's) servers run as when dbrace is root: they refuse root.
pub const USER: ServerUser = ServerUser { server: "MariaDB", default: "mysql", refuses_root: true };

/// `--set` values replace the profile's own (`-` and `_` are one in option names).
fn merged(base: Vec<(String, String)>, over: &[(String, String)]) -> Vec<(String, String)> {
    kit::merged(base, over, |k| k.replace('-', "_"))
}

impl ServerEngine for Mysql {
    const FACTS: &'static Facts = &Facts {
        url_schemes: &["mysql", "mariadb"],
        setting_keys: &["any server variable (mariadbd --KEY=VALUE; SET SESSION per connection against --url)"],
        bin_flag: Some(BinFlag {
            long: "mysql-bin",
            help: "Directory of the MariaDB/MySQL server binaries (mariadbd or mysqld) [default: found]",
        }),
        image: Some(&image::IMAGE),
        connection_limit: Some(("max_connections", 151)),
        serves_tls: true,
        server_user: Some(&USER),
        exposes: true,
        ..Facts::new(NAME, Interface::Sql)
    };
    type Managed = MyInstance;
    fn version(&self, machine: &Machine) -> Result<String> {
        machine.launcher.version(&MyServer::any(machine))
    }
    fn knows_setting(&self, key: &str, machine: &Machine) -> bool {
        // Without a server binary here (a Docker image's), a key of the shape of one.
        match binaries::setting_names(machine.bin_dir(NAME)) {
            Some(names) => names.iter().any(|n| *n == key.replace('-', "_")),
            None => {
                !key.is_empty()
                    && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            }
        }
    }
    fn no_rollback(&self, profile: &Profile) -> Option<&'static str> {
        profile.unlogged.then_some("its MEMORY tables keep a rolled-back transaction's changes")
    }
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()> {
        kit::target::check(
            profile,
            target,
            || machine.launcher.launchable(&MyServer::new(profile, machine, Vec::new())),
            |url| Endpoint::parse(url).map(drop),
            |p| p.location == LocationKind::Disk && p.durability == Durability::Durable && p.wal.is_none(),
            " (data or redo log on tmpfs need a restart, and innodb_flush_log_at_trx_commit is global: dbrace does not change a shared server); against --url only disk and unlogged apply",
        )
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        durability::survives(profile, settings)
    }
    fn managed(&self, launch: &Launch) -> Result<MyInstance> {
        managed_instance(launch)
    }
    fn on_url(&self, launch: &Launch, url: &str) -> Result<MyInstance> {
        on_url(launch.profile, url)
    }
    // `unlogged` is server-wide here (`default_storage_engine=MEMORY`): a command's own
    // tables get it too, so every profile applies.
    fn exposed(&self, inst: MyInstance) -> Result<Exposed> {
        exposed(inst)
    }
}

/// A throwaway server for the launch's profile, listening as it says; TCP clients connect
/// as its access says.
fn managed_instance(launch: &Launch) -> Result<MyInstance> {
    let (profile, machine) = (launch.profile, launch.machine);
    let dir = launch.data_dir(NAME)?;
    let mut expected = durability_settings(profile.durability);
    if profile.unlogged {
        expected.extend(memory_settings());
    }
    let expected = merged(expected, &profile.settings);
    // With TLS its clients come over TCP: TLS needs it, and the socket would be trusted as
    // secure without it.
    let (listen, certs) = match profile.tls {
        true => (tls_listen(launch.listen), Some(certs::make(dir.path(), USER.resolve(machine.run_as())?.as_ref())?)),
        false => (launch.listen, None),
    };
    let server = MyServer::new(profile, machine, expected.clone());
    let dirs = Dirs { data: dir, apart: launch.storage.wal.as_ref() };
    let started = machine.launcher.launch(&server, dirs, listen)?;
    let mut c = started.ready;
    // An image's init made it; the machine's init step did not.
    c.batch(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))
        .map_err(|e| failed!("cannot set up the throwaway server: {e}"))?;
    let root = started.login.with_database(DATABASE);
    let at = match started.port {
        Some(port) => account::account(&root, port, launch.access)?,
        None => root,
    };
    let at = match &certs {
        // Checked as a careful client checks it: the chain to the throwaway CA, and the name.
        Some(c) => at.with_tls(Tls::new(Mode::VerifyFull, Some(c.ca.clone()), None))?,
        None => at,
    };
    let mut inst = MyInstance {
        at,
        certs,
        session: Vec::new(),
        expected,
        memory_tables: profile.unlogged,
        version: started.version.unwrap_or_default(),
        settings: BTreeMap::new(),
        owned: Owned::Server(started.server),
    };
    inst.settings = inst.read_back(&profile.name)?;
    inst.settings.extend(started.noted);
    Ok(inst)
}

/// Where `+tls` clients connect: TCP, on the port asked for if any.
fn tls_listen(listen: access::Listen) -> access::Listen {
    match listen {
        access::Listen::Socket => access::Listen::Tcp(None),
        tcp => tcp,
    }
}

/// The connection handed to a user's tools: DATABASE_URL and the mysql client's variables;
/// with TLS the URL's `ssl-mode=VERIFY_IDENTITY&ssl-ca=…`, and `MYSQL_HOME` naming a
/// directory whose my.cnf tells the mariadb and mysql clients the same (no MYSQL_*
/// variable carries TLS).
fn exposed(inst: MyInstance) -> Result<Exposed> {
    let o = &inst.at.opts;
    let (user, password) = (o.user().unwrap_or_default().to_string(), o.pass().unwrap_or_default().to_string());
    let (host, port, db) = (o.ip_or_hostname().to_string(), o.tcp_port(), o.db_name().unwrap_or_default().to_string());
    let (mut url, mut redacted) = access::urls("mysql", &user, &password, &host, port, &db);
    let mut env = vec![
        ("MYSQL_HOST".to_string(), host),
        ("MYSQL_TCP_PORT".to_string(), port.to_string()),
        ("MYSQL_USER".to_string(), user),
        ("MYSQL_PWD".to_string(), password.clone()),
        ("MYSQL_DATABASE".to_string(), db),
    ];
    if let Some(c) = &inst.certs {
        let ca = c.ca.display().to_string();
        let user = o.user().unwrap_or_default();
        let tls = format!("?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", access::encode(&ca));
        url.push_str(&tls);
        redacted.push_str(&tls);
        let home = c.ca.parent().unwrap_or(std::path::Path::new("/"));
        // The user too: MYSQL_USER is read by some tools, not by the mariadb client.
        let cnf = format!("[client]\nuser={user}\nssl-ca={ca}\nssl-verify-server-cert\n");
        crate::instance::datadir::write_private(&home.join("my.cnf"), &cnf, None)?;
        env.push(("MYSQL_HOME".to_string(), home.display().to_string()));
    }
    env.insert(0, ("DATABASE_URL".to_string(), url.clone()));
    // A socket path would win over the host for clients that see one.
    Ok(Exposed { instance: Box::new(inst), url, redacted, env, unset: &["MYSQL_UNIX_PORT"], password })
}

fn on_url(profile: &Profile, url: &str) -> Result<MyInstance> {
    let admin = Endpoint::parse(url)?;
    let mut c = MyClient::connect(&admin, false).map_err(ConnectError::url_mistake)?;
    let db = kit::url_database::create(&mut c, &admin.redacted(), "the user needs the CREATE privilege")?;
    let session = merged(if profile.unlogged { memory_settings() } else { Vec::new() }, &profile.settings);
    let mut inst = MyInstance {
        at: admin.with_database(&db),
        certs: None,
        expected: session.clone(),
        session,
        memory_tables: profile.unlogged,
        version: String::new(),
        settings: BTreeMap::new(),
        owned: Owned::Url(url_database(admin, db)),
    };
    // From here the database is dropped with `inst`, whatever fails next.
    inst.settings = inst.read_back(&profile.name)?;
    Ok(inst)
}

/// The run's database `name` on the `--url` server, dropped as `admin` when it goes.
fn url_database(admin: Endpoint, name: String) -> UrlDatabase {
    let sql = format!("DROP DATABASE IF EXISTS {name}");
    let run = move |sql: &str| -> std::result::Result<(), String> {
        let mut c = MyClient::connect(&admin, false).map_err(|e| e.to_string())?;
        c.batch(sql).map_err(|e| e.to_string())
    };
    UrlDatabase::new(name, sql, Box::new(run))
}

/// A fresh MySQL database to measure.
pub struct MyInstance {
    at: Endpoint,
    /// The throwaway CA and server certificate of a server with TLS.
    certs: Option<Certs>,
    /// SET SESSION on every connection (url targets).
    session: Vec<(String, String)>,
    /// What `SELECT @@…` must say.
    expected: Vec<(String, String)>,
    memory_tables: bool,
    version: String,
    settings: BTreeMap<String, String>,
    owned: Owned<UrlDatabase>,
}

impl MyInstance {
    fn client(&self) -> Result<MyClient> {
        let mut c = MyClient::connect(&self.at, self.memory_tables).map_err(|e| self.owned.unreachable(e))?;
        kit::session::apply(
            &mut c,
            &self.session,
            |k, v| format!("SET SESSION {k} = {}", session_value(v)),
            |k, v, e| {
                bad_input!("mysql refused SET SESSION {k} = {v}: {e}; against --url only session variables apply")
            },
        )?;
        Ok(c)
    }

    /// Read the recorded settings and those we set; fail when one did not take.
    fn read_back(&self, profile: &str) -> Result<BTreeMap<String, String>> {
        let mut c = self.client()?;
        let mut out = BTreeMap::new();
        let via = match self.at.opts.socket() {
            Some(_) => "socket".to_string(),
            None => format!("tcp {}:{}", self.at.opts.ip_or_hostname(), self.at.opts.tcp_port()),
        };
        out.insert("transport".to_string(), via);
        out.insert("tls".to_string(), c.tls().unwrap_or("off").to_string());
        let version = c.value("SELECT VERSION()").map_err(|e| failed!("mysql: SELECT VERSION(): {e}"))?;
        out.insert("version".to_string(), version.unwrap_or_default());
        let rb = ReadBack { engine: "mysql", profile, recorded: RECORDED, expected: &self.expected };
        rb.read(&mut out, |key| match c.value(&format!("SELECT @@{key}")) {
            Ok(v) => Ok(Some(v.unwrap_or_default())),
            // A startup option that is no variable (or one this server lacks): the
            // server took it, there is just nothing to read back.
            Err(_) => Ok(Some(NOT_A_VARIABLE.to_string())),
        })?;
        rb.verify(&out, |k, want, have| {
            let have = have.unwrap_or(NOT_A_VARIABLE);
            (have != NOT_A_VARIABLE && !same_setting(k, have, want)).then(|| (have.to_string(), want.to_string()))
        })?;
        Ok(out)
    }
}

/// What is recorded for a setting that cannot be read back.
const NOT_A_VARIABLE: &str = "(not a variable here)";

/// A value for SET SESSION: numbers and words as they are, sizes (`64M`) in bytes as the
/// command line would take them, anything else quoted.
fn session_value(v: &str) -> String {
    if let Some(n) = bytes(v) {
        return n.to_string();
    }
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') {
        return v.to_string();
    }
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))
}

/// `512M`, `2G`, `1048576`: a size in bytes (the suffixes mariadbd's options take).
fn bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let (num, mult) = match v.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                'P' => 50,
                _ => return None,
            };
            (&v[..i], 1u64 << shift)
        }
        _ => (v, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// Whether a value read back is the one set: ON/1/TRUE are one, sizes compare in bytes,
/// words regardless of case; `log_bin=<name>` turns the binlog on.
fn same_setting(key: &str, have: &str, want: &str) -> bool {
    let norm = |s: &str| match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => "on".to_string(),
        "off" | "false" | "no" | "0" => "off".to_string(),
        s => bytes(s).map_or(s.to_string(), |b| b.to_string()),
    };
    if key == "log_bin" && norm(want) != "off" {
        return norm(have) == "on";
    }
    // A real reads back with six decimals: innodb_max_dirty_pages_pct=90 is 90.000000.
    let real = |s: &str| s.trim().parse::<f64>().ok();
    if let (Some(h), Some(w)) = (real(have), real(want)) {
        return (h - w).abs() <= 1e-9 * w.abs().max(1.0);
    }
    norm(have) == norm(want)
}

impl Instance for MyInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Sql(Box::new(self.client()?)))
    }
    fn version(&self) -> String {
        self.settings.get("version").cloned().unwrap_or_else(|| self.version.clone())
    }
    fn settings(&self) -> BTreeMap<String, String> {
        self.settings.clone()
    }
    fn alive(&self) -> Result<()> {
        self.owned.alive()
    }
    fn counters(&self) -> Result<Option<Box<dyn crate::engine::counters::CounterReader>>> {
        let reader = counters::MyCounters::open(&self.at).map_err(|e| failed!("{e}"))?;
        Ok(Some(Box::new(reader)))
    }
    fn usage(&self) -> Option<crate::counters::Usage> {
        self.owned.usage()
    }
    fn processes(&self) -> Option<crate::launcher::usage::Processes> {
        self.owned.processes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per setting type of the server's variables: what it reads back, values that are it
    /// however written, and values that are not.
    #[test]
    fn each_variable_type_is_compared_as_the_server_reads_it() {
        let table: &[(&str, &str, &[&str], &[&str])] = &[
            ("innodb_doublewrite", "ON", &["ON", "on", "1", "true"], &["OFF", "0"]),
            ("innodb_buffer_pool_size", "134217728", &["128M", "128m", "131072K", "134217728"], &["128", "256M"]),
            ("max_connections", "151", &["151", "151.0"], &["150", "many"]),
            ("innodb_max_dirty_pages_pct", "90.000000", &["90", "90.0", "9e1"], &["90.5", "9"]),
            ("innodb_flush_method", "O_DIRECT", &["O_DIRECT", "o_direct"], &["fsync"]),
            ("default_storage_engine", "InnoDB", &["innodb", "INNODB"], &["MEMORY"]),
        ];
        for (key, have, same, other) in table {
            for w in *same {
                assert!(same_setting(key, have, w), "{key} {have} should hold '{w}'");
            }
            for w in *other {
                assert!(!same_setting(key, have, w), "{key} {have} should not hold '{w}'");
            }
        }
    }

    #[test]
    fn values_compare_as_mysql_means_them() {
        assert!(same_setting("innodb_buffer_pool_size", "536870912", "512M"));
        assert!(same_setting("innodb_doublewrite", "1", "ON"));
        assert!(same_setting("innodb_doublewrite", "OFF", "0"));
        assert!(same_setting("default_storage_engine", "MEMORY", "memory"));
        assert!(!same_setting("innodb_flush_log_at_trx_commit", "1", "2"));
        assert!(!same_setting("innodb_buffer_pool_size", "134217728", "512M"));
        assert!(same_setting("log_bin", "1", "mysql-bin"));
        assert!(!same_setting("log_bin", "1", "OFF"));
        assert_eq!(session_value("64M"), "67108864");
        assert_eq!(session_value("MEMORY"), "MEMORY");
        assert_eq!(session_value("READ-COMMITTED"), "'READ-COMMITTED'");
        assert_eq!(bytes("2g"), Some(2 << 30));
        assert_eq!(bytes("fast"), None);
    }

    #[test]
    fn profiles_map_to_innodb_settings() {
        let get = |d| durability_settings(d).into_iter().collect::<BTreeMap<_, _>>();
        assert_eq!(get(Durability::Durable)["innodb_flush_log_at_trx_commit"], "1");
        assert_eq!(get(Durability::Async)["innodb_flush_log_at_trx_commit"], "2");
        let off = get(Durability::Off);
        assert_eq!((off["innodb_flush_log_at_trx_commit"].as_str(), off["innodb_doublewrite"].as_str()), ("0", "OFF"));
        let m = merged(durability_settings(Durability::Durable), &[("innodb-doublewrite".into(), "OFF".into())]);
        assert_eq!(m.iter().filter(|(k, _)| k == "innodb_doublewrite").count(), 1);
        assert_eq!(m.last().unwrap(), &("innodb_doublewrite".to_string(), "OFF".to_string()));
    }
}
