//! Throwaway MongoDB servers as containers of an image that follows the official mongo
//! image's contract: the root user through MONGO_INITDB_ROOT_USERNAME and
//! MONGO_INITDB_ROOT_PASSWORD (made by the entrypoint's own init, a temporary mongod on
//! 127.0.0.1:27017 without authentication), `mongod` options as arguments after the image,
//! the data in /data/db laid out as `kit::container::Layout` says (by default a copy of a
//! template the image's own init made once, so no cell waits for it). On the socket
//! (`--network none`) mongod listens in a bind-mounted 0700 directory of the instance
//! (`--unixSocketPrefix`); on TCP (`--network host`) on 127.0.0.1 of the host at a free
//! port. Ready when root logs in with SCRAM on the real server's port or socket, which
//! the temporary server never has.

use super::client::{MongoClient, WriteConcern};
use super::managed::endpoint;
use super::url::Endpoint;
use super::wire::Addr;
use crate::engine::Machine;
use crate::engine::access::Listen;
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::server;
use crate::instance::user::RunAs;
use crate::launcher::container::{Init, Network, TcpPath};
use crate::launcher::{Container, Launcher, Mount, Recipe, Server, Step, docker};
use crate::profile::Profile;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The image used when `--image mongo=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "mongo:8";
/// The data directory inside the image.
const DBPATH: &str = "/data/db";
/// The root user the image's init makes.
const ROOT: &str = "root";
/// Where the image's init runs its temporary server: never the real server's port, so a
/// login that works there is a login to the real one.
const INIT_PORT: u16 = 27017;

/// A started container: the server, root's login, and what to record of it.
pub struct Started {
    /// The container.
    pub server: Server,
    /// Root on the socket's host path or on 127.0.0.1, its database admin.
    pub root: Endpoint,
    /// The mounts, where fsync was measured, how the data began (`Layout::facts`).
    pub facts: container::Facts,
    /// The container's network: none (the socket) or the host's.
    pub network: Network,
    /// The socket's file name in its directory (mongod names it by the port).
    pub socket: String,
}

/// Start a container of `image` for `profile` with the mongod arguments `args`, listening
/// as `listen` says, its data from the image's template or its own init as `machine` says.
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    image: &docker::Image,
    profile: &Profile,
    dir: &DataDir,
    user: Option<&RunAs>,
    args: &[String],
    listen: Listen,
    machine: &Machine,
) -> Result<Started> {
    let network = container::prepare(&[dir], user, listen, machine.docker_network)?;
    let template = match machine.docker_init {
        Init::Template => Some(template(launcher, image, user, machine.docker_network)?),
        Init::Fresh => None,
    };
    let mut layout = container::Layout::new(machine, image, user, template.as_deref());
    let mounts = vec![layout.mount(profile.location, dir, "db", DBPATH)?];
    // An initialized dbpath needs no variables: root already has the template's password.
    let (password, env) = container::login(template.as_deref(), init_env)?;
    let net = (listen, &network);
    let (started, socket) = serve(launcher, image, dir.path(), user, args, net, &mounts, &env, &password)?;
    let facts = layout.facts(&mounts);
    Ok(Started { server: started.server, root: started.probe, facts, network, socket })
}

/// The image contract's variables that make the root user on an empty dbpath.
fn init_env(password: &str) -> Vec<(String, String)> {
    vec![
        ("MONGO_INITDB_ROOT_USERNAME".to_string(), ROOT.to_string()),
        ("MONGO_INITDB_ROOT_PASSWORD".to_string(), password.to_string()),
    ]
}

/// The initialized dbpath of `image` for containers run as `user`: made once by a
/// container of the image on an empty directory, stopped once root logs in. Root's
/// password is kept in the template's 0600 file, as for MariaDB's template; clients log
/// in as an account made per server with a fresh password.
fn template(launcher: &dyn Launcher, image: &docker::Image, user: Option<&RunAs>, tcp: TcpPath) -> Result<PathBuf> {
    container::template("mongo", image, user, "", "db/WiredTiger", |tmp| {
        let mounts = vec![Mount::Bind { source: private_dir(&tmp.join("db"), user)?, target: DBPATH.into() }];
        let password = kit::template::new_secret(tmp)?;
        let net = (Listen::Tcp(None), &Network::tcp(tcp));
        let (started, _) = serve(launcher, image, tmp, user, &[], net, &mounts, &init_env(&password), &password)?;
        started.server.stop(libc::SIGTERM, Duration::from_secs(60))
    })
}

/// Under host networking the image's init runs its temporary server on 127.0.0.1:27017
/// of the host itself: so one init at a time among dbrace's processes (two would share
/// one temporary server, and the second's createUser fail), held until the real server
/// is ready, and none while anything else listens there (it would be sent the init's
/// root user). Nothing to wait for without an init (a template) or off the host's network.
fn init_turn(network: &Network, env: &[(String, String)]) -> Result<Option<std::fs::File>> {
    if *network != Network::Host || env.is_empty() {
        return Ok(None);
    }
    let path = crate::instance::location::shared_dir()?.join("mongo-init.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| failed!("cannot open {}: {e}", path.display()))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    // SAFETY: flock on a descriptor this function owns.
    while unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        crate::signals::check()?;
        if std::time::Instant::now() > deadline {
            return Err(failed!("another dbrace's mongo init held {} for 300 s", path.display()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Err(e) = std::net::TcpListener::bind(("127.0.0.1", INIT_PORT)) {
        return Err(bad_input!(
            "127.0.0.1:{INIT_PORT} is taken ({e}), and under host networking the mongo image's init runs its temporary server there, where it would create its root user on whatever listens; stop that server, or start from a template (--docker-init template, once made) or on the socket (--transport socket)"
        ));
    }
    Ok(Some(file))
}

/// Run a container of `image` on `mounts` with `env` and the mongod arguments `options`,
/// its log in `dir`, listening and networked as `net` says, until root logs in to the real
/// server with `password`. Also returns the socket's file name.
#[allow(clippy::too_many_arguments)]
fn serve(
    launcher: &dyn Launcher,
    image: &docker::Image,
    dir: &Path,
    user: Option<&RunAs>,
    options: &[String],
    (listen, network): (Listen, &Network),
    mounts: &[Mount],
    env: &[(String, String)],
    password: &str,
) -> Result<(kit::start::Started<Endpoint, MongoClient>, String)> {
    let _turn = init_turn(network, env)?;
    let mut socket = String::new();
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(120),
        |tcp| {
            // mongod always listens on a port; on the socket path it is the container's
            // own loopback (no network), and names the socket mongodb-PORT.sock.
            let port = match tcp {
                Some(p) => p,
                None => server::free_port()?,
            };
            if port == INIT_PORT {
                return Err(bad_input!(
                    "port {INIT_PORT} is where the mongo image's init runs its temporary server; choose another --port"
                ));
            }
            let mut args: Vec<OsString> =
                ["--port", &port.to_string(), "--bind_ip", network.bind(), "--auth"].map(OsString::from).to_vec();
            socket = format!("mongodb-{port}.sock");
            let addr = match (network.socket(&socket), network.inside("")) {
                (Some(host), Some(inside)) => {
                    let inside = inside.trim_end_matches('/').to_string();
                    args.extend([
                        "--unixSocketPrefix".into(),
                        inside.into(),
                        "--filePermissions".into(),
                        "0700".into(),
                    ]);
                    Addr::Unix(host)
                }
                _ => {
                    args.push("--nounixsocket".into());
                    Addr::Tcp("127.0.0.1".into(), port)
                }
            };
            args.extend(options.iter().map(OsString::from));
            let container = Container {
                image: image.name.clone(),
                env: env.to_vec(),
                args,
                mounts: mounts.to_vec(),
                network: network.on(port),
            };
            let recipe = Recipe {
                server: Step::new("mongod", user),
                dir: dir.to_path_buf(),
                // mongod shuts down cleanly on SIGTERM.
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGKILL,
                container: Some(container),
            };
            let mut root = endpoint(addr, Some(ROOT.to_string()));
            root.password = Some(password.to_string());
            Ok((recipe, root))
        },
        |root| MongoClient::connect(root, "admin", WriteConcern { journal: false }).ok(),
        |server, e| {
            let log = server.log_tail();
            // An image whose server has no unix socket (SecantusDB's) says so in its log.
            let said = log.lines().rev().find(|l| l.contains("no unix socket"));
            let e = match said {
                Some(l) => bad_input!(
                    "{}'s server cannot listen on a unix socket ({}); run it with --transport tcp",
                    image.name,
                    l.split_once(".log: ").map_or(l, |(_, r)| r).trim()
                ),
                None => e,
            };
            listen.taken(&log, e)
        },
    )?;
    Ok((started, socket))
}
