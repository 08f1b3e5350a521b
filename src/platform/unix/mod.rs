//! What Linux and macOS share: POSIX processes, signals, users, file owners and modes,
//! unix sockets, a thread's CPU clock.

pub mod cpu;
pub mod files;
pub mod process;
pub mod signal;
pub mod socket;
pub mod user;
