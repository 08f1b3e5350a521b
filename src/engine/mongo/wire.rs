//! MongoDB's wire protocol on one synchronous socket: each command goes out as one
//! OP_MSG (header, flags, one body section) from a buffer the connection reuses, and its
//! reply is read into a second reused buffer and handed out as a borrowed BSON document.
//! A reply is untrusted input: its length is bounded before anything is allocated for it,
//! the buffer grows with the bytes that arrive (not with the length claimed), and every
//! section is checked to lie inside it.

use crate::engine::kit::patient::{self, Patient};
use crate::engine::kit::stream::Stream;
use bson::RawDocument;
use rustls::ClientConfig;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// OP_MSG's opcode.
const OP_MSG: i32 = 2013;
/// OP_COMPRESSED's: only sent to clients that asked for compression, which this one does not.
const OP_COMPRESSED: i32 = 2012;
/// Header (16) and flag bits (4).
const PREFIX: usize = 20;
/// The smallest OP_MSG: prefix, a section kind and an empty document.
const MIN_LEN: usize = PREFIX + 1 + 5;
/// The largest message a server may send (mongod's maxMessageSizeBytes): a longer length
/// is a broken or hostile peer, refused before a buffer is grown for it.
pub const MAX_LEN: usize = 48_000_000;
/// OP_MSG flag bits: a CRC-32C follows the sections; more replies follow without a request.
const CHECKSUM_PRESENT: u32 = 1;
const MORE_TO_COME: u32 = 1 << 1;
/// Bits 0–15 must be understood by the receiver; only the two above are defined.
const REQUIRED_BITS: u32 = 0xffff;

/// Where a server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// TCP host and port.
    Tcp(String, u16),
    /// A unix socket file.
    Unix(PathBuf),
}

/// One connection: requests written into `out`, replies read into `inb`; both only grow,
/// so after the first few commands a round trip allocates nothing.
pub struct Wire {
    stream: Patient<Stream>,
    /// The server, as messages name it.
    server: String,
    /// How long a wait for a reply lasts once the first has come.
    io: Duration,
    /// Whether a reply has come: before it, waits end at the connect deadline, and a
    /// foreign server's answer is quoted.
    answered: bool,
    out: Vec<u8>,
    inb: Vec<u8>,
    /// The reply's body document: where it lies in `inb`.
    body: (usize, usize),
    next_id: i32,
    broken: bool,
}

impl Wire {
    /// Connect, in TLS when `tls` (its handshake runs with `handshake` or the first
    /// command), and read the first reply (the handshake), within `connect`, as drivers'
    /// connectTimeoutMS; every later wait for a reply lasts `io` at most. A signal ends any wait.
    pub fn open(addr: &Addr, connect: Duration, io: Duration, tls: Option<Arc<ClientConfig>>) -> io::Result<Wire> {
        let started = Instant::now();
        let (stream, server) = match addr {
            Addr::Unix(p) => (Stream::Unix(patient::connect_unix(p, connect)?), p.display().to_string()),
            Addr::Tcp(host, port) => {
                let tcp = Stream::Tcp(patient::connect_tcp(host, *port, connect)?);
                let stream = match tls {
                    Some(config) => tcp.into_tls(host, config)?,
                    None => tcp,
                };
                (stream, format!("{host}:{port}"))
            }
        };
        let mut stream = Patient::new(stream)?;
        stream.set_deadline(started, Some(connect));
        Ok(Wire::over(stream, server, io))
    }

    fn over(stream: Patient<Stream>, server: String, io: Duration) -> Wire {
        Wire {
            stream,
            server,
            io,
            answered: false,
            out: Vec::with_capacity(4096),
            inb: vec![0; 16 << 10],
            body: (0, 0),
            next_id: 0,
            broken: false,
        }
    }

    /// Every later wait for a reply lasts `io` at most (a reader of counters gives up early).
    pub fn set_io(&mut self, io: Duration) {
        self.io = io;
        if self.answered {
            self.stream.set_idle(Some(io));
        }
    }

    /// Shake hands in TLS now, so that a failure is told apart from a command's.
    pub fn handshake(&mut self) -> io::Result<()> {
        self.stream.flush()
    }

    /// The TLS session in words, or None on a plain connection.
    pub fn tls(&self) -> Option<String> {
        self.stream.get_ref().tls()
    }

