//! Many clients on one thread (`--threads`, pgbench's `-j`): each client runs as a fiber,
//! a stackful coroutine of its own, and whatever would block it — a socket not ready, a
//! sleep — hands the thread to the worker's event loop (`event_loop::run`), which resumes
//! the fiber once its socket is ready or its time has come. The clients' code stays the
//! plain sequential code every engine and workload already is, so a transaction's
//! statements keep their order and its latency is still timed around it.
//!
//! Code that waits calls `park_socket`, `sleep` or `yield_now`: inside a fiber they park
//! it, on an ordinary thread they block as before.

pub mod event_loop;

use corosensei::Yielder;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// Why a fiber gave its thread back, and when to look at it again.
enum Park {
    /// Until the socket `fd` is ready to read (to write, if `write`) or `by` has come;
    /// `fresh`: this connection has not been waited on yet, so the loop registers it.
    Socket { fd: crate::platform::socket::Raw, fresh: bool, write: bool, by: Instant },
    /// Until this instant.
    Until(Instant),
    /// Until the other ready fibers have had a turn.
    Yield,
}

// Both are const already; clippy's lint misreads the expansion std uses for Windows.
thread_local! {
    /// The running fiber's way back to its loop; null on an ordinary thread, and between
    /// the loop's turns.
    #[allow(clippy::missing_const_for_thread_local)]
    static CURRENT: Cell<*const Yielder<(), Park>> = const { Cell::new(std::ptr::null()) };
}

thread_local! {
    /// The running fiber's socket was reported readable since the fiber last looked
    /// (`looking`); kept per fiber by the loop between turns.
    #[allow(clippy::missing_const_for_thread_local)]
    static HEARD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the running fiber's socket was reported readable since it last looked: if
/// not, and its last read emptied it, no reply is in yet.
pub fn heard() -> bool {
    HEARD.get()
}

/// The running fiber is about to try its socket: what was reported until now, it sees.
pub fn looking() {
    HEARD.set(false);
}

/// Whether the calling code runs in a fiber.
pub fn inside() -> bool {
    !CURRENT.get().is_null()
}

/// Give the thread back to the loop until `why` is over.
fn park(why: Park) {
    let me = CURRENT.replace(std::ptr::null());
    assert!(!me.is_null(), "park outside a fiber");
    // SAFETY: `me` was set by this fiber's own body (event_loop::run) from the yielder it
    // was started with, which lives as long as the fiber; it is only used from the
    // fiber's own stack, and set again for the fiber's next turn.
    unsafe { (*me).suspend(why) };
    CURRENT.set(me);
}

/// In a fiber: wait until the socket `fd` may be ready to read (to write, if `write`), or
/// `by` (the caller then checks its deadlines and signals and waits again). `fresh`: the
/// first wait on this connection.
pub fn park_socket(fd: crate::platform::socket::Raw, fresh: bool, write: bool, by: Instant) {
    park(Park::Socket { fd, fresh, write, by });
}

/// Sleep for `d`: the fiber parks, an ordinary thread sleeps.
pub fn sleep(d: Duration) {
    if inside() {
        park(Park::Until(Instant::now() + d));
    } else {
        std::thread::sleep(d);
    }
}

/// Let others run: the other ready fibers of this loop, or the system's other threads.
pub fn yield_now() {
    if inside() {
        park(Park::Yield);
    } else {
        std::thread::yield_now();
    }
}
