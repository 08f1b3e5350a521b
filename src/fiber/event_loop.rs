//! One worker thread's event loop: it runs each task as a fiber, and when a fiber parks
//! (a socket not ready, a sleep, a yield) it runs the next ready one; with none ready it
//! waits in epoll (mio) for a socket to become ready or a parked fiber's time to come.
//! Sockets are registered once per connection, edge-triggered for reading and writing,
//! under their fiber's number; an event for a fiber not waiting on its socket, or of the
//! other direction (the send buffer drained while it waits for a reply), wakes nobody,
//! but a readable one is kept for the fiber (`heard`): a fiber whose last read emptied
//! its socket parks before reading again unless it has heard of new bytes since. Where the
//! poll's timeout counts whole milliseconds (epoll), too coarse for `--rate`'s arrivals or
//! a retry's backoff, a wake-up due within `FINE` is armed on the platform's fine timer.

use super::{CURRENT, HEARD, Park};
use crate::platform::socket;
use crate::platform::timer::Fine;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use mio::{Events, Interest, Poll, Token};
use std::collections::VecDeque;
use std::io;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// A fiber's stack: room for a TLS handshake or a workload's deepest transaction; its
/// pages are committed only as they are touched.
const STACK: usize = 256 << 10;

/// A task's end: its value, or what it panicked with (as a joined thread's).
pub type Outcome<T> = std::thread::Result<T>;

/// A task on a stack of its own, borrowing from `run`'s caller for `'a`.
struct Fiber<'a, T> {
    co: Coroutine<(), Park, Outcome<T>, DefaultStack>,
    _borrows: PhantomData<&'a mut ()>,
}

impl<'a, T> Fiber<'a, T> {
    fn new(task: impl FnOnce() -> T + 'a, stack: DefaultStack) -> Fiber<'a, T> {
        let body = move |me: &Yielder<(), Park>, ()| {
            CURRENT.set(me);
            // Caught here, so a client's panic ends its fiber alone, as it ends its thread.
            let r = catch_unwind(AssertUnwindSafe(task));
            CURRENT.set(std::ptr::null());
            r
        };
        // SAFETY: what the task borrows lives for 'a, beyond `run`; `run` drives every
        // fiber to its end, or drops (unwinds) it, before it returns, and forgets none.
        let co = unsafe { Coroutine::with_stack_unchecked(stack, body) };
        Fiber { co, _borrows: PhantomData }
    }
}

/// Where a fiber stands.
#[derive(Clone, Copy)]
enum State {
    /// In the ready queue.
    Ready,
    /// Parked on its socket (for writing, if true), or until this instant.
    Socket(Instant, bool),
    /// Parked until this instant.
    Timer(Instant),
    /// Done.
    Done,
}

/// The longest a registration failure may hold a fiber before it tries its socket again.
const RETRY: Duration = Duration::from_millis(1);
/// Wake-ups closer than this go on the fine timer; epoll's own timeout serves the others.
const FINE: Duration = Duration::from_millis(20);
/// The fine timer's token: past any fiber's number.
const TIMER: Token = Token(usize::MAX);

/// A loop that could not start (no poll, fine timer or stacks: out of descriptors or
/// memory, or a platform whose sockets the loop cannot watch), and the tasks it was given, none of them begun.
pub struct NotStarted<F> {
    /// Why.
    pub error: io::Error,
    /// The tasks, to run some other way.
    pub tasks: Vec<F>,
}

/// Run every task to its end on this thread, each as a fiber; their outcomes, in order.
pub fn run<'a, T, F: FnOnce() -> T + 'a>(tasks: Vec<F>) -> Result<Vec<Outcome<T>>, NotStarted<F>> {
    let n = tasks.len();
    let setup = || -> io::Result<_> {
        let poll = Poll::new()?;
        let timer = Fine::new(poll.registry(), TIMER)?;
        let stacks = (0..n).map(|_| DefaultStack::new(STACK)).collect::<io::Result<Vec<_>>>()?;
        Ok((poll, timer, stacks))
    };
    let (poll, timer, stacks) = match setup() {
        Ok(s) => s,
        Err(error) => return Err(NotStarted { error, tasks }),
    };
    // Sized up front: the loop never allocates.
    let mut l = Loop {
        poll,
        timer,
        events: Events::with_capacity(n.max(16)),
        fibers: tasks.into_iter().zip(stacks).map(|(t, s)| Fiber::new(t, s)).collect(),
        state: vec![State::Ready; n],
        heard: vec![false; n],
        out: (0..n).map(|_| None).collect(),
        ready: (0..n).collect(),
        later: Vec::with_capacity(n),
        live: n,
    };
    while l.live > 0 {
        l.resume_ready();
        if l.live == 0 {
            break;
        }
        let next = l.wake_due(Instant::now());
        l.wait(next);
        l.ready.extend(l.later.drain(..));
    }
    Ok(l.out.into_iter().map(|o| o.expect("every fiber ran to its end")).collect())
}

/// The loop's fibers and what it knows of each.
struct Loop<'a, T> {
    poll: Poll,
    timer: Fine,
    events: Events,
    fibers: Vec<Fiber<'a, T>>,
    state: Vec<State>,
    /// Whether each fiber's socket showed something to read while it was not parked on it.
    heard: Vec<bool>,
    out: Vec<Option<Outcome<T>>>,
    ready: VecDeque<usize>,
    /// Fibers that yielded: ready again after the others had their turn.
    later: Vec<usize>,
    live: usize,
}

