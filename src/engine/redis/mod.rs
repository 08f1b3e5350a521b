//! Redis: throwaway `redis-server`s dbrace starts itself (managed), with persistence set
//! per profile in a config file of ours, or an existing server (`--url`), where a run
//! writes only keys under a prefix of its own and removes them afterwards.

mod binary;
pub mod client;
mod counters;
mod durability;
pub mod endpoint;
#[cfg(test)]
mod fuzz;
mod image;
pub mod resp;
pub mod server;

use super::ConnectError;
use super::access::{self, Exposed};
use super::kit::{self, Owned, ReadBack, ServerUser};
use super::{Capability, Connection, Facts, Instance, Interface, Launch, Machine, ServerEngine, Target};
use crate::error::Result;
use crate::results::Survives;

use crate::launcher::Dirs;
use crate::profile::{Durability, LocationKind, Profile};
use client::RedisClient;
use endpoint::Endpoint;
use server::RedisServer;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The Redis engine.
pub struct Redis;

/// Settings always read back with CONFIG GET and recorded.
const RECORDED: &[&str] = &["appendonly", "appendfsync", "no-appendfsync-on-rewrite", "save", "dir", "maxmemory"];

/// Server settings for a profile. RDB snapshots are off everywhere: they promise nothing
/// per write, and a background save mid-measurement would be noise. `nosync` still writes
/// the AOF, unsynced, as the SQL engines' nosync still write their logs; only `unlogged`
/// keeps nothing.
fn profile_settings(p: &Profile) -> Vec<(String, String)> {
    let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut s = if p.unlogged {
        vec![kv("appendonly", "no")]
    } else {
        let fsync = match p.durability {
            Durability::Durable => "always",
            Durability::Async => "everysec",
            Durability::Off => "no",
        };
        vec![kv("appendonly", "yes"), kv("appendfsync", fsync)]
    };
    s.push(kv("save", ""));
    kit::merged(s, &p.settings, kit::merge::as_written)
}

/// Who the servers run as when we are root: redis-server does not refuse root, but a
/// server anyone on the machine may reach over TCP has no business holding root's
/// rights, so the package's `redis` user (or `--run-as`) when there is one.
pub const USER: ServerUser = ServerUser { server: "redis-server", default: "redis", refuses_root: false };

impl ServerEngine for Redis {
    const FACTS: &'static Facts = &Facts {
        capabilities: &[Capability::Hashes, Capability::SortedSets],
        url_schemes: &["redis", "rediss", "redis+unix"],
        setting_keys: &["any redis config directive (written to the throwaway server's config file)"],
        image: Some(&image::IMAGE),
        serves_tls: true,
        server_user: Some(&USER),
        exposes: true,
        ..Facts::new("redis", Interface::Kv)
    };
    type Managed = RedisInstance;
    fn version(&self, machine: &Machine) -> Result<String> {
        machine.launcher.version(&RedisServer::any(machine)?)
    }
    fn knows_setting(&self, key: &str, _machine: &Machine) -> bool {
        !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    }
    /// `unlogged` keeps nothing at all: recorded as durability off.
    fn resolve_profile(&self, requested: &Profile) -> Option<Profile> {
        let mut p = requested.clone();
        if p.unlogged {
            p.durability = Durability::Off;
        }
        Some(p)
    }
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()> {
        kit::target::log_beside_data(profile, "Redis keeps its append-only file in its dir")?;
        kit::target::check(
            profile,
            target,
            || machine.launcher.launchable(&RedisServer::any(machine)?),
            |url| Endpoint::parse(url).map(drop),
            |p| p.location == LocationKind::Disk && p.durability == Durability::Durable && !p.unlogged,
            ": Redis persistence is server-wide (a restart for its dir, CONFIG SET for everyone else's writes too); against --url only disk, the server as it is, applies",
        )?;
        kit::target::no_url_settings(
            profile,
            target,
            "--set for redis needs a server dbrace starts itself: CONFIG SET on the --url server would change it for every client",
        )
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        durability::survives(profile, settings)
    }
    fn managed(&self, launch: &Launch) -> Result<RedisInstance> {
        managed_instance(launch)
    }
    fn on_url(&self, _launch: &Launch, url: &str) -> Result<RedisInstance> {
        on_url(url)
    }
    fn exposed(&self, inst: RedisInstance) -> Result<Exposed> {
        exposed(inst)
    }
}

