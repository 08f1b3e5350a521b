//! What every engine's container start does alike: its directories given to the user it
//! runs as, its network (the socket `run` asks for by default: `--network none` and a
//! 0700 directory of the instance bind-mounted for the server's socket; TCP on 127.0.0.1
//! of the host with `--network host`), and each directory of the profile mounted where
//! the image expects it (a tmpfs for ram, a fresh directory of the disk location
//! bind-mounted for disk).

use crate::engine::access::Listen;
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::user::RunAs;
use crate::launcher::Mount;
use crate::launcher::container::Network;
use crate::profile::LocationKind;
use std::collections::BTreeMap;

/// Where the socket directory is mounted in a container.
pub const SOCKET_DIR: &str = "/run/dbrace";

/// Give the instance's directories (its own first) to `user`, and network the container
/// as `listen` says: for the socket, no network and a fresh 0700 directory of the
/// instance, owned by `user`, for the server's socket; for TCP, the host's.
pub fn prepare(dirs: &[&DataDir], user: Option<&RunAs>, listen: Listen) -> Result<Network> {
    if let Some(u) = user {
        dirs.iter().try_for_each(|d| d.give_to(u))?;
    }
    Ok(match (listen, dirs.first()) {
        (Listen::Socket, Some(dir)) => {
            Network::None { dir: private_dir(&dir.path().join("sock"), user)?, target: SOCKET_DIR.into() }
        }
        _ => Network::Host,
    })
}

/// The network path to record: `network` (none or host) and, on a socket, `transport` as
/// the socket's path on the host (what clients connect to), where a read-back says no
/// more than "socket"; on TCP the read-back's `tcp 127.0.0.1:P` stands.
pub fn noted(network: &Network, socket_file: &str, into: &mut BTreeMap<String, String>) {
    into.insert("network".to_string(), network.mode().to_string());
    if let Some(path) = network.socket(socket_file) {
        into.insert("transport".to_string(), format!("socket {}", path.display()));
    }
}

/// Where a directory of the profile lives in the container: a tmpfs at `target` for ram,
/// the host directory `dir/sub` bind-mounted there for disk.
pub fn mount(kind: LocationKind, dir: &DataDir, sub: &str, target: &str, user: Option<&RunAs>) -> Result<Mount> {
    Ok(match kind {
        LocationKind::Ram => {
            Mount::Tmpfs { target: target.into(), bytes: crate::launcher::container::default_tmpfs_bytes() }
        }
        LocationKind::Disk => Mount::Bind { source: private_dir(&dir.path().join(sub), user)?, target: target.into() },
    })
}

/// The mounts in words, to record: "/data tmpfs 512 MiB, /etc/x bind /var/tmp/…".
pub fn described(mounts: &[Mount]) -> String {
    let one = |m: &Mount| match m {
        Mount::Tmpfs { target, bytes } => format!("{target} tmpfs {} MiB", bytes >> 20),
        Mount::Bind { source, target } => format!("{target} bind {}", source.display()),
    };
    mounts.iter().map(one).collect::<Vec<_>>().join(", ")
}

/// Whether a managed server of `engine` can start here as `machine` says: its binaries
/// (`native`, the engine's own lookup) for the native launcher, its image for docker;
/// then the user it runs as.
pub fn launchable(
    machine: &crate::engine::Machine,
    engine: &str,
    default_image: &str,
    user: &crate::engine::kit::ServerUser,
    native: impl FnOnce() -> Result<()>,
) -> Result<()> {
    match machine.launcher {
        crate::launcher::Kind::Native => native()?,
        crate::launcher::Kind::Docker => {
            crate::launcher::docker::image(engine, machine.image(engine, default_image)).map(drop)?
        }
    }
    user.resolve(machine.run_as()).map(drop)
}