impl<T> Loop<'_, T> {
    /// Run every ready fiber until it parks, yields or ends.
    fn resume_ready(&mut self) {
        while let Some(i) = self.ready.pop_front() {
            HEARD.set(self.heard[i]);
            let turn = self.fibers[i].co.resume(());
            self.heard[i] = HEARD.get();
            self.state[i] = match turn {
                CoroutineResult::Yield(Park::Socket { fd, fresh, write, by }) => {
                    let enrolled = !fresh || enroll(&self.poll, fd, i).is_ok();
                    State::Socket(if enrolled { by } else { by.min(Instant::now() + RETRY) }, write)
                }
                CoroutineResult::Yield(Park::Until(t)) => State::Timer(t),
                CoroutineResult::Yield(Park::Yield) => {
                    self.later.push(i);
                    State::Ready
                }
                CoroutineResult::Return(r) => {
                    self.out[i] = Some(r);
                    self.live -= 1;
                    State::Done
                }
            };
        }
    }

    /// Ready the fibers whose time has come by `now`; the earliest time still to come.
    fn wake_due(&mut self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for (i, s) in self.state.iter_mut().enumerate() {
            if let State::Socket(t, _) | State::Timer(t) = *s {
                if t <= now {
                    *s = State::Ready;
                    self.ready.push_back(i);
                } else {
                    next = Some(next.map_or(t, |n| n.min(t)));
                }
            }
        }
        next
    }

    /// Wait for a socket or for `next` (not at all while fibers are ready), and ready the
    /// fibers whose sockets are.
    fn wait(&mut self, next: Option<Instant>) {
        let timeout = match next.map(|t| t.saturating_duration_since(Instant::now())) {
            _ if !self.ready.is_empty() || !self.later.is_empty() => Some(Duration::ZERO),
            // Should arming fail, the poll's own timeout serves.
            Some(d) if d < FINE && self.timer.arm(d).is_ok() => None,
            d => d,
        };
        if let Err(e) = self.poll.poll(&mut self.events, timeout)
            && e.kind() != io::ErrorKind::Interrupted
        {
            // Only a broken poll descriptor or buffer fails here: a bug, not a condition.
            panic!("the event loop's poll failed: {e}");
        }
        for e in self.events.iter() {
            let i = e.token().0;
            let Some(s) = self.state.get_mut(i) else { continue };
            let readable = e.is_error() || e.is_readable() || e.is_read_closed();
            match *s {
                State::Socket(_, write) if e.is_error() || if write { e.is_writable() } else { readable } => {
                    *s = State::Ready;
                    self.ready.push_back(i);
                }
                _ => self.heard[i] |= readable,
            }
        }
    }
}

