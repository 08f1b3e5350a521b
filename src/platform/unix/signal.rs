//! The signals dbrace sends and names, by their numbers on this platform.

/// Interrupt (Ctrl-C).
pub const INT: i32 = libc::SIGINT;
/// Terminate, politely.
pub const TERM: i32 = libc::SIGTERM;
/// Quit: PostgreSQL's immediate shutdown.
pub const QUIT: i32 = libc::SIGQUIT;
/// Kill, no questions.
pub const KILL: i32 = libc::SIGKILL;

/// Give a closed pipe's writer the default end (exit quietly, as `| head` expects)
/// rather than Rust's ignored SIGPIPE and a write error.
pub fn default_pipe_end() {
    // SAFETY: restoring a signal's default disposition at startup, before any thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}
