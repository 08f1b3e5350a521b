//! What an instance must clean up.

use crate::engine::ConnectError;
use crate::error::{Error, Result};
use crate::launcher::Server;

/// A throwaway server, or what a run made on someone else's server (`U`: a database, a
/// key prefix), which removes itself when dropped.
pub enum Owned<U> {
    /// A throwaway server (stopped on drop).
    Server(Server),
    /// Something made on a `--url` server.
    Url(U),
}

impl<U> Owned<U> {
    /// Fail when the throwaway server has exited; a `--url` server is the user's.
    pub fn alive(&self) -> Result<()> {
        match self {
            Owned::Server(s) => s.alive(),
            Owned::Url(_) => Ok(()),
        }
    }

    /// What the throwaway server's processes have used so far; a `--url` server's are
    /// not ours to see.
    pub fn usage(&self) -> Option<crate::counters::Usage> {
        match self {
            Owned::Server(s) => s.usage(),
            Owned::Url(_) => None,
        }
    }

    /// Which processes are the throwaway server's; none for a `--url` server.
    pub fn processes(&self) -> Option<crate::launcher::usage::Processes> {
        match self {
            Owned::Server(s) => s.processes(),
            Owned::Url(_) => None,
        }
    }

    /// A connection that failed: the throwaway server's failure (with its log), or the
    /// user's URL to fix.
    pub fn unreachable(&self, e: ConnectError) -> Error {
        match self {
            Owned::Server(s) => s.unreachable(e),
            Owned::Url(_) => e.url_mistake(),
        }
    }
}
