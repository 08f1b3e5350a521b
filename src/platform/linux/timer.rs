//! The event loop's fine timer: epoll's timeout counts whole milliseconds, too coarse for
//! `--rate`'s arrivals or a retry's backoff, so a wake-up due soon is armed on a
//! monotonic timerfd registered with the loop's poll, to the microsecond.

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// A timerfd, registered with a poll.
pub struct Fine(OwnedFd);

impl Fine {
    /// A timer that wakes `registry`'s poll under `token`.
    pub fn new(registry: &Registry, token: Token) -> io::Result<Fine> {
        // SAFETY: timerfd_create returns a new descriptor we own, or -1.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is open and ours alone.
        let t = Fine(unsafe { OwnedFd::from_raw_fd(fd) });
        registry.register(&mut SourceFd(&t.0.as_raw_fd()), token, Interest::READABLE)?;
        Ok(t)
    }

    /// Wake the poll once, `after` from now (rounded up to a nanosecond: zero would
    /// disarm it). An error leaves the wait to the poll's own timeout.
    pub fn arm(&self, after: Duration) -> io::Result<()> {
        let after = after.max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: after.as_secs() as _, tv_nsec: after.subsec_nanos() as _ },
        };
        // SAFETY: a valid descriptor and a spec we own; the old value is not asked for.
        if unsafe { libc::timerfd_settime(self.0.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
