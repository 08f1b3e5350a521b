//! A MongoDB server as every launcher runs it: `mongod --auth` with its dbpath in the
//! instance directory (on the profile's location), the profile's journal settings on its
//! command line, on a unix socket in a 0700 directory or on 127.0.0.1, in TLS only with
//! `+tls` (`--tlsMode requireTLS`, a certificate from a CA made in the instance's
//! directory, which clients check). Natively no init: the first connection makes the
//! first user through the localhost exception. From an image that follows the official
//! mongo image's contract: the root user through MONGO_INITDB_ROOT_USERNAME and
//! MONGO_INITDB_ROOT_PASSWORD, made by the entrypoint's own init (a temporary mongod on
//! 127.0.0.1:27017 without authentication, never the real server's port), the data in
//! /data/db. Ready when a login succeeds on the real server's port or socket.

use super::client::{MongoClient, WriteConcern};
use super::image::IMAGE;
use super::url::Endpoint;
use super::wire::Addr;
use crate::engine::Machine;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use crate::instance::certs;
use crate::instance::user::RunAs;
use crate::launcher::{Contract, Described, Dir, File, NativeServer, Place, Spec};
use crate::profile::{Durability, Profile};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The root user the image's init makes.
const ROOT: &str = "root";
/// The TLS files `tls_files` writes in the instance directory: the CA's, the server's.
const TLS_FILES: [&str; 2] = ["ca.crt", "server.pem"];

/// A MongoDB server for a profile, with its arguments.
pub struct MongoServer {
    spec: Spec,
    machine: Machine,
    args: Vec<String>,
    /// The profile that needs the inMemory storage engine, if it does.
    in_memory: Option<String>,
}

/// Why the mongo image cannot run `profile`, if it cannot.
fn refused(profile: &Profile) -> Option<String> {
    if profile.tls {
        return Some(format!(
            "profile '{}' runs mongod with TLS, which dbrace does only with --launcher native so far; drop +tls or --tls, or use --launcher native",
            profile.name
        ));
    }
    profile.unlogged.then(|| {
        format!(
            "profile '{}' needs mongod's inMemory storage engine, which the mongo image lacks (it is MongoDB Community; inMemory is Enterprise's); use ram-nosync for a dbpath on tmpfs",
            profile.name
        )
    })
}

impl MongoServer {
    /// The server `profile` asks for on this machine, with the mongod arguments `args`;
    /// with `+tls` the instance's `tls_files` must be made before it starts.
    pub fn new(profile: &Profile, machine: &Machine, args: Vec<String>) -> MongoServer {
        let files = match profile.tls {
            true => TLS_FILES.map(|name| File { name, target: format!("/etc/dbrace/tls/{name}") }).to_vec(),
            false => Vec::new(),
        };
        let spec = Spec {
            engine: "mongo",
            user: &super::USER,
            dirs: vec![Dir {
                name: "db",
                location: profile.location,
                apart: false,
                target: IMAGE.data_dir,
                moved: None,
            }],
            files,
            image: Contract {
                image: machine.image("mongo", IMAGE.default_image).to_string(),
                program: IMAGE.programs[0],
                stop_signal: crate::platform::signal::TERM,
                template: Some((String::new(), "db/WiredTiger")),
                init_port: Some(IMAGE.port),
                refuses: refused(profile),
            },
            // mongod always listens on a port, and names its socket by it.
            port: None,
            socket_file: |port| format!("mongodb-{port}.sock"),
            // mongod shuts down cleanly on SIGINT and SIGTERM alike.
            stop_signal: crate::platform::signal::INT,
            death_signal: crate::platform::signal::TERM,
            within: Duration::from_secs(60),
        };
        MongoServer { spec, machine: machine.clone(), args, in_memory: profile.unlogged.then(|| profile.name.clone()) }
    }

    /// The server of any profile, for what does not depend on one.
    pub fn any(machine: &Machine) -> MongoServer {
        MongoServer::new(&Profile::builtin("disk").expect("disk is a built-in profile"), machine, Vec::new())
    }
}

