//! What an engine tells a launcher: the program and its arguments (the settings as
//! arguments), its environment, whom it runs as, where its files are, how it stops.

use crate::instance::user::RunAs;
use std::ffi::OsString;
use std::path::PathBuf;

/// A program to run: an init step, or the server itself.
#[derive(Clone, Debug)]
pub struct Step {
    /// The binary.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables added to its environment.
    pub env: Vec<(OsString, OsString)>,
    /// Whom it runs as (None: as dbrace).
    pub user: Option<RunAs>,
}

impl Step {
    /// `program` with no arguments yet, run as `user`.
    pub fn new(program: impl Into<PathBuf>, user: Option<&RunAs>) -> Step {
        Step { program: program.into(), args: Vec::new(), env: Vec::new(), user: user.cloned() }
    }

    /// Add one argument.
    pub fn arg(&mut self, a: impl Into<OsString>) -> &mut Step {
        self.args.push(a.into());
        self
    }

    /// Add arguments.
    pub fn args<I: IntoIterator<Item = A>, A: Into<OsString>>(&mut self, args: I) -> &mut Step {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
}

/// A server to start.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// The server's command line.
    pub server: Step,
    /// The instance directory: the server's log and what the reaper needs go there.
    pub dir: PathBuf,
    /// The signal that stops it cleanly (it gets SIGKILL, with its group, if it lingers).
    pub stop_signal: i32,
    /// The signal it gets if dbrace dies.
    pub death_signal: i32,
    /// The same server as a container of an image, for launchers that run containers
    /// (None: the engine has no container recipe yet).
    pub container: Option<super::Container>,
}
