//! Throwaway `mongod`s from the machine's own binary (`--mongo-bin DIR` or PATH): its
//! dbpath in the instance's 0700 directory (on the profile's location), reached on its
//! unix socket there or with `--transport tcp` on 127.0.0.1 at a free port, `--auth`
//! with a root user of a random password either way, the profile's journal settings on
//! its command line; a `+tls` profile's on TCP in TLS only (`--tlsMode requireTLS`), with
//! a certificate from a CA made in the instance's directory, which clients check. Ready on the first
//! `hello`; stopped with SIGINT (mongod's clean shutdown). And what every instance reads
//! back from its server, throwaway or not.

use super::client::{MongoClient, WriteConcern};
use super::failure::Failure;
use super::reply::{get_str, number as get_number_of};
use super::url::Endpoint;
use super::wire::Addr;
use super::{MANAGED_DB, MongoInstance, USER, write_concern};
use crate::engine::access::{self, Access};
use crate::engine::kit::tls::{Mode, Tls};
use crate::engine::kit::{self, Owned, ReadBack};
use crate::engine::{Launch, Machine};
use crate::error::Result;
use crate::instance::certs;
use crate::instance::server;
use crate::instance::user::RunAs;
use crate::launcher::{Recipe, Step};
use crate::profile::{Durability, Profile};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The server binary in use.
#[derive(Clone, Debug)]
pub struct Binary {
    /// Path of mongod.
    pub path: PathBuf,
    /// Its version, e.g. 7.0.14.
    pub version: String,
    /// Whether it has the inMemory storage engine (MongoDB Enterprise).
    pub in_memory: bool,
}

/// Find mongod in `--mongo-bin DIR`, else on PATH.
pub fn binary(machine: &Machine) -> Result<Binary> {
    let path = match machine.bin_dir("mongo") {
        Some(d) => {
            let p = d.join("mongod");
            if !p.is_file() {
                return Err(bad_input!("--mongo-bin {}: no mongod there", d.display()));
            }
            p
        }
        None => {
            let dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
            dirs.iter().map(|d| d.join("mongod")).find(|p| p.is_file()).ok_or_else(|| {
                bad_input!(
                    "mongod not found; install MongoDB's server (mongodb-org-server from MongoDB's apt repository) and put it on PATH, or give --mongo-bin DIR"
                )
            })?
        }
    };
    let out =
        Command::new(&path).arg("--version").output().map_err(|e| failed!("cannot run {}: {e}", path.display()))?;
    // "db version v7.0.14\nBuild Info: {… "modules": ["enterprise"] …}"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("db version v"))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| failed!("{} --version does not say 'db version v…': is it mongod?", path.display()))?;
    Ok(Binary { path, version, in_memory: text.contains("\"enterprise\"") })
}

/// mongod's longest journal commit interval (milliseconds): what `nosync` asks for.
pub const LONGEST_JOURNAL_INTERVAL_MS: u32 = 500;

/// mongod arguments for a profile, then `--set`'s (NAME → `--NAME VALUE`,
/// `setParameter.NAME` → `--setParameter NAME=VALUE`); and the settings to read back.
pub fn profile_args(p: &Profile) -> (Vec<String>, Vec<(String, String)>) {
    let mut args = Vec::new();
    let mut expected = Vec::new();
    if p.unlogged {
        args.extend(["--storageEngine".to_string(), "inMemory".to_string()]);
        expected.push(("storage_engine".to_string(), "inMemory".to_string()));
    } else if p.durability == Durability::Off {
        args.extend(["--journalCommitInterval".to_string(), LONGEST_JOURNAL_INTERVAL_MS.to_string()]);
        expected.push(("journalCommitInterval".to_string(), LONGEST_JOURNAL_INTERVAL_MS.to_string()));
    }
    for (k, v) in &p.settings {
        match k.strip_prefix("setParameter.") {
            Some(name) => {
                args.extend(["--setParameter".to_string(), format!("{name}={v}")]);
                expected.push((name.to_string(), v.clone()));
            }
            None => {
                args.extend([format!("--{k}"), v.clone()]);
                expected.push((format!("--{k}"), v.clone()));
            }
        }
    }
    (args, expected)
}

