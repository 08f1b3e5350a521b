//! A synchronous RESP2 connection: requests go out as the caller packed them, replies are
//! read into one buffer the connection keeps and parsed where they lie, their strings
//! handed out as slices of it. After the buffer has grown to the largest reply seen,
//! reading a reply allocates nothing.

use super::endpoint::Addr;
use crate::engine::kit::patient::{self, Patient};
use crate::engine::kit::stream::Stream;
use rustls::ClientConfig;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest bulk string a server may send (Redis's proto-max-bulk-len, 512 MiB) and
/// the most elements an array may announce: longer is a broken or foreign peer. The
/// buffer grows with the bytes that arrive, never with what a length claims.
const MAX_BULK: i64 = 512 << 20;
const MAX_ITEMS: i64 = 1 << 32;

/// One reply, parsed in place: its strings borrow the connection's read buffer.
#[derive(Clone, Copy, Debug)]
pub enum Reply<'a> {
    /// `+OK`.
    Simple(&'a [u8]),
    /// `-ERR …`: the server refused the command.
    Error(&'a [u8]),
    /// `:42`.
    Int(i64),
    /// `$5 hello`.
    Bulk(&'a [u8]),
    /// `$-1` or `*-1`: no such thing.
    Nil,
    /// `*N` and its N elements.
    Array(Items<'a>),
}

/// The elements of an array, or a pipeline's replies, parsed as they are iterated.
#[derive(Clone, Copy, Debug)]
pub struct Items<'a> {
    data: &'a [u8],
    at: usize,
    left: usize,
}

impl Items<'_> {
    /// How many elements are left.
    pub fn len(&self) -> usize {
        self.left
    }
    /// Whether no element is left.
    pub fn is_empty(&self) -> bool {
        self.left == 0
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Reply<'a>;
    fn next(&mut self) -> Option<Reply<'a>> {
        if self.left == 0 {
            return None;
        }
        // The whole array was checked complete and well formed before it was handed out;
        // only an array inside it needs walking to find where the next element starts.
        let (r, after) = head(self.data, self.at).ok()??;
        self.at = if let Reply::Array(_) = r { element(self.data, self.at, 1).ok()??.1 } else { after };
        self.left -= 1;
        Some(r)
    }
}

/// A pipeline's replies, each whole and checked, where the reading found they end.
#[derive(Clone, Copy, Debug)]
pub struct Replies<'a> {
    data: &'a [u8],
    ends: &'a [usize],
    at: usize,
}

impl<'a> Iterator for Replies<'a> {
    type Item = Reply<'a>;
    fn next(&mut self) -> Option<Reply<'a>> {
        let (&end, rest) = self.ends.split_first()?;
        let (r, _) = head(self.data, self.at).ok()??;
        (self.at, self.ends) = (end, rest);
        Some(r)
    }
}

/// Arrays nest this deep at most (SCAN's reply nests two): a bound on the parser's recursion.
const MAX_DEPTH: u8 = 8;

