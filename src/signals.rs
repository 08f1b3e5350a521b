//! Ctrl-C and SIGTERM: the first asks the run to stop cleanly (finish the cell's
//! teardown, keep results); a second one exits at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

static RECEIVED: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

/// Install the handlers (idempotent).
pub fn install() {
    RECEIVED.get_or_init(|| {
        let received = Arc::new(AtomicUsize::new(0));
        let armed = Arc::new(AtomicBool::new(false));
        for sig in [crate::platform::signal::INT, crate::platform::signal::TERM] {
            // Order matters: the shutdown hook sees `armed` as it was before this signal.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, armed.clone());
            let _ = signal_hook::flag::register(sig, armed.clone());
            let _ = signal_hook::flag::register_usize(sig, received.clone(), sig as usize);
        }
        received
    });
}

/// The signal that asked us to stop, if any.
pub fn pending() -> Option<i32> {
    let sig = RECEIVED.get()?.load(Ordering::Relaxed);
    (sig != 0).then_some(sig as i32)
}

/// Fail with `Error::Interrupted` when a stop was asked for.
pub fn check() -> crate::error::Result<()> {
    match pending() {
        Some(sig) => Err(crate::error::Error::Interrupted(sig)),
        None => Ok(()),
    }
}
