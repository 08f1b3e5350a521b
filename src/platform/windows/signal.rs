//! The signals dbrace handles and names: the C runtime's numbers for Ctrl-C and a
//! terminate request; quit and kill have no signal here and end a process outright.

/// Interrupt (Ctrl-C).
pub const INT: i32 = 2;
/// Terminate, politely.
pub const TERM: i32 = 15;
/// Quit: PostgreSQL's immediate shutdown.
pub const QUIT: i32 = 3;
/// Kill, no questions.
pub const KILL: i32 = 9;

/// A closed pipe is a write error on Windows: nothing to restore.
pub fn default_pipe_end() {}
