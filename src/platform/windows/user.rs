//! Who runs: managed servers, which run as another user where dbrace is root, do not run
//! on Windows, so there is no root and no user to look up.

/// Never root.
pub fn is_root() -> bool {
    false
}

/// Not looked up on this platform.
pub fn lookup(_: &str) -> Option<(u32, u32)> {
    None
}

/// Not available on this platform.
pub fn ids() -> Option<(u32, u32)> {
    None
}

/// The user's cache directory, %LOCALAPPDATA%; else what to set.
pub fn cache_home() -> Result<std::path::PathBuf, &'static str> {
    match std::env::var_os("LOCALAPPDATA").filter(|x| !x.is_empty()) {
        Some(d) => Ok(d.into()),
        None => Err("LOCALAPPDATA is not set"),
    }
}
