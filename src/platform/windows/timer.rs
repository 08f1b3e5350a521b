//! The event loop's fine timer: mio's Windows poller cannot watch a raw socket, so the
//! loop does not start here and each client runs on a thread of its own.

use mio::{Registry, Token};
use std::io;
use std::time::Duration;

/// Never made.
pub struct Fine;

impl Fine {
    /// Refused: the event loop does not run on this platform.
    pub fn new(_: &Registry, _: Token) -> io::Result<Fine> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "the event loop does not run on Windows"))
    }

    /// Refused.
    pub fn arm(&self, _: Duration) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }
}
