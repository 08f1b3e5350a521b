//! The socket a server engine's client talks over: TCP, TLS over TCP, or a unix socket
//! for a socket path (and, in the fuzz tests, bytes replayed as a server's). `Patient`
//! slices its waits.

use super::patient::Sliced;
use super::tls::{self, TlsStream};
use crate::platform::socket::{Raw, UnixStream};
use rustls::ClientConfig;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

/// A client's connection to its server.
pub enum Stream {
    /// TCP.
    Tcp(TcpStream),
    /// A unix socket.
    Unix(UnixStream),
    /// A TLS session over TCP.
    Tls(Box<TlsStream>),
    /// Bytes replayed as a server's, for the fuzz tests.
    #[cfg(test)]
    Replay(super::patient::Replay),
}

impl Read for Stream {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(b),
            Stream::Unix(s) => s.read(b),
            Stream::Tls(s) => s.read(b),
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
            Stream::Tls(s) => s.write(b),
            #[cfg(test)]
            Stream::Replay(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            // What a TLS write could not send yet waits in the session's buffer.
            Stream::Tls(s) => s.flush(),
            _ => Ok(()),
        }
    }
}

impl Sliced for Stream {
    fn set_timeouts(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_timeouts(t),
            Stream::Unix(s) => s.set_timeouts(t),
            Stream::Tls(s) => s.sock.set_timeouts(t),
            #[cfg(test)]
            Stream::Replay(s) => s.set_timeouts(t),
        }
    }
    fn fd(&self) -> Option<Raw> {
        match self {
            Stream::Tcp(s) => s.fd(),
            Stream::Unix(s) => s.fd(),
            Stream::Tls(s) => s.sock.fd(),
            #[cfg(test)]
            Stream::Replay(s) => s.fd(),
        }
    }
    fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => Sliced::set_nonblocking(s, on),
            Stream::Unix(s) => Sliced::set_nonblocking(s, on),
            Stream::Tls(s) => Sliced::set_nonblocking(&s.sock, on),
            #[cfg(test)]
            Stream::Replay(s) => s.set_nonblocking(on),
        }
    }
    fn drains(&self) -> bool {
        matches!(self, Stream::Tcp(_) | Stream::Unix(_))
    }
}

impl Stream {
    /// This TCP connection as a TLS session with the server `host` (its name sent for SNI
    /// and checked under verify-full). The handshake runs with the first read or write,
    /// so the connection's deadline and signals bound it as any other wait.
    pub fn into_tls(self, host: &str, config: Arc<ClientConfig>) -> io::Result<Stream> {
        match self {
            Stream::Tcp(tcp) => Ok(Stream::Tls(Box::new(tls::session(tcp, host, config)?))),
            _ => Err(io::Error::new(io::ErrorKind::Unsupported, "TLS runs over TCP only, not a unix socket")),
        }
    }

    /// The TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or `None` on a
    /// plain connection.
    pub fn tls(&self) -> Option<String> {
        match self {
            Stream::Tls(s) => Some(tls::describe(s)),
            _ => None,
        }
    }
}