/// A throwaway server for the launch's profile, listening as it says; TCP clients log in
/// as its access says.
fn managed_instance(launch: &Launch) -> Result<RedisInstance> {
    let (profile, machine) = (launch.profile, launch.machine);
    let dir = launch.data_dir("redis")?;
    if profile.tls {
        crate::instance::certs::make(dir.path(), USER.resolve(machine.run_as())?.as_ref())?;
    }
    // TLS runs over TCP only.
    let listen =
        if profile.tls && launch.listen == access::Listen::Socket { access::Listen::Tcp(None) } else { launch.listen };
    let expected = profile_settings(profile);
    let server = RedisServer::new(profile, machine, expected.clone(), launch.access)?;
    let started = machine.launcher.launch(&server, Dirs { data: dir, apart: None }, listen)?;
    let mut inst = RedisInstance {
        endpoint: started.login,
        prefix: Vec::new(),
        version: started.version.clone().unwrap_or_default(),
        settings: BTreeMap::new(),
        owned: Owned::Server(started.server),
    };
    let mut c = started.ready;
    if started.version.is_none() {
        inst.version = c.info_field("server", "redis_version").ok().flatten().unwrap_or_else(|| "unknown".into());
    }
    inst.settings = read_back(&mut c, &inst.endpoint, &expected, &profile.name)?;
    inst.settings.extend(started.noted);
    Ok(inst)
}

/// The connection handed to a user's tools: REDIS_URL, and with TLS `rediss://` that
/// checks the certificate and host name against the CA's file, which REDIS_CA_CERT names.
fn exposed(inst: RedisInstance) -> Result<Exposed> {
    let ep = &inst.endpoint;
    let endpoint::Addr::Tcp(host, port) = &ep.addr else {
        return Err(failed!("a redis-server handed to a command listens on TCP"));
    };
    let password = ep.password.clone().unwrap_or_default();
    // `default` named: redis-cli reads `redis://:PASSWORD@…` as an empty user name.
    let user = ep.username.clone().unwrap_or_else(|| "default".to_string());
    let scheme = if ep.tls.is_some() { "rediss" } else { "redis" };
    let (mut url, mut redacted) = match password.is_empty() {
        // No password, no credentials: clients then send no AUTH.
        true => {
            let url = format!("{scheme}://{host}:{port}/{}", ep.db);
            (url.clone(), url)
        }
        false => access::urls(scheme, &user, &password, host, *port, &ep.db.to_string()),
    };
    let mut env = Vec::new();
    if let Some(ca) = ep.tls.as_ref().and_then(|t| t.root_cert.as_ref()) {
        let ca = ca.to_string_lossy();
        // redis-py's names; its check of the host name is spelled out, older versions lack it.
        let q = format!("?ssl_cert_reqs=required&ssl_check_hostname=true&ssl_ca_certs={}", query_value(&ca));
        url.push_str(&q);
        redacted.push_str(&q);
        env.push(("REDIS_CA_CERT".to_string(), ca.into_owned()));
    }
    env.insert(0, ("REDIS_URL".to_string(), url.clone()));
    Ok(Exposed { instance: Box::new(inst), url, redacted, env, unset: &[], password })
}

/// A file path as a URL query's value: percent-encoded, its slashes left as they are.
fn query_value(path: &str) -> String {
    access::encode(path).replace("%2F", "/")
}

