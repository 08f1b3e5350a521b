//! What a launch is given (the instance's directories) and gives back (a ready server).

use super::{Described, Server};
use crate::instance::DataDir;
use std::collections::BTreeMap;

/// The instance's directories a server's data goes in.
#[derive(Clone, Copy)]
pub struct Dirs<'a> {
    /// The instance's own: the data, the log, the socket.
    pub data: &'a DataDir,
    /// A second one for a log the profile keeps apart.
    pub apart: Option<&'a DataDir>,
}

impl<'a> Dirs<'a> {
    /// The directory `dir` of a description goes in.
    pub fn of(&self, dir: &super::Dir) -> &'a DataDir {
        if dir.apart { self.apart.unwrap_or(self.data) } else { self.data }
    }

    /// Both, the instance's own first.
    pub fn all(&self) -> Vec<&'a DataDir> {
        std::iter::once(self.data).chain(self.apart).collect()
    }
}

/// A server that is ready.
pub struct Started<L, R> {
    /// The server.
    pub server: Server,
    /// Where the readiness check logged in.
    pub login: L,
    /// The first connection.
    pub ready: R,
    /// The TCP port on 127.0.0.1, when clients reach it there.
    pub port: Option<u16>,
    /// The version of the machine's binaries (None from an image: the server says).
    pub version: Option<String>,
    /// What the launch records beside the settings read back.
    pub noted: BTreeMap<String, String>,
}

/// What launching `D` gives.
pub type StartedBy<D> = Started<<D as Described>::Login, <D as Described>::Ready>;
