//! What dbrace calls what it makes in the daemon: its containers' names and the label
//! that says which process owns a container or a volume (what `reap` reads).

use std::sync::atomic::{AtomicU64, Ordering};

/// The label that carries a container's owner line ("pid start-time").
pub const OWNER_LABEL: &str = "org.dbrace.owner";

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A name for a container of this process: `dbrace-<pid>-<start time>-<n>` (the start
/// time too: two dbrace processes in containers of their own may share a pid).
pub fn next_name() -> String {
    let pid = std::process::id();
    let started = crate::instance::datadir::start_time(pid).unwrap_or(0);
    format!("dbrace-{pid}-{started}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}