fn on_url(url: &str) -> Result<RedisInstance> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    // The user's data is never touched: this repeat's keys carry a prefix nobody else
    // uses (a pid can repeat after a reboot; the random part cannot), and go afterwards.
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let run = RUN.get_or_init(|| crate::instance::server::random_token(6).unwrap_or_default());
    let endpoint = Endpoint::parse(url)?;
    let prefix = format!("dbrace:{}-{run}:{}:", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut c = RedisClient::connect(&endpoint, prefix.as_bytes()).map_err(ConnectError::url_mistake)?;
    let inst_endpoint = endpoint.clone();
    let version = c.info_field("server", "redis_version").ok().flatten().unwrap_or_else(|| "unknown".into());
    let mut inst = RedisInstance {
        endpoint,
        prefix: prefix.clone().into_bytes(),
        version,
        settings: BTreeMap::new(),
        owned: Owned::Url(Keys { endpoint: inst_endpoint, prefix: prefix.clone().into_bytes() }),
    };
    inst.settings = read_back(&mut c, &inst.endpoint, &[], "disk")?;
    inst.settings.insert("key_prefix".into(), prefix);
    Ok(inst)
}

/// CONFIG GET the recorded settings and those we set; fail when one did not take.
fn read_back(
    c: &mut RedisClient,
    endpoint: &Endpoint,
    expected: &[(String, String)],
    profile: &str,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    out.insert("transport".to_string(), endpoint.transport());
    out.insert("tls".to_string(), c.tls().unwrap_or_else(|| "off".to_string()));
    let rb = ReadBack { engine: "redis", profile, recorded: RECORDED, expected };
    rb.read(&mut out, |key| match c.config_get(key) {
        Ok(v) => Ok(v),
        // Someone else's server may forbid CONFIG (ACL, renamed command): nothing we set.
        Err(e) if expected.is_empty() => Ok(Some(format!("(not readable: {e})"))),
        Err(e) => Err(failed!("redis: CONFIG GET {key}: {e}")),
    })?;
    rb.verify(&out, |_, want, have| {
        let have = have.unwrap_or("(no such setting)");
        (!same_setting(have, want)).then(|| (format!("'{have}'"), format!("'{want}'")))
    })?;
    Ok(out)
}

/// Redis reads yes/no in any case and sizes with units (1kb = 1024, 1k = 1000), and
/// answers in bytes; compare in those terms.
fn same_setting(have: &str, want: &str) -> bool {
    let norm = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (num, unit) = s.split_at(digits);
        let scale: u64 = match unit {
            "k" => 1000,
            "kb" => 1024,
            "m" => 1_000_000,
            "mb" => 1 << 20,
            "g" => 1_000_000_000,
            "gb" => 1 << 30,
            _ => return s,
        };
        num.parse::<u64>().map_or(s.clone(), |n| (n * scale).to_string())
    };
    norm(have) == norm(want)
}

/// Keys under an instance's prefix on someone else's server, removed on drop.
struct Keys {
    endpoint: Endpoint,
    prefix: Vec<u8>,
}

impl Drop for Keys {
    fn drop(&mut self) {
        if let Ok(mut c) = RedisClient::connect(&self.endpoint, &self.prefix)
            && let Err(e) = c.scan_prefixed(true)
        {
            let prefix = String::from_utf8_lossy(&self.prefix);
            eprintln!("dbrace: could not remove keys {prefix}* from {}: {e}", self.endpoint.redacted());
        }
    }
}

/// A fresh Redis to measure: a throwaway server, or a key prefix on an existing one.
pub struct RedisInstance {
    endpoint: Endpoint,
    prefix: Vec<u8>,
    version: String,
    settings: BTreeMap<String, String>,
    owned: Owned<Keys>,
}

impl RedisInstance {
    fn client(&self) -> Result<RedisClient> {
        RedisClient::connect(&self.endpoint, &self.prefix).map_err(|e| match &self.owned {
            Owned::Server(s) => failed!("cannot connect to the throwaway redis-server: {e}; {}", s.log_tail()),
            Owned::Url(_) => failed!("{e}"),
        })
    }
}

