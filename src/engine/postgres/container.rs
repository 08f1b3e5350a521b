//! Throwaway PostgreSQL servers as containers of an image that follows the official
//! postgres image's contract: the superuser and its password through POSTGRES_USER and
//! POSTGRES_PASSWORD, initdb's options through POSTGRES_INITDB_ARGS (SCRAM over TCP:
//! initdb trusts loopback by default, and with host networking that is the host's
//! loopback), the WAL apart through POSTGRES_INITDB_WALDIR, the settings as `-c`
//! arguments, the data in PGDATA, laid out as `kit::container::Layout` says: by default a
//! copy of a template the image's own init made once, which the entrypoint then finds
//! initialized. On the socket (`--network none`) the server listens in a bind-mounted 0700
//! directory of the instance; on TCP (`--network host`) on 127.0.0.1 of the host. Ready
//! when the real server, not the entrypoint's temporary one, answers a login.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use super::managed::SUPERUSER;
use crate::engine::Machine;
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::user::RunAs;
use crate::launcher::container::{Init, Network, TcpPath};
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

/// A started container: the server, where the superuser logs in, and what to record of
/// its storage and network.
pub struct Started {
    /// The container.
    pub server: Server,
    /// The superuser's login: on the socket's host directory, or on 127.0.0.1.
    pub login: ConnInfo,
    /// The TCP port on 127.0.0.1 of the host, when it listens there.
    pub port: Option<u16>,
    /// The mounts, where fsync was measured, how the data began (`Layout::facts`).
    pub facts: container::Facts,
    /// The container's network: none (the socket) or the host's.
    pub network: Network,
}

/// Start a container of `image` for `profile` with `settings` as -c options, listening
/// as `listen` says (on a socket in a 0700 directory of the instance, or on 127.0.0.1 of
/// the host at the port it gives), its data from the image's template or its own init as
/// `machine` says.
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
    let network = container::prepare(&dirs, user, listen, machine.docker_network)?;
    let apart = profile.wal.filter(|w| *w != profile.location);
    let template = match machine.docker_init {
        Init::Template => Some(template(launcher, image, apart.is_some(), user, machine.docker_network)?),
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
    let (password, env) = container::login(template.as_deref(), |p| init_env(p, apart.is_some()))?;
    let net = (listen, &network);
    let started = serve(launcher, image, dir.path(), user, settings, net, &mounts, &env, &password)?;
    let (port, facts) = (started.port, layout.facts(&mounts));
    Ok(Started { server: started.server, login: started.probe, port, facts, network })
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
fn template(
    launcher: &dyn Launcher,
    image: &docker::Image,
    wal_apart: bool,
    user: Option<&RunAs>,
    tcp: TcpPath,
) -> Result<PathBuf> {
    let options = if wal_apart { "waldir" } else { "" };
    container::template("postgres", image, user, options, "pgdata/PG_VERSION", |tmp| {
        let mut mounts = vec![Mount::Bind { source: private_dir(&tmp.join("pgdata"), user)?, target: PGDATA.into() }];
        if wal_apart {
            mounts.push(Mount::Bind { source: private_dir(&tmp.join("pg_wal"), user)?, target: WALDIR.into() });
        }
        let password = kit::template::new_secret(tmp)?;
        let env = init_env(&password, wal_apart);
        let net = (Listen::Tcp(None), &Network::tcp(tcp));
        let started = serve(launcher, image, tmp, user, &[], net, &mounts, &env, &password)?;
        started.server.stop(libc::SIGINT, Duration::from_secs(60))
    })
}

/// Run a container of `image` on `mounts` with `env`, its log in `dir`, listening and
/// networked as `net` says, until the real server lets the superuser in with `password`.
#[allow(clippy::too_many_arguments)]
fn serve(
    launcher: &dyn Launcher,
    image: &docker::Image,
    dir: &Path,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    (listen, network): (Listen, &Network),
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
            // Ready means the real server. The entrypoint first runs a temporary server for
            // its init with our arguments and listen_addresses='' (the official image keeps
            // our unix_socket_directories and port, so on the socket it answers where the
            // real one will). The real one listens on TCP as well, which the temporary one
            // cannot (`Network::bind`'s address); readiness reads listen_addresses back.
            c("listen_addresses", network.bind());
            let host = match network {
                Network::None { dir, target } => {
                    c("unix_socket_directories", target);
                    dir.to_string_lossy().into_owned()
                }
                Network::Host | Network::Publish(_) => "127.0.0.1".to_string(),
            };
            // Dynamic shared memory as files in the data directory: a container's /dev/shm
            // is 64 MB.
            c("dynamic_shared_memory_type", "mmap");
            for (k, v) in settings {
                c(k, v);
            }
            let container = Container {
                image: image.name.clone(),
                env: env.to_vec(),
                args,
                mounts: mounts.to_vec(),
                network: network.on(port),
            };
            let recipe = Recipe {
                server: Step::new("postgres", user),
                dir: dir.to_path_buf(),
                stop_signal: libc::SIGINT,
                death_signal: libc::SIGQUIT,
                container: Some(container),
            };
            let login = ConnInfo::plain(host, port, SUPERUSER.into(), Some(password.to_string()), "postgres".into());
            Ok((recipe, login))
        },
        |login| {
            let mut c = PgClient::connect(login, false).ok()?;
            let real = c.show("listen_addresses").is_ok_and(|a| !a.is_empty());
            real.then_some(c)
        },
        kit::start::taken(listen),
    )
}
