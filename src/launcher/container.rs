//! What an engine tells a container launcher: the image, its contract's environment
//! variables, the server's arguments and the mounts that make the profile's storage; and
//! how a container's data begins (`--docker-init`) and where its disk data lives
//! (`--docker-disk`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

/// How a container's data directory begins (`--docker-init`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Init {
    /// A copy of a template the image's own init made once per image and init options.
    #[default]
    Template,
    /// Empty: the image's entrypoint initializes it in every container.
    Fresh,
}

impl Init {
    /// Its name, as the flag gives it.
    pub fn name(self) -> &'static str {
        match self {
            Init::Template => "template",
            Init::Fresh => "fresh",
        }
    }
}

/// Where a container's disk data lives (`--docker-disk`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Disk {
    /// A fresh directory of the disk location, bind-mounted.
    #[default]
    Bind,
    /// A named volume of the daemon's, one per instance.
    Volume,
}

impl Disk {
    /// The default here: a bind mount, or where Docker runs in a VM (Docker Desktop), a
    /// volume on the VM's own disk, not the host's folder through file sharing.
    pub fn here() -> Disk {
        if crate::platform::host::DOCKER_IN_A_VM { Disk::Volume } else { Disk::Bind }
    }

    /// Its name, as the flag gives it.
    pub fn name(self) -> &'static str {
        match self {
            Disk::Bind => "bind",
            Disk::Volume => "volume",
        }
    }
}

/// How a container's TCP port reaches 127.0.0.1 of the host (`--docker-network`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TcpPath {
    /// The host's own network (`--network host`): the server binds 127.0.0.1 itself.
    #[default]
    Host,
    /// Docker's default network with the port published on 127.0.0.1 only, for Docker
    /// Desktop, whose host network is its VM's: the server binds every address of the
    /// container's own interfaces, which only the publishing proxy reaches.
    Publish,
}

impl TcpPath {
    /// The default here: the host's network, or where Docker runs in a VM (Docker
    /// Desktop, whose host network is the VM's) the published port.
    pub fn here() -> TcpPath {
        if crate::platform::host::DOCKER_IN_A_VM { TcpPath::Publish } else { TcpPath::Host }
    }
}

/// A server run from an image that follows its official image's contract.
#[derive(Clone, Debug)]
pub struct Container {
    /// The image reference, e.g. postgres:17.
    pub image: String,
    /// The contract's environment variables (POSTGRES_PASSWORD, …).
    pub env: Vec<(String, String)>,
    /// Arguments after the image: the server's settings (`-c fsync=off`).
    pub args: Vec<OsString>,
    /// Where the data, and the WAL when apart, live inside the container.
    pub mounts: Vec<Mount>,
    /// How clients reach the server: the host's network, or its socket only.
    pub network: Network,
    /// `docker run` flags of what it gets of the machine (`--shm-size`, `--cpus`…).
    pub resources: Vec<String>,
}

/// How a container is networked. Never a Docker bridge network: its addresses are a
/// private range, reachable beyond loopback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Network {
    /// `--network host`: the server binds 127.0.0.1 of the host itself.
    Host,
    /// Docker's default network, the server's port (0 until one is chosen) published
    /// on 127.0.0.1 of the host only: `-p 127.0.0.1:P:P`.
    Publish(u16),
    /// `--network none`: nothing but the container's own loopback; the server's unix socket
    /// in `dir`, a 0700 host directory bind-mounted at `target`.
    None {
        /// The host directory.
        dir: PathBuf,
        /// The path inside the container.
        target: String,
    },
}

impl Network {
    /// `docker run --network`'s value.
    pub fn mode(&self) -> &'static str {
        match self {
            Network::Host => "host",
            Network::Publish(_) => "bridge",
            Network::None { .. } => "none",
        }
    }

    /// The network of a TCP server as `path` says, before its port is chosen.
    pub fn tcp(path: TcpPath) -> Network {
        match path {
            TcpPath::Host => Network::Host,
            TcpPath::Publish => Network::Publish(0),
        }
    }

    /// This network for a server on `port`: the port that is published.
    pub fn on(&self, port: u16) -> Network {
        match self {
            Network::Publish(_) => Network::Publish(port),
            other => other.clone(),
        }
    }

    /// The addresses the server binds inside the container: the host's loopbacks
    /// themselves with host networking (the container's own, isolated 127.0.0.1 with
    /// none); with a published port, every address of the container's own interfaces, as
    /// the publishing proxy connects to the container's address, not to its loopback.
    pub fn binds(&self) -> &'static [&'static str] {
        match self {
            Network::Publish(_) => &["0.0.0.0"],
            Network::Host => crate::instance::server::loopbacks(),
            Network::None { .. } => &["127.0.0.1"],
        }
    }

    /// The host path of `file` in the socket directory (none with host networking).
    pub fn socket(&self, file: &str) -> Option<PathBuf> {
        match self {
            Network::Host | Network::Publish(_) => None,
            Network::None { dir, .. } => Some(dir.join(file)),
        }
    }

    /// The path of `file` in the socket directory as the server sees it.
    pub fn inside(&self, file: &str) -> Option<String> {
        match self {
            Network::Host | Network::Publish(_) => None,
            Network::None { target, .. } => Some(format!("{target}/{file}")),
        }
    }
}

/// A mount in the container.
#[derive(Clone, Debug)]
pub enum Mount {
    /// A tmpfs of `bytes` at `target`, owned by the recipe's user, mode 0700.
    Tmpfs {
        /// The path inside the container.
        target: String,
        /// Its size.
        bytes: u64,
    },
    /// A host directory at `target`.
    Bind {
        /// The host directory.
        source: PathBuf,
        /// The path inside the container.
        target: String,
    },
    /// A named volume at `target`, removed when the last holder of it is gone (the
    /// container that runs on it holds it until it is removed itself).
    Volume {
        /// The volume.
        volume: Arc<super::docker::Volume>,
        /// The path inside the container.
        target: String,
    },
}

/// The size of a tmpfs mount when the engine names none: half the machine's memory, what a
/// tmpfs gets by default (a data set that outgrows it fails its cell, not the machine).
pub fn default_tmpfs_bytes() -> u64 {
    match crate::platform::host::memory_bytes() {
        0 => 1 << 30,
        bytes => bytes / 2,
    }
}
