//! Where a server runs, as the server and its clients each see it: what an engine's
//! `Described::args` and `login` are given at each start.

use crate::instance::user::RunAs;
use std::path::PathBuf;

/// A server's paths, port and address at one start.
#[derive(Clone, Debug)]
pub struct Place {
    /// The directories of `Spec::dirs`, in its order, as the server sees them.
    pub dirs: Vec<PathBuf>,
    /// The files of `Spec::files`, in its order, as the server sees them.
    pub files: Vec<PathBuf>,
    /// The instance directory on the host: files the server reads are written there.
    pub host: PathBuf,
    /// The 0700 directory for its socket, as the server sees it (None: TCP only).
    pub socket_dir: Option<PathBuf>,
    /// The same directory as clients on the host see it.
    pub client_socket_dir: Option<PathBuf>,
    /// The port it is told.
    pub port: u16,
    /// Whether clients reach it on TCP, at 127.0.0.1 and that port.
    pub tcp: bool,
    /// The addresses it binds for TCP (127.0.0.1, and ::1 where the host has it).
    pub binds: &'static [&'static str],
    /// Whether it listens on TCP: when clients use TCP, and always in a container (on its
    /// own loopback when it has no network), so that a login tells it from an image's
    /// temporary init server, which listens on none.
    pub networked: bool,
    /// The superuser's password an image's init set (None: the machine's init set none,
    /// and the socket trusts).
    pub password: Option<String>,
    /// Whom it runs as (None: as dbrace): the files it reads are theirs.
    pub user: Option<RunAs>,
}

impl Place {
    /// Directory `i` of the description as the server sees it.
    pub fn dir(&self, i: usize) -> &std::path::Path {
        &self.dirs[i]
    }

    /// The socket `file` as clients on the host reach it, when it listens on one.
    pub fn client_socket(&self, file: &str) -> Option<PathBuf> {
        self.client_socket_dir.as_ref().map(|d| d.join(file))
    }

    /// The socket `file` as the server names it, when it listens on one.
    pub fn socket(&self, file: &str) -> Option<PathBuf> {
        self.socket_dir.as_ref().map(|d| d.join(file))
    }
}
