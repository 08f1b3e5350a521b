//! No server packages are looked for on Windows: managed servers do not run there.

use std::path::PathBuf;

/// None: managed servers do not run on Windows.
pub fn server_dirs(_engine: &str) -> Vec<PathBuf> {
    Vec::new()
}

/// The way to a server on Windows.
pub fn install_hint(_engine: &str) -> &'static str {
    "a server of its own, reached with --url, or WSL2"
}
