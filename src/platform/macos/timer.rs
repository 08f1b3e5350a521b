//! The event loop's fine timer: kqueue's timeout is a timespec, exact to the nanosecond,
//! so the poll's own timeout serves and no timer of its own is needed.

use mio::{Registry, Token};
use std::io;
use std::time::Duration;

/// Nothing to arm: the poll's timeout is fine already.
pub struct Fine;

impl Fine {
    /// The timer of a poll whose timeout is exact.
    pub fn new(_: &Registry, _: Token) -> io::Result<Fine> {
        Ok(Fine)
    }

    /// Refused, so that the poll's own (exact) timeout serves.
    pub fn arm(&self, _: Duration) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }
}
