//! The clients' connections, opened a few at a time: 500 clients need not wait for 500
//! logins one after another, nor does the server get 500 at once. Only a server's: an
//! embedded engine's connections open one after another, as they always did (SQLite's
//! switch to WAL, run by each, would meet a lock).

use crate::engine::{Connection, Instance};
use crate::error::Result;

/// Connections being opened at once.
const AT_ONCE: usize = 8;

/// `n` connections to `instance`, in order, or the first failure (a server that takes no
/// more connections says so in its engine's words).
pub fn open(instance: &dyn Instance, n: usize) -> Result<Vec<Connection>> {
    let first = instance.connect()?;
    if instance.embedded() {
        return std::iter::once(Ok(first)).chain((1..n).map(|_| instance.connect())).collect();
    }
    let others = crate::jobs::side_by_side(&mut [(); AT_ONCE], n.saturating_sub(1), |_, _| instance.connect());
    // After a failure, the connections not tried are missing; the failure is among them.
    std::iter::once(Ok(first)).chain(others.into_iter().flatten()).collect()
}
