//! The machine's `redis-server`: found on PATH or in the usual places, and its version.

use crate::error::Result;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The server binary in use.
#[derive(Clone, Debug)]
pub struct Binary {
    /// Path of redis-server.
    pub path: PathBuf,
    /// Its version, e.g. 7.0.15.
    pub version: String,
}

/// Find redis-server on PATH or in the usual places, once per process.
pub fn binary() -> Result<Binary> {
    static FOUND: OnceLock<std::result::Result<Binary, String>> = OnceLock::new();
    FOUND.get_or_init(find).clone().map_err(|m| bad_input!("{m}"))
}

fn find() -> std::result::Result<Binary, String> {
    let path_dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    let usual = crate::platform::packages::server_dirs("redis");
    let Some(path) = path_dirs.iter().chain(&usual).map(|d| d.join("redis-server")).find(|p| p.is_file()) else {
        let hint = crate::platform::packages::install_hint("redis");
        return Err(format!("redis-server not found; install it ({hint}) or put it on PATH"));
    };
    let out =
        Command::new(&path).arg("--version").output().map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    // "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=…"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().find_map(|w| w.strip_prefix("v=")).unwrap_or("unknown").to_string();
    Ok(Binary { path, version })
}
