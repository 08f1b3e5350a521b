//! What every engine's container start does alike: its directories given to the user it
//! runs as, TCP on 127.0.0.1 even where `run` asked for the socket (a container's socket
//! stays inside it), and each directory of the profile mounted where the image expects it
//! (a tmpfs for ram, a fresh directory of the disk location bind-mounted for disk).

use crate::engine::access::Listen;
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::datadir::private_dir;
use crate::instance::user::RunAs;
use crate::launcher::Mount;
use crate::profile::LocationKind;

/// Give the instance's directories to `user`, and say where the container listens.
pub fn prepare(dirs: &[&DataDir], user: Option<&RunAs>, listen: Listen) -> Result<Listen> {
    if let Some(u) = user {
        dirs.iter().try_for_each(|d| d.give_to(u))?;
    }
    Ok(match listen {
        Listen::Socket => Listen::Tcp(None),
        tcp => tcp,
    })
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