impl Described for MongoServer {
    type Login = Endpoint;
    type Ready = MongoClient;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn native(&self) -> Result<NativeServer<'_>> {
        let b = super::binary::binary(&self.machine)?;
        if let Some(profile) = self.in_memory.as_ref().filter(|_| !b.in_memory) {
            return Err(bad_input!(
                "profile '{profile}' needs mongod's inMemory storage engine, which {} lacks (it is MongoDB Enterprise's); use ram-nosync for a dbpath on tmpfs",
                b.path.display()
            ));
        }
        Ok(NativeServer { program: b.path.clone(), version: b.version, shown: b.path, template: None })
    }

    fn native_args(&self, place: &Place) -> Result<Vec<OsString>> {
        Ok(vec!["--dbpath".into(), place.dir(0).into()])
    }

    fn args(&self, place: &Place) -> Result<Vec<OsString>> {
        let port = place.port.to_string();
        // Always --auth: a TCP listener exists either way, and only the accounts made
        // through the localhost exception (natively) or the image's init may use it.
        let binds = place.binds.join(",");
        let mut a: Vec<OsString> = ["--port", &port, "--bind_ip", &binds, "--auth"].map(OsString::from).to_vec();
        if place.binds.iter().any(|b| b.contains(':')) {
            a.push("--ipv6".into());
        }
        match (&place.socket_dir, place.tcp) {
            (Some(dir), false) => {
                a.extend(["--unixSocketPrefix".into(), dir.into(), "--filePermissions".into(), "0700".into()])
            }
            _ => a.push("--nounixsocket".into()),
        }
        if let [ca, cert_key] = &place.files[..] {
            a.extend(
                tls_args(&TlsFiles { ca: ca.clone(), cert_key: cert_key.clone() }).into_iter().map(OsString::from),
            );
        }
        a.extend(self.args.iter().map(OsString::from));
        Ok(a)
    }

    fn login(&self, place: &Place) -> Endpoint {
        let file = (self.spec.socket_file)(place.port);
        let addr = match place.client_socket(&file) {
            Some(path) if !place.tcp => Addr::Unix(path),
            _ => Addr::Tcp("127.0.0.1".into(), place.port),
        };
        let mut ep = endpoint(addr, place.password.as_ref().map(|_| ROOT.to_string()));
        ep.password = place.password.clone();
        if !self.spec.files.is_empty() {
            ep.tls = Some(Tls::new(Mode::VerifyFull, Some(place.host.join(TLS_FILES[0])), None));
        }
        ep
    }

    fn ready(&self, login: &Endpoint, _place: &Place) -> Option<MongoClient> {
        MongoClient::connect(login, "admin", WriteConcern { journal: false }).ok()
    }

    fn init_env(&self, password: &str) -> Vec<(String, String)> {
        IMAGE.account.init(ROOT, password, None)
    }

    /// An image whose server has no unix socket (SecantusDB's) says so in its log.
    fn failed(&self, log: &str, e: crate::error::Error) -> crate::error::Error {
        match log.lines().rev().find(|l| l.contains("no unix socket")) {
            Some(l) => bad_input!(
                "{}'s server cannot listen on a unix socket ({}); run it with --transport tcp",
                self.spec.image.image,
                l.split_once(".log: ").map_or(l, |(_, r)| r).trim()
            ),
            None => e,
        }
    }

    /// Where the data really is, and the binary that ran it.
    fn noted_natively(&self, native: &NativeServer, dirs: &[PathBuf]) -> Vec<(String, String)> {
        vec![
            ("dir_filesystem".to_string(), crate::instance::location::fs_type(&dirs[0])),
            ("binary".to_string(), native.program.display().to_string()),
            ("binary_version".to_string(), native.version.clone()),
        ]
    }
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

/// A throwaway server's TLS files: the CA's certificate, and the server's certificate
/// and key in one PEM, as mongod's `--tlsCertificateKeyFile` takes them.
pub struct TlsFiles {
    /// The CA's certificate: what clients trust.
    pub ca: PathBuf,
    /// The server's certificate and key.
    pub cert_key: PathBuf,
}

/// Make a CA and the server's certificate in `dir`, readable by the server's `user` only.
pub fn tls_files(dir: &Path, user: Option<&RunAs>) -> Result<TlsFiles> {
    let c = certs::make(dir, user)?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| failed!("cannot read {}: {e}", p.display()));
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
        assert_eq!(crate::platform::files::mode(&std::fs::metadata(&files.cert_key).unwrap()) & 0o777, 0o600);
    }
}
