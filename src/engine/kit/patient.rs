//! Sockets that never hang, shared by every server engine's client: a wait for the
//! server is cut into short slices (the socket's own read and write timeouts), and when a
//! slice runs out a pending Ctrl-C or SIGTERM and the connection's deadline are checked
//! before waiting again. A wait that never times out costs nothing: the clock is read
//! only once a slice has run out. Connecting (name lookup included) waits the same way.
//! In a fiber (many clients on one thread) the socket is nonblocking and a wait parks the
//! fiber until the socket is ready, with the same checks every slice.

use crate::platform::socket::{self, Raw, UnixStream};
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// One slice of a wait: a signal is seen within this.
pub const SLICE: Duration = Duration::from_millis(200);
/// What a wait still gets once a signal is pending: a teardown's last statement on a live
/// server finishes, a silent server cannot hold the run.
pub const GRACE: Duration = Duration::from_secs(1);
/// How long connecting and logging in may take unless the URL says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one wait for a reply may last once logged in: longer than any statement of
/// setup, load or verify takes at the scales a benchmark uses, short of forever.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// A timeout of "as long as it takes" (`connect_timeout=0`): the system's own TCP
/// connect gives up long before this.
pub const FOREVER: Duration = Duration::from_secs(7 * 24 * 3600);

/// A socket whose waits can be sliced.
pub trait Sliced: Read + Write {
    /// Set the read and write timeouts.
    fn set_timeouts(&self, t: Option<Duration>) -> io::Result<()>;
    /// The socket a fiber's event loop waits on; none for bytes from memory.
    fn fd(&self) -> Option<Raw>;
    /// Make reads and writes return `WouldBlock` at once instead of waiting (in a fiber).
    fn set_nonblocking(&self, on: bool) -> io::Result<()>;
    /// Whether a read that returns less than it was given room for has emptied the
    /// socket: a plain socket's has, a TLS session may keep what it decrypted.
    fn drains(&self) -> bool {
        false
    }
}

/// std's plain sockets: their timeouts, descriptor and blocking mode are their own, and
/// a short read empties them.
macro_rules! plain_sockets {
    ($($socket:ty => $raw:path),*) => {$(
        impl Sliced for $socket {
            fn set_timeouts(&self, t: Option<Duration>) -> io::Result<()> {
                self.set_read_timeout(t)?;
                self.set_write_timeout(t)
            }
            fn fd(&self) -> Option<Raw> {
                Some($raw(self))
            }
            fn set_nonblocking(&self, on: bool) -> io::Result<()> {
                <$socket>::set_nonblocking(self, on)
            }
            fn drains(&self) -> bool {
                true
            }
        }
    )*};
}
plain_sockets!(TcpStream => socket::raw_tcp, UnixStream => socket::raw_unix);

/// A socket whose reads and writes give up at a deadline, after a bounded idle wait, or
/// soon after a signal; they fail then with `TimedOut`, or `Other` naming the signal.
pub struct Patient<S> {
    inner: S,
    /// Every wait ends by then (logging in): the instant and the time it was set for.
    until: Option<(Instant, Duration)>,
    /// One wait for the server lasts this long at most, if bounded.
    idle: Option<Duration>,
    /// The socket is nonblocking: it is used from a fiber.
    nonblocking: bool,
    /// A fiber's event loop watches this socket already.
    enrolled: bool,
    /// In a fiber, the last read emptied the socket: until the loop hears of it again, a
    /// reply is not in yet, and a read parks before it tries.
    drained: bool,
}

impl<S: Sliced> Patient<S> {
    /// Wrap `inner`, whose timeouts become the slice; no deadline, no idle bound yet.
    pub fn new(inner: S) -> io::Result<Patient<S>> {
        inner.set_timeouts(Some(SLICE))?;
        Ok(Patient { inner, until: None, idle: None, nonblocking: false, enrolled: false, drained: false })
    }

    /// Every wait ends `within` after `started` (None: no deadline).
    pub fn set_deadline(&mut self, started: Instant, within: Option<Duration>) {
        self.until = within.map(|d| (started + d, d));
    }

    /// Waits end no more at a deadline.
    pub fn clear_deadline(&mut self) {
        self.until = None;
    }

    /// One wait for the server lasts `idle` at most (None: as long as it takes).
    pub fn set_idle(&mut self, idle: Option<Duration>) {
        self.idle = idle;
    }

    /// The socket.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The same waits over what `f` makes of the socket (TLS over a plain connection,
    /// once the server agreed to it).
    pub fn map(self, f: impl FnOnce(S) -> io::Result<S>) -> io::Result<Patient<S>> {
        let inner = f(self.inner)?;
        inner.set_timeouts(Some(SLICE))?;
        inner.set_nonblocking(self.nonblocking)?;
        Ok(Patient { inner, ..self })
    }

