//! MongoDB: throwaway `mongod`s dbrace starts itself (managed), or an existing server
//! (`--url mongodb://…`), where a run works in a database of its own, dropped afterwards.
//! Durability is the write concern every write carries (`j: true` waits for the
//! journal's sync) and, on a throwaway server, the journal's interval and the dbpath's
//! filesystem.

mod binary;
pub mod bson_out;
pub mod client;
mod counters;
mod cursor;
mod doc_client;
mod durability;
pub mod failure;
mod image;
mod login;
mod read_back;
pub mod reply;
pub mod scram;
pub mod server;
mod setup;
pub mod url;
pub mod wire;

use super::ConnectError;
use super::access::{self, Exposed};
use super::kit::{self, Owned, ServerUser, UrlDatabase};
use super::{BinFlag, Capability, Connection, Facts, Instance, Interface, Launch, Machine, ServerEngine, Target};
use crate::error::Result;
use crate::launcher::Dirs;
use crate::profile::{Durability, LocationKind, Profile};
use crate::results::Survives;
use client::{MongoClient, WriteConcern};
use server::MongoServer;
use std::collections::BTreeMap;
use url::Endpoint;
use wire::Addr;

/// The MongoDB engine.
pub struct Mongo;

/// Who the servers run as when we are root: mongod does not refuse root, but the
/// package's `mongodb` user (or `--run-as`) when there is one.
pub const USER: ServerUser = ServerUser { server: "mongod", default: "mongodb", refuses_root: false };

/// The database a throwaway server's clients work in.
const MANAGED_DB: &str = "dbrace";

/// The write concern of a profile: `j: true` for a durable commit, else `j: false`.
pub fn write_concern(p: &Profile) -> WriteConcern {
    WriteConcern { journal: p.durability == Durability::Durable && !p.unlogged }
}

impl ServerEngine for Mongo {
    const FACTS: &'static Facts = &Facts {
        capabilities: &[Capability::DocIncrements, Capability::DocRanges],
        url_schemes: &["mongodb", "mongodb+srv"],
        setting_keys: &[
            "any mongod option, as --NAME VALUE (e.g. wiredTigerCacheSizeGB)",
            "setParameter.NAME (--setParameter NAME=VALUE)",
        ],
        bin_flag: Some(BinFlag { long: "mongo-bin", help: "Directory of the mongod binary [default: found on PATH]" }),
        image: Some(&image::IMAGE),
        serves_tls: true,
        server_user: Some(&USER),
        exposes: true,
        setup_language: Some("a JSON array of commands"),
        ..Facts::new("mongo", Interface::Doc)
    };
    type Managed = MongoInstance;
    fn version(&self, machine: &Machine) -> Result<String> {
        machine.launcher.version(&MongoServer::any(machine))
    }
    fn knows_setting(&self, key: &str, _machine: &Machine) -> bool {
        let name = key.strip_prefix("setParameter.").unwrap_or(key);
        name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    }
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()> {
        kit::target::log_beside_data(profile, "mongod keeps its journal inside its dbpath")?;
        kit::target::check(
            profile,
            target,
            || machine.launcher.launchable(&MongoServer::new(profile, machine, Vec::new())),
            |url| Endpoint::parse(url).map(drop),
            |p| p.location == LocationKind::Disk && !p.unlogged && p.durability != Durability::Off,
            ": against --url only the write concern is the client's to choose (disk: j:true, async: j:false); where the data lives, the journal's interval and the storage engine are the server's",
        )?;
        kit::target::no_url_settings(
            profile,
            target,
            "--set for mongo passes mongod options, which need a server dbrace starts itself; the --url server is as it is",
        )
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        durability::survives(profile, settings)
    }
    fn managed(&self, launch: &Launch) -> Result<MongoInstance> {
        managed_instance(launch)
    }
    fn on_url(&self, launch: &Launch, url: &str) -> Result<MongoInstance> {
        on_url(launch.profile, url)
    }
    fn exposed(&self, inst: MongoInstance) -> Result<Exposed> {
        exposed(inst)
    }
    fn check_setup(&self, text: &str) -> std::result::Result<(), String> {
        setup::parse(text).map(drop)
    }
}