impl Instance for RedisInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Kv(Box::new(self.client()?)))
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
        let reader = counters::RedisCounters::open(&self.endpoint, &self.prefix).map_err(|e| failed!("{e}"))?;
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
    fn profiles_map_to_persistence_and_set_values_replace_them() {
        let p = |n: &str| Redis.resolve_profile(&Profile::builtin(n).unwrap()).unwrap();
        let get = |p: &Profile, k: &str| profile_settings(p).into_iter().find(|(x, _)| x == k).map(|(_, v)| v);
        assert_eq!(get(&p("disk"), "appendfsync").as_deref(), Some("always"));
        assert_eq!(get(&p("ram"), "appendfsync").as_deref(), Some("always"));
        assert_eq!(get(&p("async"), "appendfsync").as_deref(), Some("everysec"));
        assert_eq!(get(&p("nosync"), "appendfsync").as_deref(), Some("no"));
        assert_eq!(get(&p("nosync"), "appendonly").as_deref(), Some("yes"));
        assert_eq!(get(&p("unlogged"), "appendonly").as_deref(), Some("no"));
        assert_eq!(get(&p("unlogged"), "appendfsync"), None);
        assert_eq!(p("unlogged").durability, Durability::Off);
        for n in ["disk", "unlogged"] {
            assert_eq!(get(&p(n), "save").as_deref(), Some(""));
        }
        let mut d = p("disk");
        d.settings = vec![("appendfsync".into(), "no".into())];
        assert_eq!(profile_settings(&d).iter().filter(|(k, _)| k == "appendfsync").count(), 1);
        assert_eq!(get(&d, "appendfsync").as_deref(), Some("no"));
    }

    /// Per type of Redis's configuration: what CONFIG GET answers, values that are it
    /// however written, and values that are not.
    #[test]
    fn each_config_type_is_compared_as_the_server_reads_it() {
        let table: &[(&str, &[&str], &[&str])] = &[
            ("yes", &["yes", "YES", "Yes"], &["no", "1"]),
            ("104857600", &["100mb", "100MB", "102400kb", "104857600"], &["100m", "100"]),
            ("1000", &["1k", "1000", "1K"], &["1kb"]),
            ("everysec", &["everysec", "EVERYSEC"], &["always", "no"]),
            ("3600 1 300 100", &["3600 1 300 100"], &["3600 1"]),
            ("", &[""], &["0"]),
        ];
        for (have, same, other) in table {
            for w in *same {
                assert!(same_setting(have, w), "{have:?} should hold '{w}'");
            }
            for w in *other {
                assert!(!same_setting(have, w), "{have:?} should not hold '{w}'");
            }
        }
    }

    #[test]
    fn settings_compare_as_redis_reads_them() {
        assert!(same_setting("yes", "YES"));
        assert!(same_setting("104857600", "100mb"));
        assert!(same_setting("100000000", "100m"));
        assert!(!same_setting("104857600", "100m"));
        assert!(same_setting("", ""));
        assert!(!same_setting("everysec", "always"));
    }

    #[test]
    fn url_targets_take_only_the_server_as_it_is() {
        let url = Target::Url("redis://127.0.0.1:6379/0".into());
        assert!(Redis.check(&Profile::builtin("disk").unwrap(), &url, &Machine::default()).is_ok());
        for p in ["ram", "async", "nosync", "ram-nosync", "unlogged", "wal-ram"] {
            let p = Redis.resolve_profile(&Profile::builtin(p).unwrap()).unwrap();
            assert!(Redis.check(&p, &url, &Machine::default()).is_err(), "{}", p.name);
        }
        let mut d = Profile::builtin("disk").unwrap();
        d.settings = vec![("appendfsync".into(), "no".into())];
        assert!(Redis.check(&d, &url, &Machine::default()).unwrap_err().to_string().contains("every client"));
    }
}