    /// Run `op` (a write, if `write`) until it does something, checking between slices
    /// whether to give up.
    fn wait<T>(&mut self, write: bool, mut op: impl FnMut(&mut S) -> io::Result<T>) -> io::Result<T> {
        let fd = self.inner.fd().filter(|_| crate::fiber::inside());
        if fd.is_some() != self.nonblocking {
            self.inner.set_nonblocking(fd.is_some())?;
            self.nonblocking = fd.is_some();
        }
        let mut since = None;
        // A read right after the last one emptied the socket parks first: the try would
        // fail, one recv per statement that a loop of many clients notices.
        let mut park_first = !write && fd.is_some() && self.drained && !crate::fiber::heard();
        loop {
            let r = if park_first {
                park_first = false;
                Err(io::ErrorKind::WouldBlock.into())
            } else {
                if fd.is_some() {
                    crate::fiber::looking();
                }
                op(&mut self.inner)
            };
            match r {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                    ) =>
                {
                    if let Some(fd) = fd {
                        // In a fiber: the loop runs the others until the socket is ready.
                        let now = Instant::now();
                        self.give_up(*since.get_or_insert(now))?;
                        // A TLS read that must write first parks as a read: its slice ends it.
                        crate::fiber::park_socket(fd, !self.enrolled, write, now + SLICE);
                        self.enrolled = true;
                        continue;
                    }
                    // The slice that just ran out is part of the wait.
                    let began =
                        *since.get_or_insert_with(|| Instant::now().checked_sub(SLICE).unwrap_or_else(Instant::now));
                    self.give_up(began)?;
                }
                r => return r,
            }
        }
    }

    /// Whether a wait that began at `began` should end now, and why.
    fn give_up(&self, began: Instant) -> io::Result<()> {
        let waited = began.elapsed();
        if let Some(sig) = crate::signals::pending()
            && waited >= GRACE
        {
            return Err(interrupted(sig));
        }
        if let Some((at, d)) = self.until
            && Instant::now() >= at
        {
            return Err(no_answer(d));
        }
        match self.idle {
            Some(d) if waited >= d => Err(no_answer(d)),
            _ => Ok(()),
        }
    }
}

impl<S: Sliced> Read for Patient<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.wait(false, |s| s.read(buf))?;
        self.drained = self.nonblocking && 0 < n && n < buf.len() && self.inner.drains();
        Ok(n)
    }
}

impl<S: Sliced> Write for Patient<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wait(true, |s| s.write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.wait(true, |s| s.flush())
    }
}

/// A wait ended by the signal `sig`.
fn interrupted(sig: i32) -> io::Error {
    io::Error::other(format!("interrupted by signal {sig} while waiting for the server"))
}

/// A wait that ran out after `d`.
fn no_answer(d: Duration) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, format!("no answer within {}", humantime::format_duration(d)))
}

/// Connect to `host:port` by TCP within `limit` (the name looked up and each address tried
/// in turn), without Nagle (a request and its reply are one packet each); a signal ends
/// the wait. The lookup and the connects run on a thread of their own, since neither can
/// be cut into slices; one given up on ends by itself at `limit`.
pub fn connect_tcp(host: &str, port: u16, limit: Duration) -> io::Result<TcpStream> {
    let host = host.to_string();
    let s = within(limit, move || {
        let mut last = None;
        for a in (host.as_str(), port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, limit) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no address for the host")))
    })?;
    s.set_nodelay(true)?;
    Ok(s)
}

/// Connect to the unix socket `path` within `limit` (a listener whose backlog is full
/// makes connect wait); a signal ends the wait.
pub fn connect_unix(path: &std::path::Path, limit: Duration) -> io::Result<UnixStream> {
    let path = path.to_path_buf();
    within(limit, move || UnixStream::connect(path))
}

/// Run `f` on its own thread and wait for it in slices, `limit` at most; a fiber (a client
/// reconnecting among others on its thread) naps between looks, so the others run.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> io::Result<T> + Send + 'static) -> io::Result<T> {
    use std::sync::mpsc::RecvTimeoutError;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new().name("dbrace-connect".into()).spawn(move || {
        let _ = tx.send(f());
    })?;
    let start = Instant::now();
    let nap = Duration::from_millis(1);
    loop {
        let got = if crate::fiber::inside() {
            rx.try_recv().map_err(|e| match e {
                std::sync::mpsc::TryRecvError::Empty => {
                    crate::fiber::sleep(nap);
                    RecvTimeoutError::Timeout
                }
                std::sync::mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
            })
        } else {
            rx.recv_timeout(SLICE)
        };
        match got {
            Ok(r) => return r,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("the connecting thread died"));
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(sig) = crate::signals::pending()
                    && start.elapsed() >= GRACE
                {
                    return Err(interrupted(sig));
                }
                // A little past `limit`: the thread's own connect timeout says it better.
                if start.elapsed() >= limit.saturating_add(SLICE) {
                    return Err(no_answer(limit));
                }
            }
        }
    }
}