/// The element that starts at `at` and where it ends; None while `data` holds only part of it.
fn element(data: &[u8], at: usize, depth: u8) -> Result<Option<(Reply<'_>, usize)>, &'static str> {
    let Some((r, after)) = head(data, at)? else { return Ok(None) };
    let Reply::Array(items) = r else { return Ok(Some((r, after))) };
    if depth >= MAX_DEPTH {
        return Err("arrays nested too deep");
    }
    let mut end = after;
    for _ in 0..items.left {
        match element(data, end, depth + 1)? {
            Some((_, e)) => end = e,
            None => return Ok(None),
        }
    }
    Ok(Some((r, end)))
}

/// The element that starts at `at`, and where it ends, or for an array where its first
/// element starts; None while `data` holds only part of that.
fn head(data: &[u8], at: usize) -> Result<Option<(Reply<'_>, usize)>, &'static str> {
    let Some(&kind) = data.get(at) else { return Ok(None) };
    if let b'+' | b'-' = kind {
        let Some(nl) = data[at..].iter().position(|&b| b == b'\n').map(|i| at + i) else { return Ok(None) };
        if nl < at + 2 || data[nl - 1] != b'\r' {
            return Err("a reply line does not end in CRLF");
        }
        let line = &data[at + 1..nl - 1];
        return Ok(Some((if kind == b'+' { Reply::Simple(line) } else { Reply::Error(line) }, nl + 1)));
    }
    let Some((n, next)) = number(data, at + 1)? else { return Ok(None) };
    let reply = match (kind, n) {
        (b':', n) => Reply::Int(n),
        (b'$' | b'*', -1) => Reply::Nil,
        (b'$', n) if n > MAX_BULK => return Err("a bulk string longer than 512 MiB"),
        (b'*', n) if n > MAX_ITEMS => return Err("an array of more than 2^32 elements"),
        (b'$', n) if n >= 0 => {
            let end = next + n as usize;
            return match data.get(end..end + 2) {
                None => Ok(None),
                Some(b"\r\n") => Ok(Some((Reply::Bulk(&data[next..end]), end + 2))),
                Some(_) => Err("a bulk string does not end in CRLF"),
            };
        }
        (b'*', n) if n >= 0 => Reply::Array(Items { data, at: next, left: n as usize }),
        (b'$' | b'*', _) => return Err("a negative length"),
        _ => return Err("a reply of unknown type"),
    };
    Ok(Some((reply, next)))
}

/// The integer at `at`, an optional minus and decimal digits up to CRLF, and where the next
/// line starts; None while `data` holds only part of it. Digits are read as they are
/// looked for: this runs twice per string of every reply.
fn number(data: &[u8], at: usize) -> Result<Option<(i64, usize)>, &'static str> {
    let neg = data.get(at) == Some(&b'-');
    let first = at + usize::from(neg);
    let mut i = first;
    // Accumulated negatively so that i64::MIN fits.
    let mut n: i64 = 0;
    loop {
        match data.get(i) {
            None => return Ok(None),
            Some(&d @ b'0'..=b'9') => {
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_sub(i64::from(d - b'0')))
                    .ok_or("an integer out of range")?;
                i += 1;
            }
            Some(b'\r') if i > first => break,
            Some(_) => return Err("not an integer"),
        }
    }
    match data.get(i + 1) {
        None => Ok(None),
        Some(b'\n') if neg => Ok(Some((n, i + 2))),
        Some(b'\n') => Ok(Some((n.checked_neg().ok_or("an integer out of range")?, i + 2))),
        Some(_) => Err("a reply line does not end in CRLF"),
    }
}

/// A connection to one server.
pub struct Conn {
    stream: Patient<Stream>,
    /// Bytes read: replies handed out lie in `buf[..pos]`, those not yet read in `buf[pos..end]`.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Where each reply of the last call ends; reused.
    ends: Vec<usize>,
    /// Set by a failed read or write: what is in flight is unknown, so nothing more is sent.
    broken: bool,
}

impl Conn {
    /// Connect, in TLS when `tls` (its handshake runs with the first write); reads and
    /// writes wait until `within` from now (the login's deadline) at most, until `logged_in`.
    pub fn open(addr: &Addr, within: Option<Duration>, tls: Option<Arc<ClientConfig>>) -> io::Result<Conn> {
        let started = Instant::now();
        let limit = within.unwrap_or(patient::FOREVER);
        let stream = match addr {
            Addr::Unix(path) => Stream::Unix(patient::connect_unix(path, limit)?),
            Addr::Tcp(host, port) => Stream::Tcp(patient::connect_tcp(host, *port, limit)?),
        };
        let stream = match (tls, addr) {
            (Some(config), Addr::Tcp(host, _)) => stream.into_tls(host, config)?,
            _ => stream,
        };
        let mut stream = Patient::new(stream)?;
        stream.set_deadline(started, within);
        Ok(Conn::over(stream))
    }

    fn over(stream: Patient<Stream>) -> Conn {
        Conn { stream, buf: vec![0; 16 << 10], pos: 0, end: 0, ends: Vec::with_capacity(64), broken: false }
    }

    /// Logged in: from now on one wait for a reply lasts `io` at most.
    pub fn logged_in(&mut self, io: Duration) {
        self.stream.clear_deadline();
        self.stream.set_idle(Some(io));
    }

    /// The TLS session in words, or None on a plain connection.
    pub fn tls(&self) -> Option<String> {
        self.stream.get_ref().tls()
    }

    /// What the server sent that was not read as a reply (after a bad one, from where it starts).
    pub fn unread(&self) -> &[u8] {
        &self.buf[self.pos.min(self.end)..self.end]
    }

