//! Throwaway PostgreSQL servers from the machine's own binaries: initdb once into a cached
//! template, a copy of it per instance in the profile's location, `postgres` started
//! directly (not `pg_ctl -w`, which polls every 100 ms) on a unix socket in the instance's
//! 0700 directory and no TCP port, ready as soon as a connection succeeds.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use crate::engine::SqlClient;
use crate::engine::access::{Access, Listen};
use crate::engine::kit;
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::{Launcher, Recipe, Server, Step};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// The superuser initdb creates in the template.
pub const SUPERUSER: &str = "dbrace";
/// Bump when the initdb options change, so old templates are not reused.
const TEMPLATE_VERSION: u32 = 2;

/// The server binaries in use.
#[derive(Clone, Debug)]
pub struct Binaries {
    /// The directory holding postgres and initdb.
    pub dir: PathBuf,
    /// `postgres --version`'s number, e.g. 15.20.
    pub version: String,
}

/// Find the binaries: `--pg-bin`, `pg_config --bindir`, /usr/lib/postgresql/*/bin (newest),
/// then PATH.
pub fn binaries(given: Option<&Path>) -> Result<Binaries> {
    let has = |d: &Path| d.join("postgres").is_file() && d.join("initdb").is_file();
    if let Some(d) = given {
        if !has(d) {
            return Err(bad_input!("--pg-bin {}: no postgres and initdb there", d.display()));
        }
        return describe(d);
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(o) = Command::new("pg_config").arg("--bindir").output() {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|r| r.flatten().map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    debian.sort_by_key(|p| {
        let v = p.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str()).unwrap_or("0").to_string();
        std::cmp::Reverse(v.parse::<f64>().unwrap_or(0.0) as u64)
    });
    candidates.extend(debian);
    candidates.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    match candidates.iter().find(|d| has(d)) {
        Some(d) => describe(d),
        None => Err(bad_input!(
            "PostgreSQL server binaries (postgres, initdb) not found; install them (apt-get install postgresql) or pass --pg-bin DIR"
        )),
    }
}

/// Every server setting's name, from `postgres --describe-config` of the binaries found
/// (`--pg-bin` given or not; none without binaries), so that an unqualified `--set` goes
/// only to the engines that have the setting.
pub fn setting_names(given: Option<&Path>) -> Option<Vec<String>> {
    // A cache of what each binaries directory says, keyed by that directory.
    static NAMES: Mutex<BTreeMap<PathBuf, Option<Vec<String>>>> = Mutex::new(BTreeMap::new());
    let dir = binaries(given).ok()?.dir;
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    names
        .entry(dir)
        .or_insert_with_key(|dir| {
            let out = Command::new(dir.join("postgres")).arg("--describe-config").output().ok()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let names: Vec<String> = text.lines().filter_map(|l| l.split('\t').next()).map(str::to_string).collect();
            (out.status.success() && !names.is_empty()).then_some(names)
        })
        .clone()
}

fn describe(dir: &Path) -> Result<Binaries> {
    let out = Command::new(dir.join("postgres"))
        .arg("--version")
        .output()
        .map_err(|e| bad_input!("cannot run {}/postgres: {e}", dir.display()))?;
    // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().nth(2).unwrap_or("unknown").to_string();
    Ok(Binaries { dir: dir.to_path_buf(), version })
}

/// The cached template data directory for these binaries, made by initdb once.
pub fn template(launcher: &dyn Launcher, b: &Binaries, user: Option<&RunAs>) -> Result<PathBuf> {
    let key = format!("postgres {} {}", b.dir.display(), user.map_or(0, |u| u.uid));
    let name = format!("pg-{}-v{TEMPLATE_VERSION}", b.version);
    kit::template::cached(key, || {
        kit::template::install(
            launcher,
            &name,
            "PG_VERSION",
            user,
            |tmp| {
                let mut initdb = Step::new(b.dir.join("initdb"), user);
                // Trust on the socket (in a 0700 directory), SCRAM over TCP.
                initdb.arg("-D").arg(tmp).args(["-U", SUPERUSER, "-E", "UTF8", "--locale=C", "-N"]);
                initdb.args(["--auth-local=trust", "--auth-host=scram-sha-256"]);
                initdb
            },
            |out| {
                let err = String::from_utf8_lossy(&out.stderr);
                failed!("initdb failed: {}", err.lines().last().unwrap_or("").trim())
            },
        )
    })
}

/// A started server: its socket (trust, as the superuser), and its TCP port when it
/// listens there too.
pub struct Started {
    /// The server process.
    pub server: Server,
    /// Where the superuser connects, on the unix socket.
    pub socket: ConnInfo,
    /// The TCP port on 127.0.0.1, when asked for.
    pub port: Option<u16>,
}

/// Start a server on a copy of the template in `dir`, with `settings` as -c options,
/// listening on its socket and, when `listen` says so, on 127.0.0.1.
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    b: &Binaries,
    template: &Path,
    dir: &DataDir,
    wal: Option<&DataDir>,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: Listen,
) -> Result<Started> {
    if let Some(u) = user {
        std::iter::once(dir).chain(wal).try_for_each(|d| d.give_to(u))?;
    }
    let pgdata = dir.path().join("pgdata");
    // cp -a keeps the template's owner and 0700 modes, which postgres insists on.
    launcher.copy(template, &pgdata)?;
    if let Some(w) = wal {
        // pg_wal elsewhere, as initdb -X does: the directory moved, a symlink in its place.
        let moved = w.path().join("pg_wal");
        launcher.copy(&pgdata.join("pg_wal"), &moved)?;
        std::fs::remove_dir_all(pgdata.join("pg_wal"))
            .and_then(|_| std::os::unix::fs::symlink(&moved, pgdata.join("pg_wal")))
            .map_err(|e| failed!("cannot link pg_wal to {}: {e}", moved.display()))?;
        if let Some(u) = user {
            let _ = std::os::unix::fs::lchown(pgdata.join("pg_wal"), Some(u.uid), Some(u.gid));
        }
    }
    let sock = private_dir(&dir.path().join("sock"), user)?;
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(60),
        |tcp| {
            let port = tcp.unwrap_or(5432);
            let mut postgres = Step::new(b.dir.join("postgres"), user);
            postgres.arg("-D").arg(&pgdata).arg("-k").arg(&sock).arg("-p").arg(port.to_string());
            postgres.arg("-c").arg(if tcp.is_some() { "listen_addresses=127.0.0.1" } else { "listen_addresses=" });
            // Dynamic shared memory as files in the data directory: a killed server's segments
            // then go with the directory instead of piling up in /dev/shm.
            postgres.args(["-c", "dynamic_shared_memory_type=mmap"]);
            for (k, v) in settings {
                postgres.arg("-c").arg(format!("{k}={v}"));
            }
            let recipe = Recipe {
                server: postgres,
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGQUIT,
                container: None,
            };
            Ok((recipe, socket_info(&sock, port)))
        },
        |socket| PgClient::connect(socket, false).ok(),
        kit::start::taken(listen),
    )?;
    Ok(Started { server: started.server, socket: started.probe, port: started.port })
}