/// Bytes a server sent, quoted for a one-line message: printable ASCII as it is, other
/// bytes escaped, cut after 60 bytes.
pub fn quote(said: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut q = String::new();
    for &b in said.iter().take(60) {
        match b {
            b'\r' => q.push_str("\\r"),
            b'\n' => q.push_str("\\n"),
            b'\\' => q.push_str("\\\\"),
            0x20..=0x7e => q.push(b as char),
            _ => {
                let _ = write!(q, "\\x{b:02x}");
            }
        }
    }
    if said.len() > 60 {
        q.push('…');
    }
    q
}

/// "127.0.0.1:6379 does not speak the PostgreSQL protocol: it answered '-ERR …'".
pub fn foreign(server: &str, protocol: &str, said: &[u8]) -> String {
    if said.is_empty() {
        return format!("{server} does not speak the {protocol} protocol: it closed the connection without a word");
    }
    format!("{server} does not speak the {protocol} protocol: it answered '{}'", quote(said))
}

/// A byte source for the wire readers' fuzz tests: reads what it was given, then the end
/// of the stream; writes go nowhere.
#[cfg(test)]
pub struct Replay {
    input: io::Cursor<Vec<u8>>,
}

#[cfg(test)]
impl Replay {
    /// A server that says `input` whatever it is asked.
    pub fn new(input: Vec<u8>) -> Replay {
        Replay { input: io::Cursor::new(input) }
    }
}

#[cfg(test)]
impl Read for Replay {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }
}

#[cfg(test)]
impl Write for Replay {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl Sliced for Replay {
    fn set_timeouts(&self, _: Option<Duration>) -> io::Result<()> {
        Ok(())
    }
    fn fd(&self) -> Option<Raw> {
        None
    }
    fn set_nonblocking(&self, _: bool) -> io::Result<()> {
        Ok(())
    }
}

/// How many cases each wire reader's fuzz test runs: `DBRACE_FUZZ_CASES`, else `default`.
#[cfg(test)]
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("DBRACE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silent_server_times_out_at_the_deadline() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let s = connect_tcp("127.0.0.1", port, Duration::from_secs(2)).unwrap();
        let mut p = Patient::new(s).unwrap();
        p.set_deadline(Instant::now(), Some(Duration::from_millis(500)));
        let t = Instant::now();
        let e = p.read(&mut [0; 8]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
        assert!(e.to_string().contains("no answer within 500ms"), "{e}");
        assert!(t.elapsed() < Duration::from_millis(900), "{:?}", t.elapsed());
        p.clear_deadline();
        p.set_idle(Some(Duration::from_millis(300)));
        assert!(p.read(&mut [0; 8]).is_err());
    }

    /// A fiber whose last read emptied its socket parks before reading again, and still
    /// reads at once what came while it did something else, and soon what comes after.
    #[test]
    fn a_drained_socket_in_a_fiber_misses_no_reply() {
        let (a, mut peer) = UnixStream::pair().unwrap();
        let feeder = std::thread::spawn(move || {
            peer.write_all(b"1").unwrap();
            // While the fiber sleeps: the loop hears it, the fiber is not waiting.
            std::thread::sleep(Duration::from_millis(30));
            peer.write_all(b"2").unwrap();
            // While the fiber waits, parked before it tried.
            std::thread::sleep(Duration::from_millis(150));
            peer.write_all(b"3").unwrap();
            peer
        });
        let task = move || {
            let mut p = Patient::new(a).unwrap();
            let mut b = [0u8; 8];
            assert_eq!(p.read(&mut b).unwrap(), 1);
            assert!(p.drained, "a short read in a fiber empties a plain socket");
            crate::fiber::sleep(Duration::from_millis(100));
            let t = Instant::now();
            assert_eq!((p.read(&mut b).unwrap(), b[0]), (1, b'2'));
            // At once, not after a slice (200 ms), with room for a busy machine.
            assert!(t.elapsed() < Duration::from_millis(100), "read at once: {:?}", t.elapsed());
            let t = Instant::now();
            assert_eq!((p.read(&mut b).unwrap(), b[0]), (1, b'3'));
            // Woken by the loop when it came (about 80 ms on), not after a slice (200 ms).
            assert!(t.elapsed() < Duration::from_millis(190), "woken when it came: {:?}", t.elapsed());
        };
        let out = crate::fiber::event_loop::run(vec![task]).map_err(|e| e.error).unwrap();
        drop(feeder.join().unwrap());
        out.into_iter().for_each(|o| o.unwrap());
    }

    #[test]
    fn what_a_server_said_is_quoted_on_one_line() {
        assert_eq!(quote(b"-ERR unknown\r\n\x00\xff"), "-ERR unknown\\r\\n\\x00\\xff");
        assert!(quote(&[b'a'; 100]).ends_with("a…"));
        assert_eq!(
            foreign("h:1", "PostgreSQL", b""),
            "h:1 does not speak the PostgreSQL protocol: it closed the connection without a word"
        );
    }
}
