//! How managed servers are run: the launcher `--launcher` chose and the options every
//! launch shares, resolved once.

use super::Kind;
use super::container::{Disk, Init, TcpPath};

/// How managed servers are run: `--launcher`, `--run-as` and the docker options.
#[derive(Clone, Debug, Default)]
pub struct How {
    /// The launcher.
    pub kind: Kind,
    /// `--run-as`: whom servers run as when dbrace is root (None: the package's user).
    pub run_as: Option<String>,
    /// `--docker-init`: a container's data from a template, or the image's init each time.
    pub init: Init,
    /// `--docker-disk`: a container's disk data in a bind-mounted directory or a volume.
    pub disk: Disk,
    /// `--docker-network`: how a container's TCP port reaches 127.0.0.1 of the host.
    pub network: TcpPath,
    /// Variables a `--compose` service gives its containers besides its account, by engine.
    pub env: std::collections::BTreeMap<String, Vec<(String, String)>>,
    /// `docker run` flags of what a `--compose` service's container gets (`--shm-size`,
    /// `--ulimit`, `--cpus`, `--memory`), by engine.
    pub resources: std::collections::BTreeMap<String, Vec<String>>,
}

impl How {
    /// The launcher's name, as `--launcher` gives it.
    pub fn name(&self) -> &'static str {
        super::chosen(self.kind).name()
    }

    /// Whether its servers are dbrace's own processes, whose CPU time is told apart from
    /// what others on the machine use.
    pub fn servers_are_children(&self) -> bool {
        self.kind == Kind::Native
    }

    /// The same options with the docker launcher: a `--compose` service runs its image.
    pub fn in_containers(self) -> How {
        How { kind: Kind::Docker, ..self }
    }

    /// Whether it runs containers, and so needs a Docker daemon.
    pub fn runs_containers(&self) -> bool {
        self.kind == Kind::Docker
    }

    /// Remove what killed runs of this launcher left beyond their data directories (a
    /// container, a volume); what was removed, in words, if anything.
    pub fn reap(&self) -> Option<String> {
        match self.kind {
            Kind::Native => None,
            Kind::Docker => Some(super::docker::reap::reap()).filter(|r| !r.is_empty()).map(|r| r.described()),
        }
    }
}
