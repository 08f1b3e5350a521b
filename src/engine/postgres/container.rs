//! Throwaway PostgreSQL servers as containers of an image that follows the official
//! postgres image's contract: the superuser and its password through POSTGRES_USER and
//! POSTGRES_PASSWORD, initdb's options through POSTGRES_INITDB_ARGS (SCRAM over TCP:
//! initdb trusts loopback by default, and with host networking that is the host's
//! loopback), the WAL apart through POSTGRES_INITDB_WALDIR, the settings as `-c`
//! arguments, the data in PGDATA, laid out as `kit::container::Layout` says: by default a
//! copy of a template the image's own init made once, which the entrypoint then finds
//! initialized. Ready when a login over TCP succeeds (the entrypoint's own temporary
//! server listens on no TCP port).

use super::client::PgClient;
use super::conninfo::ConnInfo;
use super::managed::SUPERUSER;
use crate::engine::Machine;
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::container::Init;
use crate::launcher::{Container, Launcher, Mount, Recipe, Server, Step, docker};
use crate::profile::Profile;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The image used when `--image postgres=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "postgres:17";
/// The data directory inside the image (its PGDATA).
const PGDATA: &str = "/var/lib/postgresql/data";
/// Where the WAL goes when it lives apart from the data.
const WALDIR: &str = "/var/lib/postgresql/wal";

/// A started container: the server, where the superuser logs in over TCP, and what to
/// record of its storage.
pub struct Started {
    /// The container.
    pub server: Server,
    /// The superuser's login on 127.0.0.1.
    pub login: ConnInfo,
    /// The mounts, where fsync was measured, how the data began (`Layout::facts`).
    pub facts: container::Facts,
}

/// Start a container of `image` for `profile` with `settings` as -c options, on
/// 127.0.0.1 at the port `listen` gives (a free one when it asks for the socket: a
/// container's socket stays inside it), its data from the image's template or its own
/// init as `machine` says.
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    image: &docker::Image,
    profile: &Profile,
    dir: &DataDir,
    wal: Option<&DataDir>,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: Listen,
    machine: &Machine,
) -> Result<Started> {
    let dirs: Vec<&DataDir> = std::iter::once(dir).chain(wal).collect();
    let listen = container::prepare(&dirs, user, listen)?;
    let apart = profile.wal.filter(|w| *w != profile.location);
    let template = match machine.docker_init {
        Init::Template => Some(template(launcher, image, apart.is_some(), user)?),
        Init::Fresh => None,
    };
    let mut layout = container::Layout::new(machine, image, user, template.as_deref());
    let mut mounts = vec![layout.mount(profile.location, dir, "pgdata", PGDATA)?];
    if let Some(w) = apart {
        mounts.push(layout.mount(w, wal.unwrap_or(dir), "pg_wal", WALDIR)?);
    }
    // An initialized data directory needs no password from the environment: its
    // superuser already has the template's (and `managed::account` gives each server a
    // fresh one once it is up).
    let (password, env) = match &template {
        Some(t) => (kit::template::secret(t)?, Vec::new()),
        None => {
            let password = random_password()?;
            let env = init_env(&password, apart.is_some());
            (password, env)
        }
    };
    let started = serve(launcher, image, dir.path(), user, settings, listen, &mounts, &env, &password)?;
    Ok(Started { server: started.server, login: started.probe, facts: layout.facts(&mounts) })
}

/// The image contract's variables that initialize an empty data directory: the
/// superuser and its password, initdb's options, the WAL apart when it is.
fn init_env(password: &str, wal_apart: bool) -> Vec<(String, String)> {
    let initdb = "--auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C -N";
    let mut env = Vec::new();
    if wal_apart {
        // A directory below the mount point: initdb wants one it creates or finds empty.
        env.push(("POSTGRES_INITDB_WALDIR".to_string(), format!("{WALDIR}/pg_wal")));
    }
    env.extend([
        ("POSTGRES_USER".to_string(), SUPERUSER.to_string()),
        ("POSTGRES_PASSWORD".to_string(), password.to_string()),
        ("POSTGRES_DB".to_string(), "postgres".to_string()),
        ("POSTGRES_INITDB_ARGS".to_string(), initdb.to_string()),
    ]);
    env
}

/// The initialized template of `image` for containers run as `user` (with the WAL in a
/// directory of its own when `wal_apart`, as POSTGRES_INITDB_WALDIR lays it out): made
/// once by a container of the image on empty directories, stopped once it serves.
///
/// The superuser's password that init set is kept in the template's 0600 file, not
/// changed per server before it is used: a server must be logged into with it before it
/// could be changed, so it is stored either way, and the file is as private as the
/// template's data files beside it (whoever could read it could copy those). Each server
/// still gets a fresh superuser password from `managed::account` once it is up.
fn template(launcher: &dyn Launcher, image: &docker::Image, wal_apart: bool, user: Option<&RunAs>) -> Result<PathBuf> {
    let options = if wal_apart { "waldir" } else { "" };
    container::template("postgres", image, user, options, "pgdata/PG_VERSION", |tmp| {
        let mut mounts = vec![Mount::Bind { source: private_dir(&tmp.join("pgdata"), user)?, target: PGDATA.into() }];
        if wal_apart {
            mounts.push(Mount::Bind { source: private_dir(&tmp.join("pg_wal"), user)?, target: WALDIR.into() });
        }
        let password = random_password()?;
        kit::template::keep_secret(tmp, &password)?;
        let env = init_env(&password, wal_apart);
        let started = serve(launcher, image, tmp, user, &[], Listen::Tcp(None), &mounts, &env, &password)?;
        started.server.stop(libc::SIGINT, Duration::from_secs(60))
    })
}

/// Run a container of `image` on `mounts` with `env`, its log in `dir`, until the
/// superuser logs in with `password` over TCP.
#[allow(clippy::too_many_arguments)]
fn serve(
    launcher: &dyn Launcher,
    image: &docker::Image,
    dir: &Path,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: Listen,
    mounts: &[Mount],
    env: &[(String, String)],
    password: &str,
) -> Result<kit::start::Started<ConnInfo, PgClient>> {
    kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(120),
        |tcp| {
            let port = tcp.unwrap_or(5432);
            let mut args: Vec<std::ffi::OsString> = Vec::new();
            let mut c = |k: &str, v: &str| {
                args.push("-c".into());
                args.push(format!("{k}={v}").into());
            };
            c("port", &port.to_string());
            c("listen_addresses", "127.0.0.1");
            // Dynamic shared memory as files in the data directory: a container's /dev/shm
            // is 64 MB.
            c("dynamic_shared_memory_type", "mmap");
            for (k, v) in settings {
                c(k, v);
            }
            let container = Container { image: image.name.clone(), env: env.to_vec(), args, mounts: mounts.to_vec() };
            let recipe = Recipe {
                server: Step::new("postgres", user),
                dir: dir.to_path_buf(),
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGQUIT,
                container: Some(container),
            };
            let login = ConnInfo {
                host: "127.0.0.1".into(),
                port,
                user: SUPERUSER.into(),
                password: Some(password.to_string()),
                database: "postgres".into(),
            };
            Ok((recipe, login))
        },
        |login| PgClient::connect(login, false).ok(),
        kit::start::taken(listen),
    )
}