/// Start a throwaway mongod for the launch and read its settings back.
pub fn instance(launch: &Launch) -> Result<MongoInstance> {
    let (profile, machine) = (launch.profile, launch.machine);
    let dir = launch.data_dir("mongo")?;
    let b = binary(machine)?;
    let run_as = USER.for_launch(machine.run_as())?;
    let launcher = crate::launcher::chosen(machine.launcher);
    if let Some(u) = &run_as {
        dir.give_to(u)?;
    }
    let dbpath = dir.path().join("db");
    std::fs::create_dir(&dbpath).map_err(|e| failed!("cannot create {}: {e}", dbpath.display()))?;
    if let Some(u) = &run_as {
        std::os::unix::fs::chown(&dbpath, Some(u.uid), Some(u.gid))
            .map_err(|e| failed!("cannot give {} to {}: {e}", dbpath.display(), u.name))?;
    }
    let (args, expected) = profile_args(profile);
    let certs = if profile.tls { Some(tls_files(dir.path(), run_as.as_ref())?) } else { None };
    // TLS runs over TCP only.
    let listen = match launch.listen {
        access::Listen::Socket if profile.tls => access::Listen::Tcp(None),
        l => l,
    };
    let access = launch.access;
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(60),
        |port| {
            let mut s = Step::new(&b.path, run_as.as_ref());
            // Always --auth: a TCP listener on 127.0.0.1 exists either way, and only the
            // account made through the localhost exception below may use it.
            s.arg("--dbpath").arg(&dbpath).args(["--bind_ip", "127.0.0.1", "--auth"]);
            let endpoint = match port {
                Some(port) => {
                    s.args(["--port", &port.to_string(), "--nounixsocket"]);
                    let mut ep = endpoint(Addr::Tcp("127.0.0.1".into(), port), None);
                    if let Some(files) = &certs {
                        s.args(tls_args(files));
                        ep.tls = Some(Tls::new(Mode::VerifyFull, Some(files.ca.clone()), None));
                    }
                    ep
                }
                None => {
                    // mongod's own socket, mongodb-PORT.sock, in the 0700 directory.
                    let port = server::free_port()?;
                    s.args(["--port", &port.to_string(), "--unixSocketPrefix"]).arg(dir.path());
                    s.args(["--filePermissions", "0700"]);
                    endpoint(Addr::Unix(dir.path().join(format!("mongodb-{port}.sock"))), None)
                }
            };
            s.args(&args);
            let recipe = Recipe {
                server: s,
                dir: dir.path().to_path_buf(),
                // mongod shuts down cleanly on SIGINT and SIGTERM alike.
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGTERM,
                container: None,
            };
            Ok((recipe, endpoint))
        },
        |ep| MongoClient::connect(ep, MANAGED_DB, WriteConcern { journal: false }).ok(),
        kit::start::taken(listen),
    )?;
    let mut ep = started.probe;
    let mut first = started.ready;
    let server = started.server;
    // The localhost exception lets the first connection create the first user.
    let (user, password) = account(access)?;
    let cmd = bson::doc! { "createUser": &user, "pwd": &password, "roles": ["root"] };
    first.command_doc("admin", &cmd).map_err(|e| failed!("mongod: cannot create user {user}: {e}"))?;
    ep.user = Some(user);
    ep.password = Some(password);
    let wc = write_concern(profile);
    let db = access.database.clone().unwrap_or_else(|| MANAGED_DB.to_string());
    let mut inst = MongoInstance {
        endpoint: ep,
        db,
        wc,
        version: b.version.clone(),
        settings: BTreeMap::new(),
        owned: Owned::Server(server),
    };
    let mut c = inst.client()?;
    inst.read_back(&mut c, &expected, &profile.name)?;
    inst.settings.insert("dir_filesystem".into(), crate::instance::location::fs_type(dir.path()));
    inst.settings.insert("binary".into(), b.path.display().to_string());
    inst.settings.insert("binary_version".into(), b.version.clone());
    Ok(inst)
}