    /// Send `n` packed commands and read their `n` replies (one round trip however many).
    /// The replies borrow the connection until the next call.
    pub fn call(&mut self, packed: &[u8], n: usize) -> io::Result<Replies<'_>> {
        if self.broken {
            return Err(io::Error::other("the connection broke earlier"));
        }
        let r = self.send(packed).and_then(|()| self.receive(n));
        if r.is_err() {
            self.broken = true;
        }
        let (start, end) = r?;
        Ok(Replies { data: &self.buf[start..end], ends: &self.ends, at: 0 })
    }

    fn send(&mut self, packed: &[u8]) -> io::Result<()> {
        // A TLS session may keep part of what was written in its buffer until flushed.
        self.stream.write_all(packed).and_then(|()| self.stream.flush())
    }

    /// Read until `n` whole replies are buffered; where they lie in `buf`, and in `ends`
    /// where each ends, counted from the first.
    fn receive(&mut self, n: usize) -> io::Result<(usize, usize)> {
        if self.pos == self.end {
            (self.pos, self.end) = (0, 0);
        }
        let (mut start, mut at) = (self.pos, self.pos);
        self.ends.clear();
        while self.ends.len() < n {
            match element(&self.buf[..self.end], at, 0) {
                Ok(Some((_, e))) => {
                    at = e;
                    self.ends.push(e - start);
                }
                Ok(None) => {
                    // The replies read so far move to the front with the part of the next one
                    // (all of it is what `unread` shows if the reading fails).
                    self.fill(start).inspect_err(|_| self.pos = 0)?;
                    at -= start;
                    start = 0;
                }
                Err(why) => {
                    // Kept for the message: a foreign server's answer is quoted from here.
                    self.pos = at;
                    return Err(io::Error::new(io::ErrorKind::InvalidData, format!("bad reply: {why}")));
                }
            }
        }
        self.pos = at;
        Ok((start, at))
    }

    /// Move `buf[keep..end]` to the front, make room, and read what the server sent.
    fn fill(&mut self, keep: usize) -> io::Result<()> {
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
        }
        if self.end == self.buf.len() {
            // The buffer only grows: once it holds the largest reply, reading allocates nothing.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let got = self.stream.read(&mut self.buf[self.end..])?;
        if got == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        self.end += got;
        Ok(())
    }
}

#[cfg(test)]
impl Conn {
    /// A connection to a server that says `input`, whatever it is asked (the fuzz tests).
    pub fn replay(input: Vec<u8>) -> Conn {
        Conn::over(Patient::new(Stream::Replay(patient::Replay::new(input))).expect("no socket to set up"))
    }

    /// How large the read buffer has grown.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(data: &[u8]) -> (Reply<'_>, usize) {
        element(data, 0, 0).unwrap().unwrap()
    }

    #[test]
    fn replies_parse_in_place_and_partial_ones_wait() {
        let data = b"*4\r\n$1\r\na\r\n$-1\r\n:-42\r\n*2\r\n+OK\r\n-ERR no\r\nrest";
        let (r, end) = whole(data);
        assert_eq!(end, data.len() - 4);
        let Reply::Array(items) = r else { panic!("{r:?}") };
        let got: Vec<String> = items.map(|r| format!("{r:?}")).collect();
        assert_eq!(got[..3], ["Bulk([97])", "Nil", "Int(-42)"]);
        assert!(got[3].starts_with("Array("), "{}", got[3]);
        for cut in 0..end {
            assert!(element(&data[..cut], 0, 0).unwrap().is_none(), "{cut} bytes are not a reply");
        }
        // A bulk string may hold CRLF: its length says where it ends.
        assert!(matches!(whole(b"$4\r\na\r\nb\r\n"), (Reply::Bulk(b"a\r\nb"), 10)));
        assert!(matches!(whole(b"*-1\r\n"), (Reply::Nil, 5)));
        assert!(matches!(whole(b":-9223372036854775808\r\n").0, Reply::Int(i64::MIN)));
    }

    #[test]
    fn malformed_replies_are_errors_not_panics() {
        for bad in [
            &b"?x\r\n"[..],
            b"$3\r\nabcde\r\n",
            b":12a\r\n",
            b":\r\n",
            b":9223372036854775808\r\n",
            b"$-2\r\n",
            b"*-5\r\n",
            b"+OK\n",
            b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
        ] {
            assert!(element(bad, 0, 0).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