/// A throwaway server for the launch: its first login (the localhost exception on the
/// machine's mongod, root on an image's) makes the account clients use
/// (`--user`/`--password`, else dbrace and a random password), then the settings are read
/// back.
fn managed_instance(launch: &Launch) -> Result<MongoInstance> {
    let (profile, machine) = (launch.profile, launch.machine);
    let dir = launch.data_dir("mongo")?;
    if profile.tls {
        server::tls_files(dir.path(), USER.resolve(machine.run_as())?.as_ref())?;
    }
    // TLS runs over TCP only.
    let listen = match launch.listen {
        access::Listen::Socket if profile.tls => access::Listen::Tcp(None),
        l => l,
    };
    let (args, expected) = server::profile_args(profile);
    let server = MongoServer::new(profile, machine, args);
    let started = machine.launcher.launch(&server, Dirs { data: dir, apart: None }, listen)?;
    let (user, password) = account(launch.access)?;
    let cmd = bson::doc! { "createUser": &user, "pwd": &password, "roles": ["root"] };
    let mut first = started.ready;
    first.command_doc("admin", &cmd).map_err(|e| failed!("mongod: cannot create user {user}: {e}"))?;
    let mut endpoint = started.login;
    endpoint.user = Some(user);
    endpoint.password = Some(password);
    let mut inst = MongoInstance {
        endpoint,
        db: launch.access.database.clone().unwrap_or_else(|| MANAGED_DB.to_string()),
        wc: write_concern(profile),
        version: started.version.unwrap_or_default(),
        settings: BTreeMap::new(),
        owned: Owned::Server(started.server),
    };
    let mut c = inst.client()?;
    inst.read_back(&mut c, &expected, &profile.name)?;
    inst.settings.extend(started.noted);
    Ok(inst)
}

/// The account TCP clients log in as: `--user`/`--password`, else dbrace and a random one.
fn account(access: &access::Access) -> Result<(String, String)> {
    let user = access.user.clone().unwrap_or_else(|| "dbrace".into());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => crate::instance::server::random_token(24)?,
    };
    Ok((user, password))
}

/// The connection handed to a user's tools: MONGODB_URI and DATABASE_URL; with TLS,
/// `tls=true` and the CA's file (`tlsCAFile`), the host name checked.
fn exposed(inst: MongoInstance) -> Result<Exposed> {
    let ep = &inst.endpoint;
    let Addr::Tcp(host, port) = &ep.addr else {
        return Err(failed!("a mongod handed to a command listens on TCP"));
    };
    let password = ep.password.clone().unwrap_or_default();
    let tls = match ep.tls.as_ref().and_then(|t| t.root_cert.as_ref()) {
        Some(ca) => format!("tls=true&tlsCAFile={}", access::encode(&ca.to_string_lossy()).replace("%2F", "/")),
        None => String::new(),
    };
    let (url, redacted) = match &ep.user {
        Some(user) => {
            let (u, r) = access::urls("mongodb", user, &password, host, *port, &inst.db);
            let mut q = format!("?authSource={}", access::encode(&ep.auth_source));
            if !tls.is_empty() {
                q = format!("{q}&{tls}");
            }
            (u + &q, r + &q)
        }
        None => {
            let q = if tls.is_empty() { String::new() } else { format!("?{tls}") };
            let u = format!("mongodb://{host}:{port}/{}{q}", access::encode(&inst.db));
            (u.clone(), u)
        }
    };
    let env = vec![("MONGODB_URI".to_string(), url.clone()), ("DATABASE_URL".to_string(), url.clone())];
    Ok(Exposed { instance: Box::new(inst), url, redacted, env, unset: &[], password })
}

fn on_url(profile: &Profile, url: &str) -> Result<MongoInstance> {
    let endpoint = Endpoint::parse(url)?;
    let db = kit::url_database::unique_name();
    let wc = write_concern(profile);
    let mut c = MongoClient::connect(&endpoint, &db, wc).map_err(ConnectError::url_mistake)?;
    // A login that may not work there says so now, not in the first measured
    // transaction; the database does not exist until the first write makes it.
    c.probe().map_err(|e| {
        let why = if e.code() == Some(failure::code::UNAUTHORIZED) {
            "it wants a user and password with readWrite on any database (or root)"
        } else {
            "check the user, password and database in --url"
        };
        bad_input!("{} refused the run's database: {e}; {why}", endpoint.redacted())
    })?;
    // From here the database is dropped with `inst`, whatever fails next.
    let mut inst = MongoInstance {
        endpoint: endpoint.clone(),
        db: db.clone(),
        wc,
        version: String::new(),
        settings: BTreeMap::new(),
        owned: Owned::Url(url_database(endpoint, db)),
    };
    inst.read_back(&mut c, &[], "disk")?;
    Ok(inst)
}

