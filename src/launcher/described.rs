//! What an engine tells every launcher about its server, once (testcontainers' `Image` is
//! the model): plain data in a `Spec` (its directories, files, image contract, signals),
//! and, through `Described`, what can only be said at the start: the machine's binaries
//! once found, the arguments and login at the port and paths the server is given, and
//! whether what answers is the real server.

use super::run_as::ServerUser;
use super::{Place, Step};
use crate::error::{Error, Result};
use crate::instance::user::RunAs;
use crate::profile::LocationKind;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A server as its engine describes it to every launcher.
pub trait Described: Sync {
    /// Where the readiness check logs in, and as whom.
    type Login;
    /// What a readiness check that succeeded returns: the first connection.
    type Ready;

    /// The description's data.
    fn spec(&self) -> &Spec;
    /// The machine's own server, found (what the native launcher runs).
    fn native(&self) -> Result<Native<'_>>;
    /// The server's arguments at `place`; the files of `Spec::files` it writes there too.
    fn args(&self, place: &Place) -> Result<Vec<OsString>>;
    /// The arguments only the machine's own server is given, before `args`: its data
    /// directory and what an image's entrypoint gives itself (or would pass on to its
    /// init's temporary server too).
    fn native_args(&self, place: &Place) -> Result<Vec<OsString>> {
        let _ = place;
        Ok(Vec::new())
    }
    /// Where the readiness check logs in at `place`.
    fn login(&self, place: &Place) -> Self::Login;
    /// The first connection, once the real server (not an image's temporary one) answers.
    fn ready(&self, login: &Self::Login, place: &Place) -> Option<Self::Ready>;
    /// The image contract's variables that initialize an empty data directory whose
    /// superuser gets `password` (none: the image initializes nothing).
    fn init_env(&self, password: &str) -> Vec<(String, String)> {
        let _ = password;
        Vec::new()
    }
    /// A start that failed, told better from the server's `log` where it can be.
    fn failed(&self, log: &str, e: Error) -> Error {
        let _ = log;
        e
    }
    /// What a native start of `native` records beside the settings read back, given the
    /// data's directories on the host.
    fn noted_natively(&self, native: &Native, dirs: &[PathBuf]) -> Vec<(String, String)> {
        let _ = (native, dirs);
        Vec::new()
    }
}

/// The plain part of a description.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The engine's name: templates, containers and messages carry it.
    pub engine: &'static str,
    /// Whom the server runs as when dbrace is root.
    pub user: &'static ServerUser,
    /// The directories of its data, the data itself first.
    pub dirs: Vec<Dir>,
    /// Files of the instance directory it reads (its config, its certificate).
    pub files: Vec<File>,
    /// The image and the contract it follows.
    pub image: Contract,
    /// The port it is told when clients use its socket (None: a free one at each start,
    /// for servers that always listen on one).
    pub port: Option<u16>,
    /// The file name of its socket for a port.
    pub socket_file: fn(u16) -> String,
    /// The signal that stops the machine's server cleanly.
    pub stop_signal: i32,
    /// The signal the machine's server gets if dbrace dies.
    pub death_signal: i32,
    /// How long a native start may take (a container's, with its init, twice that).
    pub within: Duration,
}

/// One directory of a server's data.
#[derive(Clone, Debug)]
pub struct Dir {
    /// Its name in the instance directory (and in a container's template).
    pub name: &'static str,
    /// Where the profile puts it.
    pub location: LocationKind,
    /// Whether it lives in the instance's second directory (a log kept apart).
    pub apart: bool,
    /// Its path inside the image.
    pub target: &'static str,
    /// Natively, what of the template's data moves here (and whether a link to it is left).
    pub moved: Option<Moved>,
}

/// Part of a native template's data that a profile keeps apart.
#[derive(Clone, Copy, Debug)]
pub struct Moved {
    /// Its path in the data directory.
    pub from: &'static str,
    /// Whether a symlink is left in its place (the server follows it, as pg_wal's).
    pub link: bool,
}

/// A file in the instance directory the server reads.
#[derive(Clone, Debug)]
pub struct File {
    /// Its name in the instance directory.
    pub name: &'static str,
    /// Where a container sees it.
    pub target: String,
}

/// The image a container runs and its contract.
#[derive(Clone, Debug)]
pub struct Contract {
    /// The image: `--image`'s, else the engine's default.
    pub image: String,
    /// The server's program inside it (the container's command, for messages).
    pub program: &'static str,
    /// The signal that stops it cleanly in a container.
    pub stop_signal: i32,
    /// How its init shapes a template: what it is made with, and a file in it once made;
    /// None: the image initializes nothing.
    pub template: Option<(String, &'static str)>,
    /// Where its init runs a temporary server on the host's network, if it does: one
    /// such init at a time, and never on a port someone else listens on.
    pub init_port: Option<u16>,
    /// Why the image cannot run this profile, when it cannot (TLS, a storage engine it
    /// lacks): a bad input, said before any server starts.
    pub refuses: Option<String>,
}

/// The machine's own server, found.
pub struct Native<'a> {
    /// The server binary.
    pub program: PathBuf,
    /// Its version, recorded as the instance's.
    pub version: String,
    /// What `dbrace engines` shows of where it is.
    pub shown: PathBuf,
    /// The template its init makes, if it has one.
    pub template: Option<NativeTemplate<'a>>,
}

/// The init step that fills a directory `Path`, run as a user.
pub type InitStep<'a> = Box<dyn Fn(&Path, Option<&RunAs>) -> Step + 'a>;

/// How the machine's init step makes a template of a server's data.
pub struct NativeTemplate<'a> {
    /// Its name among the templates (version, options and layout in it).
    pub name: String,
    /// A file in it once made.
    pub done: &'static str,
    /// The step that fills a directory, run as a user.
    pub init: InitStep<'a>,
    /// Why the step failed, from its output.
    pub failed: Box<dyn Fn(&std::process::Output) -> Error + 'a>,
}
