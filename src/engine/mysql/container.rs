//! Throwaway MariaDB servers as containers of an image that follows the official mariadb
//! image's contract: root's password through MARIADB_ROOT_PASSWORD, dbrace's database
//! through MARIADB_DATABASE (and their MYSQL_* names, which the mysql image reads), the
//! settings as `--key=value` arguments (given to mariadb-install-db too, so init-time ones
//! such as the page size hold), the data in /var/lib/mysql laid out as
//! `kit::container::Layout` says (by default a copy of a template the image's own init
//! made once, which the entrypoint then finds initialized), the redo log on a second
//! mount when the profile puts it apart. On the socket (`--network none`) the server
//! listens in a bind-mounted 0700 directory of the instance; on TCP (`--network host`) on
//! 127.0.0.1 of the host. Ready when root logs in to the real server, not the
//! entrypoint's temporary one.

use super::client::MyClient;
use super::endpoint::Endpoint;
use super::managed::{DATABASE, first_errors, init_options, option};
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
use mysql_async::OptsBuilder;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The image used when `--image mysql=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "mariadb:11";
/// The data directory inside the image.
const DATADIR: &str = "/var/lib/mysql";
/// Where the redo log goes when it lives apart from the data.
const REDO: &str = "/var/lib/mysql-redo";

/// A started container: the server, root's login in dbrace's database, and what to record
/// of its storage and network.
pub struct Started {
    /// The container.
    pub server: Server,
    /// Root on the socket's host directory or on 127.0.0.1, in dbrace's database.
    pub root: Endpoint,
    /// The TCP port on 127.0.0.1 of the host, when it listens there.
    pub port: Option<u16>,
    /// The mounts, where fsync was measured, how the data began (`Layout::facts`).
    pub facts: container::Facts,
    /// The container's network: none (the socket) or the host's.
    pub network: Network,
}

/// The socket's file name in its directory.
pub const SOCKET: &str = "mysqld.sock";

/// Start a container of `image` for `profile` with `settings` as server options,
/// listening as `listen` says (on a socket in a 0700 directory of the instance, or on
/// 127.0.0.1 of the host at the port it gives), its data from the image's template or its
/// own init as `machine` says.
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
    // The options that shape a data directory (the page size, …) are the template's too.
    let init = init_options(settings);
    let template = match machine.docker_init {
        Init::Template => Some(template(launcher, image, apart.is_some(), &init, user, machine.docker_network)?),
        Init::Fresh => None,
    };
    let mut layout = container::Layout::new(machine, image, user, template.as_deref());
    let mut mounts = vec![layout.mount(profile.location, dir, "data", DATADIR)?];
    if let Some(w) = apart {
        mounts.push(layout.mount(w, wal.unwrap_or(dir), "redo", REDO)?);
    }
    // An initialized data directory needs no password from the environment: root
    // already has the template's.
    let (password, env) = container::login(template.as_deref(), init_env)?;
    let mut args: Vec<OsString> = settings.iter().map(|(k, v)| option(k, v).into()).collect();
    if apart.is_some() {
        args.insert(0, format!("--innodb-log-group-home-dir={REDO}").into());
    }
    let net = (listen, &network);
    let started = serve(launcher, image, dir.path(), user, &args, net, &mounts, &env, &password)?;
    let (port, facts) = (started.port, layout.facts(&mounts));
    Ok(Started { server: started.server, root: started.probe, port, facts, network })
}

/// The image contract's variables that initialize an empty data directory: root's
/// password and dbrace's database, in both spellings (the mariadb image reads either,
/// the mysql image only MYSQL_*).
fn init_env(password: &str) -> Vec<(String, String)> {
    vec![
        ("MARIADB_ROOT_PASSWORD".to_string(), password.to_string()),
        ("MARIADB_DATABASE".to_string(), DATABASE.to_string()),
        ("MYSQL_ROOT_PASSWORD".to_string(), password.to_string()),
        ("MYSQL_DATABASE".to_string(), DATABASE.to_string()),
    ]
}

/// The initialized template of `image` for containers run as `user`, with the redo log
/// in a directory of its own when `redo_apart` and the data-shaping options `init`: made
/// once by a container of the image on empty directories, stopped once it serves.
///
/// Root's password that init set is kept in the template's 0600 file rather than
/// changed per server: a server must be logged into with it before it could be changed,
/// so it is stored either way, and the file is as private as the template's data files
/// beside it (whoever could read it could copy those). Clients log in as the account
/// `managed::account` makes per server with a fresh password.
fn template(
    launcher: &dyn Launcher,
    image: &docker::Image,
    redo_apart: bool,
    init: &[String],
    user: Option<&RunAs>,
    tcp: TcpPath,
) -> Result<PathBuf> {
    let mut options: Vec<&str> = init.iter().map(|o| o.trim_start_matches('-')).collect();
    if redo_apart {
        options.insert(0, "redo");
    }
    container::template("mysql", image, user, &options.join("-"), "data/mysql", |tmp| {
        let mut mounts = vec![Mount::Bind { source: private_dir(&tmp.join("data"), user)?, target: DATADIR.into() }];
        let mut args: Vec<OsString> = init.iter().map(OsString::from).collect();
        if redo_apart {
            mounts.push(Mount::Bind { source: private_dir(&tmp.join("redo"), user)?, target: REDO.into() });
            args.insert(0, format!("--innodb-log-group-home-dir={REDO}").into());
        }
        let password = kit::template::new_secret(tmp)?;
        let env = init_env(&password);
        let net = (Listen::Tcp(None), &Network::tcp(tcp));
        let started = serve(launcher, image, tmp, user, &args, net, &mounts, &env, &password)?;
        started.server.stop(libc::SIGTERM, Duration::from_secs(60))
    })
}

/// Run a container of `image` on `mounts` with `env` and the server options `options`,
/// its log in `dir`, listening and networked as `net` says, until root logs in to the real
/// server with `password`.
#[allow(clippy::too_many_arguments)]
fn serve(
    launcher: &dyn Launcher,
    image: &docker::Image,
    dir: &Path,
    user: Option<&RunAs>,
    options: &[OsString],
    (listen, network): (Listen, &Network),
    mounts: &[Mount],
    env: &[(String, String)],
    password: &str,
) -> Result<kit::start::Started<Endpoint, MyClient>> {
    kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(120),
        |tcp| {
            let port = tcp.unwrap_or(3306);
            let mut args: Vec<OsString> = vec![
                format!("--port={port}").into(),
                format!("--bind-address={}", network.bind()).into(),
                "--skip-name-resolve".into(),
                // MySQL's X plugin would listen on every address; MariaDB has none (loose:
                // an unknown option is a warning, not an error).
                "--loose-mysqlx=OFF".into(),
            ];
            // Ready means the real server. The entrypoint first runs a temporary server for
            // its init with our arguments, --skip-networking and our --socket (the socket
            // of the options given): on the socket it answers where the real one will. The
            // real one has networking (on the host's loopback with host networking, the
            // container's own, isolated one with none); readiness reads it back.
            if let Some(inside) = network.inside(SOCKET) {
                args.push(format!("--socket={inside}").into());
            }
            // No --innodb-fast-shutdown=2 as for native servers: the entrypoint passes the
            // arguments to its bootstrap too, which then leaves a data directory its
            // temporary server cannot open; a container is removed with SIGKILL anyway.
            args.extend(options.iter().cloned());
            let container = Container {
                image: image.name.clone(),
                env: env.to_vec(),
                args,
                mounts: mounts.to_vec(),
                network: network.on(port),
            };
            let recipe = Recipe {
                server: Step::new("mariadbd", user),
                dir: dir.to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGKILL,
                container: Some(container),
            };
            let at = match network.socket(SOCKET) {
                Some(path) => OptsBuilder::default().socket(Some(path.to_string_lossy())),
                None => OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(port),
            };
            let root = Endpoint::new(at.user(Some("root")).pass(Some(password.to_string())).db_name(Some(DATABASE)));
            Ok((recipe, root))
        },
        |root| {
            let mut c = MyClient::connect(root, false).ok()?;
            let real = c.value("SELECT @@skip_networking").is_ok_and(|v| v.as_deref() == Some("0"));
            real.then_some(c)
        },
        |server, e| {
            let log = server.log();
            listen.taken(&log, first_errors(e, &log))
        },
    )
}