    /// Start a command: the buffer to write its one body document into, after the header.
    pub fn start(&mut self) -> &mut Vec<u8> {
        self.out.clear();
        self.out.extend_from_slice(&[0; PREFIX]);
        self.out.push(0);
        &mut self.out
    }

    /// Send the command written since `start` and read its reply's body.
    pub fn call(&mut self) -> io::Result<&RawDocument> {
        if self.broken {
            return Err(io::Error::other("the connection broke earlier"));
        }
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        frame(&mut self.out, id);
        let r = self.send().and_then(|()| self.receive(id));
        if r.is_err() {
            self.broken = true;
        }
        r?;
        if !self.answered {
            self.answered = true;
            self.stream.clear_deadline();
            self.stream.set_idle(Some(self.io));
        }
        RawDocument::from_bytes(&self.inb[self.body.0..self.body.1]).map_err(|e| bad(&e.to_string()))
    }

    fn send(&mut self) -> io::Result<()> {
        // A TLS session may keep part of what was written in its buffer until flushed.
        self.stream.write_all(&self.out).and_then(|()| self.stream.flush())
    }

    /// Read `inb[from..to]`, the buffer grown (doubled, up to `to`) as the bytes arrive,
    /// never ahead of them for a length a header only claims; the bytes read count (`got`)
    /// even when the rest never comes.
    fn read_exact(&mut self, from: usize, to: usize, got: &mut usize) -> io::Result<()> {
        *got = from;
        while *got < to {
            if self.inb.len() == *got {
                let n = self.inb.len();
                self.inb.resize((n * 2).min(to).max(n + 1), 0);
            }
            let end = to.min(self.inb.len());
            match self.stream.read(&mut self.inb[*got..end]) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection")),
                Ok(n) => *got += n,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Read one whole message answering request `id` and find its body. Before the first
    /// reply, a header that is no MongoDB server's is quoted as another protocol's answer.
    fn receive(&mut self, id: i32) -> io::Result<()> {
        let mut got = 0;
        let head = self.read_exact(0, 16, &mut got).and_then(|()| check_header(&self.inb[..16], id));
        let len = match head {
            Err(e) if !self.answered && (e.kind() != io::ErrorKind::TimedOut || got > 0) && !interrupted(&e) => {
                let mut m = patient::foreign(&self.server, "MongoDB", &self.inb[..got]);
                if got == 0 && self.tls().is_none() {
                    // A server with TLS only drops a client without it.
                    m.push_str(" (is TLS on there? then add tls=true)");
                }
                return Err(io::Error::new(e.kind(), m));
            }
            r => r?,
        };
        self.read_exact(16, len, &mut got)?;
        self.body = body(&self.inb[..len])?;
        Ok(())
    }
}

/// Write the header of the message in `out` (its length, request id, OP_MSG); flags 0.
fn frame(out: &mut [u8], id: i32) {
    let len = out.len() as i32;
    out[0..4].copy_from_slice(&len.to_le_bytes());
    out[4..8].copy_from_slice(&id.to_le_bytes());
    out[8..12].copy_from_slice(&0i32.to_le_bytes());
    out[12..16].copy_from_slice(&OP_MSG.to_le_bytes());
    out[16..20].copy_from_slice(&0u32.to_le_bytes());
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bad reply: {why}"))
}

/// The message length a reply header announces, once it is known to answer request `id`
/// as an OP_MSG of a length we accept.
fn check_header(h: &[u8], id: i32) -> io::Result<usize> {
    let len = le_i32(h, 0);
    let (to, op) = (le_i32(h, 8), le_i32(h, 12));
    if len < MIN_LEN as i32 || len as usize > MAX_LEN {
        return Err(bad(&format!("a message of {len} bytes (at most {MAX_LEN})")));
    }
    if to != id {
        return Err(bad(&format!("it answers request {to}, not {id}")));
    }
    match op {
        OP_MSG => Ok(len as usize),
        OP_COMPRESSED => Err(bad("a compressed message, and no compression was offered")),
        _ => Err(bad(&format!("opcode {op}, not OP_MSG"))),
    }
}

/// Where the body document (the kind-0 section) of the whole message `m` lies.
fn body(m: &[u8]) -> io::Result<(usize, usize)> {
    let flags = le_i32(m, 16) as u32;
    if flags & REQUIRED_BITS & !(CHECKSUM_PRESENT | MORE_TO_COME) != 0 {
        return Err(bad(&format!("flag bits {flags:#x} this client does not know")));
    }
    if flags & MORE_TO_COME != 0 {
        return Err(bad("moreToCome, and no stream of replies was asked for"));
    }
    // The checksum is not verified: TCP's own and the server's framing guard this link.
    let end = if flags & CHECKSUM_PRESENT != 0 { m.len() - 4 } else { m.len() };
    let mut at = PREFIX;
    let mut found = None;
    while at < end {
        let kind = m[at];
        at += 1;
        if at + 4 > end {
            return Err(bad("a section cut short"));
        }
        let size = le_i32(m, at);
        if size < 5 || size as usize > end - at {
            return Err(bad(&format!("a section of {size} bytes in a message of {}", m.len())));
        }
        let size = size as usize;
        match kind {
            0 if found.is_none() => found = Some((at, at + size)),
            0 => return Err(bad("two body sections")),
            1 => {}
            _ => return Err(bad(&format!("section kind {kind}"))),
        }
        at += size;
    }
    found.ok_or_else(|| bad("no body section"))
}

/// Whether a wait ended because a signal asked the run to stop.
fn interrupted(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Other && crate::signals::pending().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kit::patient::{Replay, fuzz_cases};
    use crate::engine::mongo::bson_out;
    use proptest::prelude::*;

    /// A connection whose server says `input`, whatever it is asked.
    fn replay(input: &[u8]) -> Wire {
        let stream = Patient::new(Stream::Replay(Replay::new(input.to_vec()))).unwrap();
        Wire::over(stream, "stand-in:27017".into(), Duration::from_secs(1))
    }

    /// Three commands against a server that says `input`, every reply's elements walked;
    /// the read buffer stays within twice what was sent.
    fn survive(input: &[u8]) {
        let mut w = replay(input);
        for _ in 0..3 {
            let d = bson_out::begin(w.start());
            bson_out::i32(&mut w.out, "ping", 1);
            bson_out::end(&mut w.out, d);
            match w.call() {
                Ok(doc) => {
                    for (_, v) in doc.into_iter().flatten() {
                        let _ = v.as_document().map(|d| d.iter().count());
                    }
                }
                Err(_) => break,
            }
        }
        assert!(w.inb.len() <= (16usize << 10).max(2 * input.len()), "{} for {}", w.inb.len(), input.len());
    }

    /// Replies as they frame: a header answering the next request (its length right, or
    /// any), flags, sections of a kind and a size, bytes.
    fn messages() -> impl Strategy<Value = Vec<u8>> {
        let section = (prop::sample::select(vec![0u8, 1, 2]), prop::collection::vec(any::<u8>(), 0..30)).prop_map(
            |(kind, doc)| {
                let mut s = vec![kind];
                s.extend_from_slice(&(doc.len() as i32 + 4).to_le_bytes());
                s.extend_from_slice(&doc);
                s
            },
        );
        let one = (prop::option::weighted(0.1, any::<i32>()), 0u32..4, prop::collection::vec(section, 0..3));
        prop::collection::vec(one, 0..4).prop_map(|ms| {
            let mut out = Vec::new();
            for (i, (len, flags, sections)) in ms.into_iter().enumerate() {
                let body = sections.concat();
                let n = len.unwrap_or((PREFIX + body.len()) as i32);
                out.extend_from_slice(&n.to_le_bytes());
                out.extend_from_slice(&0i32.to_le_bytes());
                out.extend_from_slice(&(i as i32 + 1).to_le_bytes());
                out.extend_from_slice(&OP_MSG.to_le_bytes());
                out.extend_from_slice(&flags.to_le_bytes());
                out.extend_from_slice(&body);
            }
            out
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: fuzz_cases(500), ..ProptestConfig::default() })]

        #[test]
        fn fuzz_arbitrary_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..600)) {
            survive(&input);
        }

