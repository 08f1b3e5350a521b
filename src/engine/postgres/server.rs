//! A PostgreSQL server as every launcher runs it. Natively: initdb once into a cached
//! template (trust on the socket, SCRAM over TCP), a copy of it per instance, `postgres`
//! started directly (not `pg_ctl -w`, which polls every 100 ms). From an image that
//! follows the official postgres image's contract: the superuser and its password through
//! POSTGRES_USER and POSTGRES_PASSWORD, initdb's options through POSTGRES_INITDB_ARGS, the
//! WAL apart through POSTGRES_INITDB_WALDIR, the data in PGDATA. Either way the settings
//! are `-c` arguments, and the server is ready when a login finds it listening where it
//! was told to: the image's temporary init server listens on no TCP address at all.

use super::USER;
use super::client::PgClient;
use super::conninfo::ConnInfo;
use crate::engine::Machine;
use crate::error::Result;
use crate::instance::user::RunAs;
use crate::launcher::{Contract, Described, Dir, File, Moved, NativeServer, NativeTemplate, Place, Spec, Step};
use crate::profile::Profile;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The superuser initdb creates in the template.
pub const SUPERUSER: &str = "dbrace";
/// Bump when the initdb options change, so old native templates are not reused.
const TEMPLATE_VERSION: u32 = 2;
/// The image's terms, its data directory (PGDATA) among them.
use super::image::IMAGE;
/// Where the WAL goes inside the image when it lives apart from the data.
const WALDIR: &str = "/var/lib/postgresql/wal";
/// initdb's options, natively and through the image's init alike.
const INITDB: [&str; 6] = ["--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "-N"];

/// A PostgreSQL server for a profile, with its settings.
pub struct PgServer {
    spec: Spec,
    bin_dir: Option<PathBuf>,
    settings: Vec<(String, String)>,
}

impl PgServer {
    /// The server `profile` asks for on this machine, run with `settings` (`-c`).
    pub fn new(profile: &Profile, machine: &Machine, settings: Vec<(String, String)>) -> PgServer {
        let mut dirs =
            vec![Dir { name: "pgdata", location: profile.location, apart: false, target: IMAGE.data_dir, moved: None }];
        if let Some(w) = profile.wal.filter(|w| *w != profile.location) {
            let moved = Some(Moved { from: "pg_wal", link: true });
            dirs.push(Dir { name: "pg_wal", location: w, apart: true, target: WALDIR, moved });
        }
        let apart = dirs.len() > 1;
        let spec = Spec {
            engine: super::NAME,
            user: &USER,
            dirs,
            files: Vec::<File>::new(),
            image: Contract {
                image: machine.image(super::NAME, IMAGE.default_image).to_string(),
                program: IMAGE.programs[0],
                stop_signal: crate::platform::signal::INT,
                template: Some((if apart { "waldir" } else { "" }.to_string(), "pgdata/PG_VERSION")),
                init_port: None,
                refuses: profile.tls.then(|| {
                    format!(
                        "profile '{}': postgres runs with TLS on the native launcher only; drop +tls (or --tls), or use --launcher native",
                        profile.name
                    )
                }),
            },
            port: Some(IMAGE.port),
            socket_file: |port| format!(".s.PGSQL.{port}"),
            stop_signal: crate::platform::signal::INT,
            death_signal: crate::platform::signal::QUIT,
            within: Duration::from_secs(60),
        };
        PgServer { spec, bin_dir: machine.bin_dir(super::NAME).map(Path::to_path_buf), settings }
    }

    /// The server of any profile, for what does not depend on one (its version, whether
    /// it can start here).
    pub fn any(machine: &Machine) -> PgServer {
        PgServer::new(&Profile::builtin("disk").expect("disk is a built-in profile"), machine, Vec::new())
    }
}

/// The addresses a server listens on at `place`: none on the machine's socket alone; in a
/// container always its own (its loopback, isolated, when it has no network), so that a
/// login can tell it from the image's temporary init server, which listens on none.
fn listen_addresses(place: &Place) -> String {
    if place.networked { place.binds.join(",") } else { String::new() }
}

impl Described for PgServer {
    type Login = ConnInfo;
    type Ready = PgClient;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn native(&self) -> Result<NativeServer<'_>> {
        let b = super::binaries::binaries(self.bin_dir.as_deref())?;
        let initdb = b.dir.join("initdb");
        let template = NativeTemplate {
            name: format!("pg-{}-v{TEMPLATE_VERSION}", b.version),
            done: "PG_VERSION",
            init: Box::new(move |tmp: &Path, user: Option<&RunAs>| {
                let mut step = Step::new(&initdb, user);
                step.arg("-D").arg(tmp).args(["-U", SUPERUSER]).args(INITDB);
                step
            }),
            failed: Box::new(|out| {
                let err = String::from_utf8_lossy(&out.stderr);
                failed!("initdb failed: {}", err.lines().last().unwrap_or("").trim())
            }),
        };
        Ok(NativeServer { program: b.dir.join("postgres"), version: b.version, shown: b.dir, template: Some(template) })
    }

    fn native_args(&self, place: &Place) -> Result<Vec<OsString>> {
        Ok(vec!["-D".into(), place.dir(0).into()])
    }

    fn args(&self, place: &Place) -> Result<Vec<OsString>> {
        let mut args: Vec<OsString> = Vec::new();
        let mut c = |k: &str, v: &str| args.extend(["-c".into(), format!("{k}={v}").into()]);
        c("port", &place.port.to_string());
        c("listen_addresses", &listen_addresses(place));
        if let Some(dir) = &place.socket_dir {
            c("unix_socket_directories", &dir.to_string_lossy());
        }
        // Dynamic shared memory as files in the data directory: a killed server's segments
        // then go with the directory, and a container's /dev/shm is 64 MB.
        c("dynamic_shared_memory_type", "mmap");
        for (k, v) in &self.settings {
            c(k, v);
        }
        Ok(args)
    }

    fn login(&self, place: &Place) -> ConnInfo {
        let host = match &place.client_socket_dir {
            Some(dir) => dir.to_string_lossy().into_owned(),
            None => "127.0.0.1".to_string(),
        };
        ConnInfo::plain(host, place.port, SUPERUSER.into(), place.password.clone(), "postgres".into())
    }

    fn ready(&self, login: &ConnInfo, place: &Place) -> Option<PgClient> {
        let mut c = PgClient::connect(login, false).ok()?;
        let real = c.show("listen_addresses").is_ok_and(|a| a == listen_addresses(place));
        real.then_some(c)
    }

    fn init_env(&self, password: &str) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if self.spec.dirs.len() > 1 {
            // A directory below the mount point: initdb wants one it creates or finds empty.
            env.push(("POSTGRES_INITDB_WALDIR".to_string(), format!("{WALDIR}/pg_wal")));
        }
        env.extend(IMAGE.account.init(SUPERUSER, password, Some("postgres")));
        env.push(("POSTGRES_INITDB_ARGS".to_string(), INITDB.join(" ")));
        env
    }

    /// Where the WAL really is: no setting says so, the filesystem does.
    fn noted_natively(&self, _native: &NativeServer, dirs: &[PathBuf]) -> Vec<(String, String)> {
        let Ok(real) = std::fs::canonicalize(dirs[0].join("pg_wal")) else { return Vec::new() };
        let fs = crate::instance::location::fs_type(&real);
        vec![("pg_wal".into(), format!("{} ({fs})", real.display()))]
    }
}

/// What a server with TLS (`+tls`) needs: a throwaway CA and server certificate in the
/// instance's directory `dir`, and a pg_hba.conf that takes TCP clients over TLS only;
/// returns the settings that point the server at them and the CA's file, which its
/// clients trust.
pub fn with_tls(dir: &Path, user: Option<&RunAs>) -> Result<(Vec<(String, String)>, PathBuf)> {
    let certs = crate::instance::certs::make(dir, user)?;
    let hba = dir.join("pg_hba.conf");
    // The socket (in a 0700 directory) trusts, as the template's; TCP is hostssl only, so
    // a client that does not ask for TLS is refused rather than served in plain text.
    let rules =
        "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\nhostssl all all ::1/128 scram-sha-256\n";
    crate::instance::datadir::write_private(&hba, rules, user)?;
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let settings = vec![
        ("ssl".to_string(), "on".to_string()),
        ("ssl_cert_file".to_string(), path(&certs.cert)),
        ("ssl_key_file".to_string(), path(&certs.key)),
        ("hba_file".to_string(), path(&hba)),
    ];
    Ok((settings, certs.ca))
}
