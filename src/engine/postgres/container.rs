//! Throwaway PostgreSQL servers as containers of an image that follows the official
//! postgres image's contract: the superuser and its password through POSTGRES_USER and
//! POSTGRES_PASSWORD, initdb's options through POSTGRES_INITDB_ARGS (SCRAM over TCP:
//! initdb trusts loopback by default, and with host networking that is the host's
//! loopback), the WAL apart through POSTGRES_INITDB_WALDIR, the settings as `-c`
//! arguments, the data in PGDATA: a tmpfs for ram, a fresh directory of the disk location
//! bind-mounted for disk. Ready when a login over TCP succeeds (the entrypoint's own
//! temporary server listens on no TCP port).

use super::client::PgClient;
use super::conninfo::ConnInfo;
use super::managed::SUPERUSER;
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::{Container, Launcher, Recipe, Server, Step, docker};
use crate::profile::Profile;
use std::time::Duration;

/// The image used when `--image postgres=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "postgres:17";
/// The data directory inside the image (its PGDATA).
const PGDATA: &str = "/var/lib/postgresql/data";
/// Where the WAL goes when it lives apart from the data.
const WALDIR: &str = "/var/lib/postgresql/wal";

/// A started container: the server, where the superuser logs in over TCP, and how its
/// storage is mounted (to record).
pub struct Started {
    /// The container.
    pub server: Server,
    /// The superuser's login on 127.0.0.1.
    pub login: ConnInfo,
    /// The data directory's mount, e.g. "tmpfs" or "bind /var/tmp/…".
    pub mounts: String,
}

/// Start a container of `image` for `profile` with `settings` as -c options, on
/// 127.0.0.1 at the port `listen` gives (a free one when it asks for the socket: a
/// container's socket stays inside it).
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
) -> Result<Started> {
    let dirs: Vec<&DataDir> = std::iter::once(dir).chain(wal).collect();
    let listen = container::prepare(&dirs, user, listen)?;
    let mut mounts = vec![container::mount(profile.location, dir, "pgdata", PGDATA, user)?];
    let initdb = String::from("--auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C -N");
    let mut env = Vec::new();
    if let Some(w) = profile.wal.filter(|w| *w != profile.location) {
        mounts.push(container::mount(w, wal.unwrap_or(dir), "pg_wal", WALDIR, user)?);
        // A directory below the mount point: initdb wants one it creates or finds empty.
        env.push(("POSTGRES_INITDB_WALDIR".to_string(), format!("{WALDIR}/pg_wal")));
    }
    let password = random_password()?;
    env.extend([
        ("POSTGRES_USER".to_string(), SUPERUSER.to_string()),
        ("POSTGRES_PASSWORD".to_string(), password.clone()),
        ("POSTGRES_DB".to_string(), "postgres".to_string()),
        ("POSTGRES_INITDB_ARGS".to_string(), initdb),
    ]);
    let described = container::described(&mounts);
    let started = kit::start::listening(
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
            let container = Container { image: image.name.clone(), env: env.clone(), args, mounts: mounts.clone() };
            let recipe = Recipe {
                server: Step::new("postgres", user),
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGQUIT,
                container: Some(container),
            };
            let login = ConnInfo {
                host: "127.0.0.1".into(),
                port,
                user: SUPERUSER.into(),
                password: Some(password.clone()),
                database: "postgres".into(),
            };
            Ok((recipe, login))
        },
        |login| PgClient::connect(login, false).ok(),
        kit::start::taken(listen),
    )?;
    Ok(Started { server: started.server, login: started.probe, mounts: described })
}
