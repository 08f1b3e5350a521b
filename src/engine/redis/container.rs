//! Throwaway `redis-server`s as containers of an image that follows the official redis
//! image's contract: a first argument ending in `.conf` is the server's configuration
//! file, the data is in /data. The configuration file is ours, as for native servers (its
//! password never on a command line), bind-mounted from the instance's 0700 directory;
//! /data is a tmpfs for ram, a fresh directory of the disk location bind-mounted (or a
//! named volume) for disk. redis-server has no init step, so there is no template:
//! `--docker-init` changes nothing here. On the socket (`--network none`) the server
//! listens in a bind-mounted 0700 directory of the instance and on no port; on TCP
//! (`--network host`) on 127.0.0.1 of the host with a random password. Ready on the first
//! PING (no temporary server here). With `+tls`, on TCP in TLS only, the instance's
//! certificate, key and CA bind-mounted beside the configuration file.

use super::client::RedisClient;
use super::endpoint::{Addr, Endpoint};
use super::managed::{Listen, config, database};
use crate::engine::Machine;
use crate::engine::access::{self, Access};
use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::engine::kit::{self, container};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::certs::{self, Certs};
use crate::instance::datadir::write_private;
use crate::instance::server;
use crate::instance::user::RunAs;
use crate::launcher::container::Network;
use crate::launcher::{Container, Launcher, Mount, Recipe, Server, Step, docker};
use crate::profile::Profile;
use std::path::Path;
use std::time::Duration;

/// The image used when `--image redis=IMAGE` is not given.
pub const DEFAULT_IMAGE: &str = "redis:7";
/// The data directory inside the image.
const DATA: &str = "/data";
/// Where our configuration file is mounted.
const CONF: &str = "/etc/dbrace/redis.conf";

/// Where the instance's TLS files are mounted (`+tls`).
const TLS_DIR: &str = "/etc/dbrace/tls";

/// The socket's file name in its directory.
pub const SOCKET: &str = "redis.sock";

/// Start a container of `image` for `profile` with `settings` in its configuration file,
/// listening as `listen` says (on a socket in a 0700 directory of the instance, or on
/// 127.0.0.1 of the host at the port it gives); TCP clients log in as `access` says.
/// Returns the server, where it answers, what to record of its storage
/// (`Layout::facts`) and its network.
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    image: &docker::Image,
    profile: &Profile,
    dir: &DataDir,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: access::Listen,
    access: &Access,
    machine: &Machine,
) -> Result<(Server, Endpoint, container::Facts, Network)> {
    // TLS runs over TCP only.
    let listen = if profile.tls && listen == access::Listen::Socket { access::Listen::Tcp(None) } else { listen };
    let network = container::prepare(&[dir], user, listen, machine.docker_network)?;
    let mut layout = container::Layout::without_init(machine, image, user);
    let data = layout.mount(profile.location, dir, "data", DATA)?;
    let facts = layout.facts(std::slice::from_ref(&data));
    let conf = dir.path().join("redis.conf");
    let mut mounts = vec![data, Mount::Bind { source: conf.clone(), target: CONF.into() }];
    // The instance's certificate, key and CA, each file where the config file says.
    let tls = match profile.tls {
        true => {
            let host = certs::make(dir.path(), user)?;
            let inside = |name: &str| Path::new(TLS_DIR).join(name);
            let image = Certs { ca: inside("ca.crt"), cert: inside("server.crt"), key: inside("server.key") };
            for (source, target) in [(&host.ca, &image.ca), (&host.cert, &image.cert), (&host.key, &image.key)] {
                mounts.push(Mount::Bind { source: source.clone(), target: target.to_string_lossy().into_owned() });
            }
            Some((host, image))
        }
        false => None,
    };
    let db = database(access)?;
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(30),
        |port| {
            let (how, endpoint) = match (network.socket(SOCKET), network.inside(SOCKET)) {
                // As for a native server's socket: no password, the 0700 directory guards it.
                (Some(host), Some(inside)) => {
                    let endpoint = Endpoint {
                        addr: Addr::Unix(host),
                        username: None,
                        password: None,
                        db,
                        timeout: Some(CONNECT_TIMEOUT),
                        tls: None,
                    };
                    (Listen::Socket(inside.into()), endpoint)
                }
                _ => {
                    let port = port.unwrap_or(6379);
                    let password = match &access.password {
                        Some(p) => p.clone(),
                        None => server::random_token(24)?,
                    };
                    let endpoint = Endpoint {
                        addr: Addr::Tcp("127.0.0.1".into(), port),
                        username: access.user.clone(),
                        password: Some(password.clone()),
                        db,
                        timeout: Some(CONNECT_TIMEOUT),
                        tls: tls.as_ref().map(|(host, _)| Tls::new(Mode::VerifyFull, Some(host.ca.clone()), None)),
                    };
                    let certs = tls.as_ref().map(|(_, image)| image.clone());
                    (Listen::Tcp { port, password, user: access.user.clone(), certs }, endpoint)
                }
            };
            write_private(&conf, &config(Path::new(DATA), network.bind(), &how, settings), user)?;
            let container = Container {
                image: image.name.clone(),
                env: Vec::new(),
                args: vec![CONF.into()],
                mounts: mounts.clone(),
                network: network.on(port.unwrap_or(6379)),
            };
            let recipe = Recipe {
                server: Step::new("redis-server", user),
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGTERM,
                container: Some(container),
            };
            Ok((recipe, endpoint))
        },
        |endpoint| RedisClient::connect(endpoint, b"").ok(),
        kit::start::taken(listen),
    )?;
    Ok((started.server, started.probe, facts, network))
}
