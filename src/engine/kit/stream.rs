//! The socket a server engine's client talks over: TCP, or a unix socket for a socket
//! path (and, in the fuzz tests, bytes replayed as a server's). `Patient` slices its waits.

use super::patient::Sliced;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// A client's connection to its server.
pub enum Stream {
    /// TCP.
    Tcp(TcpStream),
    /// A unix socket.
    Unix(UnixStream),
    /// Bytes replayed as a server's, for the fuzz tests.
    #[cfg(test)]
    Replay(super::patient::Replay),
}

impl Read for Stream {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(b),
            Stream::Unix(s) => s.read(b),
            #[cfg(test)]
            Stream::Replay(s) => s.read(b),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(b),
            Stream::Unix(s) => s.write(b),
            #[cfg(test)]
            Stream::Replay(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Sliced for Stream {
    fn set_timeouts(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_timeouts(t),
            Stream::Unix(s) => s.set_timeouts(t),
            #[cfg(test)]
            Stream::Replay(s) => s.set_timeouts(t),
        }
    }
}
