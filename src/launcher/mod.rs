//! Launchers: how a managed server runs. An engine describes its server once
//! (`Described`: a `Spec` of data, and what can only be said at a start); `How`, the
//! launcher `--launcher` chose resolved once, launches that description and hands back a
//! ready `Server`, checks it can, reports its version and reaps what killed runs left.
//! Engines never spawn a process nor branch on the launcher.
//!
//! Two launchers: `native`, the machine's own binaries in a process group of ours, and
//! `docker`, a container of an image that follows its official image's contract. Each
//! turns a description into one start's `Recipe` (a `Step`, or a `Container`) at every
//! port it tries; `start` runs a recipe and returns a `Running` that says whether it
//! has exited, shows its log, and stops it (and everything it started) when dropped.

pub mod container;
pub mod described;
pub mod docker;
pub mod how;
pub mod launch;
pub mod listen;
pub mod native;
pub mod place;
pub mod recipe;
pub mod run_as;
pub mod start;
pub mod started;
pub mod template;
pub mod usage;

pub use container::{Container, Mount};
pub use described::{Contract, Described, Dir, File, Moved, Native as NativeServer, NativeTemplate, Spec};
pub use how::How;
pub use listen::Listen;
pub use place::Place;
pub use recipe::{Recipe, Step};
pub use run_as::ServerUser;
pub use started::{Dirs, Started, StartedBy};

use crate::error::Result;
use std::path::Path;
use std::time::{Duration, Instant};

/// Which launcher runs managed servers (`--launcher`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The machine's own server binaries.
    #[default]
    Native,
    /// Containers of an image, through the `docker` command.
    Docker,
}

/// How managed servers are run.
pub trait Launcher: Sync {
    /// The launcher's name, as `--launcher` gives it.
    fn name(&self) -> &'static str;
    /// Start the server a recipe describes; ready or not, that is `Server::wait_ready`'s.
    fn start(&self, recipe: &Recipe) -> Result<Server>;
}

/// The launcher `--launcher` chose.
pub fn chosen(kind: Kind) -> &'static dyn Launcher {
    match kind {
        Kind::Native => &native::Native,
        Kind::Docker => &docker::Docker,
    }
}

/// Whether a child process has exited, waited for or not: a zombie nobody has reaped
/// yet counts, which `try_wait` would reap and so hide from a later `exit_status`.
pub(crate) fn exited(child: &std::process::Child) -> bool {
    crate::platform::procs::exited(child.id())
}

/// A server a launcher runs, as the launcher sees it.
pub trait Running: Send + Sync {
    /// Its exit status once it has exited and been waited for; None while it runs.
    fn exit_status(&mut self) -> Option<String>;
    /// Whether it has exited (a zombie nobody has waited for yet counts).
    fn exited(&self) -> bool;
    /// The whole of its log so far.
    fn log(&self) -> String;
    /// Where its log is, to name in messages.
    fn log_path(&self) -> &Path;
    /// What its processes have used so far; None where the launcher cannot see them.
    fn usage(&self) -> Option<crate::counters::Usage> {
        None
    }
    /// Which processes are its, where the launcher knows.
    fn processes(&self) -> Option<usage::Processes> {
        None
    }
    /// Send it `signal` and wait, at most `grace`, for it to exit cleanly (a template
    /// made by a server must be shut down before it is copied); only containers can yet.
    fn stop(&mut self, signal: i32, grace: Duration) -> Result<()> {
        let _ = (signal, grace);
        Err(failed!("this launcher stops its servers only when they are dropped"))
    }
}

/// A running server; stopped when dropped (the launcher's `Running` does that).
pub struct Server(Box<dyn Running>);

impl Server {
    /// A server as its launcher runs it.
    pub fn new(running: Box<dyn Running>) -> Server {
        Server(running)
    }

    /// Wait until `ready` succeeds, failing with the log's tail if the server exits or
    /// `timeout` passes.
    pub fn wait_ready<T>(&mut self, timeout: Duration, mut ready: impl FnMut() -> Option<T>) -> Result<T> {
        let start = Instant::now();
        loop {
            if let Some(v) = ready() {
                return Ok(v);
            }
            if let Some(status) = self.0.exit_status() {
                return Err(failed!("the server exited at start ({status}): {}", self.log_tail()));
            }
            crate::signals::check()?;
            if start.elapsed() > timeout {
                return Err(failed!("the server was not ready after {} s: {}", timeout.as_secs(), self.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stop the server with `signal` and wait, at most `grace`, for a clean exit.
    pub fn stop(mut self, signal: i32, grace: Duration) -> Result<()> {
        match self.0.stop(signal, grace) {
            Err(crate::error::Error::Run(m)) => Err(failed!("{m}: {}", self.log_tail())),
            other => other,
        }
    }

    /// Whether the server has exited, e.g. a server `serve` keeps that was killed from outside.
    pub fn exited(&self) -> bool {
        self.0.exited()
    }

    /// Fail, with the log's tail, when the server has exited.
    pub fn alive(&self) -> Result<()> {
        if self.exited() { Err(failed!("the server exited: {}", self.log_tail())) } else { Ok(()) }
    }

    /// A failed connection to this server: a failed run, with the log's tail.
    pub fn unreachable(&self, e: impl std::fmt::Display) -> crate::error::Error {
        failed!("cannot connect to the throwaway server: {e}; {}", self.log_tail())
    }

    /// What its processes have used so far (CPU, storage bytes), where the launcher sees them.
    pub fn usage(&self) -> Option<crate::counters::Usage> {
        self.0.usage()
    }

    /// Which processes are its, where the launcher knows.
    pub fn processes(&self) -> Option<usage::Processes> {
        self.0.processes()
    }

    /// The whole log so far.
    pub fn log(&self) -> String {
        self.0.log()
    }

    /// The last lines of the server's log, on one line.
    pub fn log_tail(&self) -> String {
        let text = self.0.log();
        let lines: Vec<&str> = text.lines().rev().take(3).collect();
        let tail = lines.into_iter().rev().collect::<Vec<_>>().join(" | ");
        format!("log {}: {tail}", self.0.log_path().display())
    }
}
