//! Who runs: root or not, and the ids of a user by name.

use std::ffi::CString;

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A user's id and primary group id from the password database.
pub fn lookup(name: &str) -> Option<(u32, u32)> {
    let c = CString::new(name).ok()?;
    // SAFETY: getpwnam returns a pointer into static storage or null; we copy out at once.
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    if pw.is_null() {
        return None;
    }
    Some(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

/// This process's user and group ids.
pub fn ids() -> Option<(u32, u32)> {
    // SAFETY: getuid and getgid have no preconditions.
    Some(unsafe { (libc::getuid(), libc::getgid()) })
}

/// The user's cache directory, $XDG_CACHE_HOME or ~/.cache; else what to set.
pub fn cache_home() -> Result<std::path::PathBuf, &'static str> {
    let set =
        |name| std::env::var_os(name).filter(|x: &std::ffi::OsString| !x.is_empty()).map(std::path::PathBuf::from);
    match (set("XDG_CACHE_HOME"), set("HOME")) {
        (Some(x), _) => Ok(x),
        (None, Some(h)) => Ok(h.join(".cache")),
        (None, None) => Err("neither XDG_CACHE_HOME nor HOME is set"),
    }
}
