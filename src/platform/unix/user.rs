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
