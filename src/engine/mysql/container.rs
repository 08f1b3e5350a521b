//! Throwaway MariaDB servers as containers of an image that follows the official mariadb
//! image's contract: root's password through MARIADB_ROOT_PASSWORD, dbrace's database
//! through MARIADB_DATABASE (and their MYSQL_* names, which the mysql image reads), the
//! settings as `--key=value` arguments (given to mariadb-install-db too, so init-time ones
//! such as the page size hold), the data in /var/lib/mysql: a tmpfs for ram, a fresh
//! directory of the disk location bind-mounted for disk, the redo log on a second mount
//! when the profile puts it apart. On the socket (`--network none`) the server listens in
//! a bind-mounted 0700 directory of the instance; on TCP (`--network host`) on 127.0.0.1
//! of the host. Ready when root logs in to the real server, not the entrypoint's
//! temporary one.

use super::client::MyClient;
use super::endpoint::Endpoint;
use super::managed::{DATABASE, first_errors, option};
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::container::Network;
use crate::launcher::{Container, Launcher, Recipe, Server, Step, docker};
use crate::profile::Profile;
use mysql_async::OptsBuilder;
use std::time::Duration;

/// The image used when `--image mysql=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "mariadb:11";
/// The data directory inside the image.
const DATADIR: &str = "/var/lib/mysql";
/// Where the redo log goes when it lives apart from the data.
const REDO: &str = "/var/lib/mysql-redo";

/// A started container: the server, root's login in dbrace's database, how its storage is
/// mounted and how it is networked (to record).
pub struct Started {
    /// The container.
    pub server: Server,
    /// Root on the socket's host directory or on 127.0.0.1, in dbrace's database.
    pub root: Endpoint,
    /// The TCP port on 127.0.0.1 of the host, when it listens there.
    pub port: Option<u16>,
    /// The mounts, described.
    pub mounts: String,
    /// The container's network: none (the socket) or the host's.
    pub network: Network,
}

/// The socket's file name in its directory.
pub const SOCKET: &str = "mysqld.sock";

/// Start a container of `image` for `profile` with `settings` as server options,
/// listening as `listen` says: on a socket in a 0700 directory of the instance, or on
/// 127.0.0.1 of the host at the port it gives.
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
    let mut mounts = vec![container::mount(profile.location, dir, "data", DATADIR, user)?];
    let apart = profile.wal.filter(|w| *w != profile.location);
    if let Some(w) = apart {
        mounts.push(container::mount(w, wal.unwrap_or(dir), "redo", REDO, user)?);
    }
    let password = random_password()?;
    // Both spellings: the mariadb image reads either, the mysql image only MYSQL_*.
    let env = vec![
        ("MARIADB_ROOT_PASSWORD".to_string(), password.clone()),
        ("MARIADB_DATABASE".to_string(), DATABASE.to_string()),
        ("MYSQL_ROOT_PASSWORD".to_string(), password.clone()),
        ("MYSQL_DATABASE".to_string(), DATABASE.to_string()),
    ];
    let described = container::described(&mounts);
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(120),
        |tcp| {
            let port = tcp.unwrap_or(3306);
            let mut args: Vec<std::ffi::OsString> = vec![
                format!("--port={port}").into(),
                "--bind-address=127.0.0.1".into(),
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
            if apart.is_some() {
                args.push(format!("--innodb-log-group-home-dir={REDO}").into());
            }
            args.extend(settings.iter().map(|(k, v)| option(k, v).into()));
            let container = Container {
                image: image.name.clone(),
                env: env.clone(),
                args,
                mounts: mounts.clone(),
                network: network.clone(),
            };
            let recipe = Recipe {
                server: Step::new("mariadbd", user),
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGKILL,
                container: Some(container),
            };
            let at = match network.socket(SOCKET) {
                Some(path) => OptsBuilder::default().socket(Some(path.to_string_lossy())),
                None => OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(port),
            };
            let root = Endpoint::new(at.user(Some("root")).pass(Some(password.clone())).db_name(Some(DATABASE)));
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
    )?;
    let port = started.port;
    Ok(Started { server: started.server, root: started.probe, port, mounts: described, network })
}
