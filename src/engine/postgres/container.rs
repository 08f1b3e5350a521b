//! Throwaway PostgreSQL servers as containers of an image that follows the official
//! postgres image's contract: the superuser and its password through POSTGRES_USER and
//! POSTGRES_PASSWORD, initdb's options through POSTGRES_INITDB_ARGS (trust on the socket,
//! in a 0700 directory; SCRAM over TCP: initdb trusts loopback by default, and with host
//! networking that is the host's loopback), the WAL apart through POSTGRES_INITDB_WALDIR,
//! the settings as `-c` arguments, the data in PGDATA: a tmpfs for ram, a fresh directory
//! of the disk location bind-mounted for disk. On the socket (`--network none`) the server
//! listens in a bind-mounted 0700 directory of the instance; on TCP (`--network host`) on
//! 127.0.0.1 of the host. Ready when the real server, not the entrypoint's temporary one,
//! answers a login.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use super::managed::SUPERUSER;
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::container::Network;
use crate::launcher::{Container, Launcher, Recipe, Server, Step, docker};
use crate::profile::Profile;
use std::time::Duration;

/// The image used when `--image postgres=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "postgres:17";
/// The data directory inside the image (its PGDATA).
const PGDATA: &str = "/var/lib/postgresql/data";
/// Where the WAL goes when it lives apart from the data.
const WALDIR: &str = "/var/lib/postgresql/wal";

/// A started container: the server, where the superuser logs in, how its storage is
/// mounted and how it is networked (to record).
pub struct Started {
    /// The container.
    pub server: Server,
    /// The superuser's login: on the socket's host directory, or on 127.0.0.1.
    pub login: ConnInfo,
    /// The TCP port on 127.0.0.1 of the host, when it listens there.
    pub port: Option<u16>,
    /// The data directory's mount, e.g. "tmpfs" or "bind /var/tmp/…".
    pub mounts: String,
    /// The container's network: none (the socket) or the host's.
    pub network: Network,
}

/// Start a container of `image` for `profile` with `settings` as -c options, listening
/// as `listen` says: on a socket in a 0700 directory of the instance, or on 127.0.0.1 of
/// the host at the port it gives.
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
    let network = container::prepare(&dirs, user, listen)?;
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
            // Ready means the real server. The entrypoint first runs a temporary server for
            // its init with our arguments and listen_addresses='' (the official image keeps
            // our unix_socket_directories and port, so on the socket it answers where the
            // real one will). The real one listens on 127.0.0.1 as well, which the temporary
            // one cannot: the host's loopback with host networking, the container's own,
            // isolated one with none; readiness reads listen_addresses back.
            c("listen_addresses", "127.0.0.1");
            let host = match &network {
                Network::None { dir, target } => {
                    c("unix_socket_directories", target);
                    dir.to_string_lossy().into_owned()
                }
                Network::Host => "127.0.0.1".to_string(),
            };
            // Dynamic shared memory as files in the data directory: a container's /dev/shm
            // is 64 MB.
            c("dynamic_shared_memory_type", "mmap");
            for (k, v) in settings {
                c(k, v);
            }
            let container = Container {
                image: image.name.clone(),
                env: env.clone(),
                args,
                mounts: mounts.clone(),
                network: network.clone(),
            };
            let recipe = Recipe {
                server: Step::new("postgres", user),
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGQUIT,
                container: Some(container),
            };
            let login = ConnInfo {
                host,
                port,
                user: SUPERUSER.into(),
                password: Some(password.clone()),
                database: "postgres".into(),
            };
            Ok((recipe, login))
        },
        |login| {
            let mut c = PgClient::connect(login, false).ok()?;
            let real = c.show("listen_addresses").is_ok_and(|a| !a.is_empty());
            real.then_some(c)
        },
        kit::start::taken(listen),
    )?;
    let port = started.port;
    Ok(Started { server: started.server, login: started.probe, port, mounts: described, network })
}
