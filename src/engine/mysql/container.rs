//! Throwaway MariaDB servers as containers of an image that follows the official mariadb
//! image's contract: root's password through MARIADB_ROOT_PASSWORD, dbrace's database
//! through MARIADB_DATABASE (and their MYSQL_* names, which the mysql image reads), the
//! settings as `--key=value` arguments (given to mariadb-install-db too, so init-time ones
//! such as the page size hold), the data in /var/lib/mysql: a tmpfs for ram, a fresh
//! directory of the disk location bind-mounted for disk, the redo log on a second mount
//! when the profile puts it apart. Ready when root logs in over TCP (the entrypoint's
//! temporary server has no networking).

use super::client::MyClient;
use super::endpoint::Endpoint;
use super::managed::{DATABASE, first_errors, option};
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
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

/// A started container: the server, root's login over TCP in dbrace's database, and how
/// its storage is mounted (to record).
pub struct Started {
    /// The container.
    pub server: Server,
    /// Root on 127.0.0.1, in dbrace's database.
    pub root: Endpoint,
    /// The TCP port.
    pub port: u16,
    /// The mounts, described.
    pub mounts: String,
}

/// Start a container of `image` for `profile` with `settings` as server options, on
/// 127.0.0.1 at the port `listen` gives (a free one when it asks for the socket).
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
            // No --innodb-fast-shutdown=2 as for native servers: the entrypoint passes the
            // arguments to its bootstrap too, which then leaves a data directory its
            // temporary server cannot open; a container is removed with SIGKILL anyway.
            if apart.is_some() {
                args.push(format!("--innodb-log-group-home-dir={REDO}").into());
            }
            args.extend(settings.iter().map(|(k, v)| option(k, v).into()));
            let container = Container { image: image.name.clone(), env: env.clone(), args, mounts: mounts.clone() };
            let recipe = Recipe {
                server: Step::new("mariadbd", user),
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGKILL,
                container: Some(container),
            };
            let at = OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(port).user(Some("root"));
            let root = Endpoint::new(at.pass(Some(password.clone())).db_name(Some(DATABASE)));
            Ok((recipe, root))
        },
        |root| MyClient::connect(root, false).ok(),
        |server, e| {
            let log = server.log();
            listen.taken(&log, first_errors(e, &log))
        },
    )?;
    let port = started.port.unwrap_or(3306);
    Ok(Started { server: started.server, root: started.probe, port, mounts: described })
}