/// Open a started server to TCP clients as `access` says: the role (a superuser, created
/// unless it is the template's), its password (random unless given) and the database
/// (created unless it exists; `postgres` by default). Returns where those clients connect.
pub fn account(socket: &ConnInfo, port: u16, access: &Access) -> Result<ConnInfo> {
    let user = access.user.clone().unwrap_or_else(|| SUPERUSER.to_string());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => random_password()?,
    };
    let database = access.database.clone().unwrap_or_else(|| "postgres".to_string());
    // A refusal of a name the user gave is theirs to fix; of ours, a failed run.
    let refused = |what: &str, e: crate::engine::TxError| {
        if access.given() {
            bad_input!("postgres refused {what}: {e}; check --user, --password and --database")
        } else {
            failed!("cannot set up the throwaway server's {what}: {e}")
        }
    };
    let mut c = PgClient::connect(socket, false).map_err(|e| failed!("throwaway server: {e}"))?;
    let (role, secret) = (ident(&user), literal(&password));
    let sql = if user == SUPERUSER {
        format!("ALTER ROLE {role} PASSWORD {secret}")
    } else {
        format!("CREATE ROLE {role} SUPERUSER LOGIN PASSWORD {secret}")
    };
    c.batch(&sql).map_err(|e| refused("the role", e))?;
    let exists = c
        .scalar(&format!("SELECT count(*) FROM pg_database WHERE datname = {}", literal(&database)))
        .map_err(|e| refused("the database", e))?;
    if exists == 0 {
        // A file copy of template1 (two checkpoints, nothing synced with fsync off) is
        // quicker than WAL-logging every block of it, the default since 15.
        let major: u32 = c.server_version.split(['.', ' ']).next().and_then(|m| m.parse().ok()).unwrap_or(0);
        let strategy = if major >= 15 { " STRATEGY FILE_COPY" } else { "" };
        c.batch(&format!("CREATE DATABASE {} OWNER {role}{strategy}", ident(&database)))
            .map_err(|e| refused("the database", e))?;
    }
    Ok(ConnInfo::plain("127.0.0.1".into(), port, user, Some(password), database))
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
    let rules = "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n";
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

/// A quoted SQL identifier.
fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A quoted SQL string literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn socket_info(sock: &Path, port: u16) -> ConnInfo {
    ConnInfo::plain(sock.to_string_lossy().into_owned(), port, SUPERUSER.into(), None, "postgres".into())
}
