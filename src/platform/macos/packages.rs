//! Where Homebrew puts each engine's server binaries, under either prefix, and the `brew
//! install` line; MySQL's own installer's directory as well.

use std::path::{Path, PathBuf};

/// The directories that may hold `engine`'s server binaries, in the order to look (after
/// the flags' and before PATH).
pub fn server_dirs(engine: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = crate::platform::homebrew::PREFIXES
        .iter()
        .flat_map(|p| crate::platform::homebrew::server_dirs(Path::new(p), engine))
        .collect();
    if engine == "mysql" {
        dirs.push(PathBuf::from("/usr/local/mysql/bin"));
    }
    dirs
}

/// How to install `engine`'s server, in a few words.
pub fn install_hint(engine: &str) -> &'static str {
    crate::platform::homebrew::install_line(engine)
}
