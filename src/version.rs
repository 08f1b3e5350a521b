//! The version `--version` prints and results files record.

/// The crate version, with the commit and its date when built from a git checkout:
/// `0.1.0 (937dbff 2026-12-01)`; the version alone in a crates.io or tarball build.
pub const VERSION: &str = env!("DBRACE_VERSION");