/// A throwaway server's TLS files: the CA's certificate, and the server's certificate
/// and key in one PEM, as mongod's `--tlsCertificateKeyFile` takes them.
pub struct TlsFiles {
    /// The CA's certificate: what clients trust.
    pub ca: PathBuf,
    /// The server's certificate and key.
    pub cert_key: PathBuf,
}

/// Make a CA and the server's certificate in `dir`, readable by the server's `user` only.
fn tls_files(dir: &std::path::Path, user: Option<&RunAs>) -> Result<TlsFiles> {
    let c = certs::make(dir, user)?;
    let read =
        |p: &std::path::Path| std::fs::read_to_string(p).map_err(|e| failed!("cannot read {}: {e}", p.display()));
    let pem = format!("{}{}", read(&c.cert)?, read(&c.key)?);
    let cert_key = dir.join("server.pem");
    crate::instance::datadir::write_private(&cert_key, &pem, user)?;
    Ok(TlsFiles { ca: c.ca, cert_key })
}

/// mongod's arguments for TLS only: its certificate and the CA, clients without a
/// certificate of their own let in (mongod asks for one when given a CA file).
pub fn tls_args(files: &TlsFiles) -> Vec<String> {
    let path = |p: &PathBuf| p.to_string_lossy().into_owned();
    vec![
        "--tlsMode".into(),
        "requireTLS".into(),
        "--tlsCertificateKeyFile".into(),
        path(&files.cert_key),
        "--tlsCAFile".into(),
        path(&files.ca),
        "--tlsAllowConnectionsWithoutCertificates".into(),
    ]
}

pub(super) fn endpoint(addr: Addr, user: Option<String>) -> Endpoint {
    let connect_timeout = crate::engine::kit::patient::CONNECT_TIMEOUT;
    Endpoint {
        addr,
        user,
        password: None,
        database: None,
        auth_source: "admin".into(),
        mechanism: None,
        connect_timeout,
        tls: None,
    }
}

/// The account TCP clients log in as: `--user`/`--password`, else dbrace and a random one.
pub(super) fn account(access: &Access) -> Result<(String, String)> {
    let user = access.user.clone().unwrap_or_else(|| "dbrace".into());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => server::random_token(24)?,
    };
    Ok((user, password))
}

/// Settings always recorded, read from `buildInfo`, `serverStatus`, `getCmdLineOpts`
/// and `getParameter`.
const RECORDED: &[&str] =
    &["version", "server_process", "storage_engine", "storage_persistent", "journalCommitInterval", "dbpath"];

