//! Names of prepared statements shared by an instance's connections, so no two collide
//! and a loss one finds (a transaction pooler) switches them all to unnamed statements.

use std::sync::atomic::AtomicU32;
use std::sync::{Arc, OnceLock};

/// What the connections of one instance learn together about named statements: a number
/// per connection, so no two connections' names collide, and whether a name was lost.
#[derive(Default)]
pub struct Named {
    pub(super) next: AtomicU32,
    pub(super) lost: OnceLock<String>,
}

impl Named {
    /// The server's words when a named statement was first found missing (or taken).
    pub fn lost(&self) -> Option<&str> {
        self.lost.get().map(String::as_str)
    }
}

/// One connection's share of its instance's `Named`, and its number there.
#[derive(Default)]
pub(super) struct NamedHere {
    pub(super) shared: Arc<Named>,
    pub(super) conn: u32,
}