        #[test]
        fn fuzz_arbitrary_messages_never_panic(input in messages()) {
            survive(&input);
        }
    }

    #[test]
    fn another_protocol_is_quoted_before_the_first_reply() {
        let mut w = replay(b"-ERR unknown command 'x'\r\n");
        w.start();
        let e = w.call().unwrap_err().to_string();
        assert!(
            e.starts_with("stand-in:27017 does not speak the MongoDB protocol: it answered '-ERR unknown com"),
            "{e}"
        );
        let mut w = replay(b"");
        w.start();
        assert!(w.call().unwrap_err().to_string().contains("closed the connection without a word"));
    }

    /// A reply message answering `to`: the body `{ok: 1}` and `extra` sections after it.
    fn reply(to: i32, flags: u32, extra: &[u8]) -> Vec<u8> {
        let mut m = vec![0; PREFIX];
        m.push(0);
        let d = bson_out::begin(&mut m);
        bson_out::f64(&mut m, "ok", 1.0);
        bson_out::end(&mut m, d);
        m.extend_from_slice(extra);
        if flags & CHECKSUM_PRESENT != 0 {
            m.extend_from_slice(&[1, 2, 3, 4]);
        }
        frame(&mut m, 77);
        m[8..12].copy_from_slice(&to.to_le_bytes());
        m[16..20].copy_from_slice(&flags.to_le_bytes());
        m
    }

    #[test]
    fn a_request_is_one_op_msg_with_its_length() {
        let mut out = vec![0; PREFIX];
        out.push(0);
        let d = bson_out::begin(&mut out);
        bson_out::i32(&mut out, "hello", 1);
        bson_out::end(&mut out, d);
        frame(&mut out, 5);
        assert_eq!(le_i32(&out, 0) as usize, out.len());
        assert_eq!((le_i32(&out, 4), le_i32(&out, 8), le_i32(&out, 12)), (5, 0, OP_MSG));
        assert_eq!(out[PREFIX], 0, "a body section");
        let doc = RawDocument::from_bytes(&out[PREFIX + 1..]).unwrap();
        assert_eq!(doc.get_i32("hello").unwrap(), 1);
    }

    #[test]
    fn replies_are_found_with_checksums_and_sequences() {
        let m = reply(9, 0, &[]);
        assert_eq!(check_header(&m[..16], 9).unwrap(), m.len());
        let (a, b) = body(&m).unwrap();
        assert_eq!(RawDocument::from_bytes(&m[a..b]).unwrap().get_f64("ok").unwrap(), 1.0);
        let m = reply(9, CHECKSUM_PRESENT, &[]);
        assert_eq!(body(&m).unwrap().1, m.len() - 4);
        // A document sequence (kind 1): its size, an identifier, documents; skipped.
        let mut seq = vec![1];
        seq.extend_from_slice(&(4 + 2 + 5i32).to_le_bytes());
        seq.extend_from_slice(b"d\0");
        seq.extend_from_slice(&[5, 0, 0, 0, 0]);
        assert!(body(&reply(9, 0, &seq)).is_ok());
    }

    #[test]
    fn hostile_headers_and_sections_are_refused_before_allocating() {
        let m = reply(9, 0, &[]);
        assert!(check_header(&m[..16], 8).unwrap_err().to_string().contains("answers request 9, not 8"));
        let mut h = m[..16].to_vec();
        h[0..4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(check_header(&h, 9).unwrap_err().to_string().contains("at most"));
        h[0..4].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(check_header(&h, 9).is_err());
        h[0..4].copy_from_slice(&10i32.to_le_bytes());
        assert!(check_header(&h, 9).is_err());
        let mut h = m[..16].to_vec();
        h[12..16].copy_from_slice(&OP_COMPRESSED.to_le_bytes());
        assert!(check_header(&h, 9).unwrap_err().to_string().contains("compressed"));
        // A section longer than the message, a missing body, two bodies, an unknown kind,
        // an unknown required flag, a stream of replies.
        let mut m = reply(9, 0, &[]);
        m[PREFIX + 1..PREFIX + 5].copy_from_slice(&1000i32.to_le_bytes());
        assert!(body(&m).is_err());
        let mut m = reply(9, 0, &[]);
        m[PREFIX] = 1;
        assert!(body(&m).unwrap_err().to_string().contains("no body"));
        let first = reply(9, 0, &[]);
        let twice = reply(9, 0, &first[PREFIX..]);
        assert!(body(&twice).unwrap_err().to_string().contains("two body"));
        let mut m = reply(9, 0, &[]);
        m[PREFIX] = 7;
        assert!(body(&m).is_err());
        assert!(body(&reply(9, 1 << 4, &[])).unwrap_err().to_string().contains("flag bits"));
        assert!(body(&reply(9, MORE_TO_COME, &[])).unwrap_err().to_string().contains("moreToCome"));
        // Cut anywhere, a message has no body past its end.
        let m = reply(9, 0, &[]);
        for cut in MIN_LEN - 6..m.len() {
            let mut short = m[..cut].to_vec();
            short[0..4].copy_from_slice(&(cut as i32).to_le_bytes());
            assert!(body(&short).is_err(), "{cut}");
        }
    }
}
