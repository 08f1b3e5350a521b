//! Sockets as the event loop sees them: a raw socket handle; no unix sockets (std has
//! none on Windows), so a socket path is refused and a TCP address serves.

use mio::{Interest, Registry, Token};
use std::io;
use std::net::TcpStream;
use std::os::windows::io::AsRawSocket;
use std::path::Path;
use std::time::Duration;

/// A socket, as a fiber parks on it.
pub type Raw = std::os::windows::io::RawSocket;

/// The raw socket of a TCP stream.
pub fn raw_tcp(s: &TcpStream) -> Raw {
    s.as_raw_socket()
}

/// The raw socket of a unix stream: there is none to have.
pub fn raw_unix(s: &UnixStream) -> Raw {
    match *s {}
}

/// Refused: mio's Windows poller cannot watch a raw socket.
pub fn register(_: &Registry, _: Raw, _: Token, _: Interest) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A unix socket, which this platform never has: connecting fails with the fix.
pub enum UnixStream {}

impl UnixStream {
    /// Refused, naming the way: a host:port address.
    pub fn connect<P: AsRef<Path>>(path: P) -> io::Result<UnixStream> {
        let path = path.as_ref().display();
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("unix socket {path}: not supported on Windows; give the server's host:port"),
        ))
    }

    /// Never called: there is no unix stream.
    pub fn set_read_timeout(&self, _: Option<Duration>) -> io::Result<()> {
        match *self {}
    }

    /// Never called: there is no unix stream.
    pub fn set_write_timeout(&self, _: Option<Duration>) -> io::Result<()> {
        match *self {}
    }

    /// Never called: there is no unix stream.
    pub fn set_nonblocking(&self, _: bool) -> io::Result<()> {
        match *self {}
    }
}

impl io::Read for UnixStream {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match *self {}
    }
}

impl io::Write for UnixStream {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        match *self {}
    }
    fn flush(&mut self) -> io::Result<()> {
        match *self {}
    }
}