/// Watch `fd` for fiber `i`: a new connection, or one whose socket was closed and whose
/// number another connection now has (a closed socket leaves epoll by itself).
fn enroll(poll: &Poll, fd: socket::Raw, i: usize) -> io::Result<()> {
    socket::register(poll.registry(), fd, Token(i), Interest::READABLE | Interest::WRITABLE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    /// Fibers on one thread wait for their sockets in turn, each its own order kept.
    #[test]
    fn fibers_take_turns_on_their_sockets() {
        let pairs: Vec<_> = (0..4).map(|_| UnixStream::pair().unwrap()).collect();
        let tasks: Vec<Box<dyn FnOnce() -> Vec<u8>>> = pairs
            .iter()
            .map(|(a, _)| {
                let mut a = a.try_clone().unwrap();
                Box::new(move || {
                    a.set_nonblocking(true).unwrap();
                    let mut got = Vec::new();
                    let mut fresh = true;
                    while got.len() < 3 {
                        let mut b = [0u8; 1];
                        match a.read(&mut b) {
                            Ok(1) => {
                                got.push(b[0]);
                                // Answer, so the peer sends the next byte.
                                a.write_all(&b).unwrap();
                            }
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                                let by = Instant::now() + Duration::from_secs(5);
                                super::super::park_socket(a.as_raw_fd(), fresh, false, by);
                                fresh = false;
                            }
                            other => panic!("{other:?}"),
                        }
                    }
                    got
                }) as Box<dyn FnOnce() -> Vec<u8>>
            })
            .collect();
        let peers: Vec<_> = pairs.iter().map(|(_, b)| b.try_clone().unwrap()).collect();
        let feeder = std::thread::spawn(move || {
            for mut p in peers.into_iter().rev() {
                for byte in 1..=3u8 {
                    p.write_all(&[byte]).unwrap();
                    let mut echo = [0u8; 1];
                    p.read_exact(&mut echo).unwrap();
                    assert_eq!(echo, [byte]);
                }
            }
        });
        let out = run(tasks).map_err(|e| e.error).unwrap();
        feeder.join().unwrap();
        for o in out {
            assert_eq!(o.unwrap(), vec![1, 2, 3]);
        }
    }

    /// A sleeping fiber lets the others run, and a panicking one ends alone.
    #[test]
    fn sleeps_interleave_and_a_panic_stays_in_its_fiber() {
        let order = std::cell::RefCell::new(Vec::new());
        let order = &order;
        let tasks: Vec<Box<dyn FnOnce() -> u32 + '_>> = vec![
            Box::new(move || {
                super::super::sleep(Duration::from_millis(200));
                order.borrow_mut().push("slept");
                1
            }),
            Box::new(move || {
                super::super::yield_now();
                order.borrow_mut().push("yielded");
                2
            }),
            Box::new(|| {
                // After the others, so that printing the panic delays no one.
                super::super::sleep(Duration::from_millis(300));
                panic!("this fiber fails")
            }),
        ];
        let t = Instant::now();
        let out = run(tasks).map_err(|e| e.error).unwrap();
        assert!(t.elapsed() >= Duration::from_millis(300));
        assert_eq!(*order.borrow(), ["yielded", "slept"]);
        assert_eq!(*out[0].as_ref().unwrap(), 1);
        assert_eq!(*out[1].as_ref().unwrap(), 2);
        assert!(out[2].is_err());
        assert!(!super::super::inside());
    }
}
