//! Sockets as the event loop sees them: a raw descriptor, registered with mio's poll as
//! it is; and unix sockets, for a server's socket path.

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use std::io;
use std::net::TcpStream;
use std::os::fd::AsRawFd;

pub use std::os::unix::net::UnixStream;

/// A socket, as a fiber parks on it.
pub type Raw = std::os::fd::RawFd;

/// The raw socket of a TCP stream.
pub fn raw_tcp(s: &TcpStream) -> Raw {
    s.as_raw_fd()
}

/// The raw socket of a unix stream.
pub fn raw_unix(s: &UnixStream) -> Raw {
    s.as_raw_fd()
}

/// Watch `socket` for `interest` under `token`, or change what is watched if it is
/// registered already.
pub fn register(registry: &Registry, socket: Raw, token: Token, interest: Interest) -> io::Result<()> {
    match registry.register(&mut SourceFd(&socket), token, interest) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            registry.reregister(&mut SourceFd(&socket), token, interest)
        }
        r => r,
    }
}
