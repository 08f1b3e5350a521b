//! How managed servers are run: the options every launch shares.

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
}