/// What the server runs with, and the client's write concern; fail when one of
/// `expected` did not take.
pub fn read_back(
    c: &mut MongoClient,
    ep: &Endpoint,
    wc: WriteConcern,
    expected: &[(String, String)],
    profile: &str,
) -> Result<BTreeMap<String, String>> {
    let fail = |what: &str, e: Failure| failed!("mongo: {what}: {e}");
    let build = c.admin("buildInfo").map_err(|e| fail("buildInfo", e))?;
    let status = c.admin("serverStatus").map_err(|e| fail("serverStatus", e))?;
    // Someone else's server may refuse these to a user without clusterMonitor: recorded so.
    let opts = c.admin("getCmdLineOpts").ok();
    let params = c.command_doc("admin", &bson::doc! {"getParameter": "*"}).ok();
    let mut out = BTreeMap::new();
    out.insert("transport".to_string(), ep.transport());
    out.insert("tls".to_string(), c.tls().unwrap_or_else(|| "off".to_string()));
    out.insert("write_concern".to_string(), format!("{{w: 1, j: {}}}", wc.journal));
    let (build, status): (&bson::RawDocument, &bson::RawDocument) = (&build, &status);
    let argv: Vec<String> = opts
        .as_ref()
        .and_then(|o| o.get_array("argv").ok())
        .map(|a| a.into_iter().filter_map(|v| v.ok()?.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let rb = ReadBack { engine: "mongo", profile, recorded: RECORDED, expected };
    rb.read(&mut out, |key| {
        Ok(match key {
            "version" => get_str(build, "version").map(str::to_string),
            "server_process" => get_str(status, "process").map(str::to_string),
            "storage_engine" => {
                status.get_document("storageEngine").ok().and_then(|s| get_str(s, "name")).map(str::to_string)
            }
            "storage_persistent" => status
                .get_document("storageEngine")
                .ok()
                .and_then(|s| s.get_bool("persistent").ok())
                .map(|b| b.to_string()),
            "dbpath" => opts
                .as_ref()
                .and_then(|o| o.get_document("parsed").ok()?.get_document("storage").ok()?.get_str("dbPath").ok())
                .map(str::to_string),
            k if k.starts_with("--") => {
                // A mongod option: as the server received it on its command line.
                argv.iter().position(|a| a == k).and_then(|i| argv.get(i + 1)).cloned()
            }
            k => params.as_ref().and_then(|p| p.get(k).ok().flatten()).map(|v| match v {
                bson::RawBsonRef::String(s) => s.to_string(),
                v => get_number_of(v).map_or_else(|| format!("{v:?}"), |n| n.to_string()),
            }),
        })
    })?;
    rb.verify(&out, |_, want, have| match have {
        Some(h) if h == want || h.parse::<f64>().ok().zip(want.parse::<f64>().ok()).is_some_and(|(a, b)| a == b) => {
            None
        }
        h => Some((h.map_or("(not reported)".to_string(), |h| format!("'{h}'")), format!("'{want}'"))),
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_map_to_mongod_arguments() {
        let p = |n: &str| profile_args(&Profile::builtin(n).unwrap());
        assert!(p("disk").0.is_empty() && p("async").0.is_empty() && p("ram").0.is_empty());
        assert_eq!(p("nosync").0, ["--journalCommitInterval", "500"]);
        assert_eq!(p("ram-nosync").1, [("journalCommitInterval".to_string(), "500".to_string())]);
        assert_eq!(p("unlogged").0, ["--storageEngine", "inMemory"]);
        let mut d = Profile::builtin("disk").unwrap();
        d.settings =
            vec![("wiredTigerCacheSizeGB".into(), "0.5".into()), ("setParameter.syncdelay".into(), "90".into())];
        let (args, expected) = profile_args(&d);
        assert_eq!(args, ["--wiredTigerCacheSizeGB", "0.5", "--setParameter", "syncdelay=90"]);
        assert_eq!(expected[0], ("--wiredTigerCacheSizeGB".to_string(), "0.5".to_string()));
        assert_eq!(expected[1], ("syncdelay".to_string(), "90".to_string()));
    }

    #[test]
    fn tls_asks_mongod_for_tls_only_with_the_instance_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let files = tls_files(dir.path(), None).unwrap();
        let args = tls_args(&files);
        let pem = files.cert_key.to_string_lossy().to_string();
        let ca = files.ca.to_string_lossy().to_string();
        assert_eq!(args[..2], ["--tlsMode", "requireTLS"]);
        assert_eq!(args[2..6], ["--tlsCertificateKeyFile".to_string(), pem, "--tlsCAFile".to_string(), ca]);
        assert_eq!(args[6], "--tlsAllowConnectionsWithoutCertificates");
        let both = std::fs::read_to_string(&files.cert_key).unwrap();
        assert!(both.contains("BEGIN CERTIFICATE") && both.contains("PRIVATE KEY"), "{both}");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&files.cert_key).unwrap().permissions().mode() & 0o777, 0o600);
    }
}