/// The run's database `name` on the `--url` server, dropped when it goes.
fn url_database(endpoint: Endpoint, name: String) -> UrlDatabase {
    let how = format!("db.getSiblingDB('{name}').dropDatabase()");
    let db = name.clone();
    let run = move |_: &str| -> std::result::Result<(), String> {
        let wc = WriteConcern { journal: false };
        let mut c = MongoClient::connect(&endpoint, &db, wc).map_err(|e| e.to_string())?;
        c.drop_database().map_err(|e| e.to_string())
    };
    UrlDatabase::new(name, how, Box::new(run))
}

/// A fresh MongoDB database to measure: on a throwaway server, or a database of the
/// run's own on an existing one.
pub struct MongoInstance {
    endpoint: Endpoint,
    db: String,
    wc: WriteConcern,
    version: String,
    settings: BTreeMap<String, String>,
    owned: Owned<UrlDatabase>,
}

impl MongoInstance {
    fn client(&self) -> Result<MongoClient> {
        MongoClient::connect(&self.endpoint, &self.db, self.wc).map_err(|e| match &self.owned {
            // The URL worked when the instance was made: a server gone since fails the cell.
            Owned::Url(_) => failed!("{e}; the --url server stopped answering during the run"),
            Owned::Server(_) => self.owned.unreachable(e),
        })
    }

    /// Record what the server says it is and runs with: `buildInfo`, `serverStatus`,
    /// `getCmdLineOpts`, `getParameter`; fail when one of `expected` (mongod options
    /// and parameters set) did not take.
    fn read_back(&mut self, c: &mut MongoClient, expected: &[(String, String)], profile: &str) -> Result<()> {
        let s = read_back::read_back(c, &self.endpoint, self.wc, expected, profile)?;
        self.version = s.get("version").cloned().unwrap_or_else(|| "unknown".into());
        self.settings.extend(s);
        Ok(())
    }
}

impl Instance for MongoInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Doc(Box::new(self.client()?)))
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn settings(&self) -> BTreeMap<String, String> {
        self.settings.clone()
    }
    fn alive(&self) -> Result<()> {
        self.owned.alive()
    }
    fn counters(&self) -> Result<Option<Box<dyn crate::engine::counters::CounterReader>>> {
        let reader = counters::MongoCounters::open(&self.endpoint, &self.db, self.wc).map_err(|e| failed!("{e}"))?;
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

    #[test]
    fn profiles_map_to_write_concerns() {
        let p = |n: &str| Profile::builtin(n).unwrap();
        assert!(write_concern(&p("disk")).journal);
        assert!(write_concern(&p("ram")).journal);
        for n in ["async", "nosync", "ram-nosync", "unlogged"] {
            assert!(!write_concern(&p(n)).journal, "{n}");
        }
    }

    #[test]
    fn url_targets_take_only_the_write_concern() {
        let url = Target::Url("mongodb://127.0.0.1:27017/".into());
        for ok in ["disk", "async"] {
            assert!(Mongo.check(&Profile::builtin(ok).unwrap(), &url, &Machine::default()).is_ok(), "{ok}");
        }
        for p in ["ram", "nosync", "ram-nosync", "unlogged", "wal-ram"] {
            let e = Mongo.check(&Profile::builtin(p).unwrap(), &url, &Machine::default()).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{p}");
        }
        let mut d = Profile::builtin("disk").unwrap();
        d.settings = vec![("wiredTigerCacheSizeGB".into(), "1".into())];
        assert!(Mongo.check(&d, &url, &Machine::default()).unwrap_err().to_string().contains("mongod options"));
        let srv = Target::Url("mongodb+srv://c.example/".into());
        let e = Mongo.check(&Profile::builtin("disk").unwrap(), &srv, &Machine::default()).unwrap_err();
        assert!(e.to_string().contains("mongodb+srv://"), "{e}");
    }

    #[test]
    fn settings_are_mongod_options_or_parameters() {
        let m = Machine::default();
        assert!(Mongo.knows_setting("wiredTigerCacheSizeGB", &m));
        assert!(Mongo.knows_setting("setParameter.journalCommitInterval", &m));
        assert!(!Mongo.knows_setting("--port", &m) && !Mongo.knows_setting("a b", &m) && !Mongo.knows_setting("", &m));
    }
}
