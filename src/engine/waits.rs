//! What a server's sessions are waiting for, as its own view shows them, read on a
//! connection of its own (`--hotspots`): sampled through the measured phase, it says
//! where the part of a transaction that perf cannot see (off the CPU) goes.

/// Reads what dbrace's client sessions on a server wait for.
pub trait WaitReader: Send {
    /// Per client session now, what it waits for, by the server's name for it ("CPU"
    /// when it waits for nothing: running, or ready to run).
    fn read(&mut self) -> Result<Vec<String>, String>;
}
