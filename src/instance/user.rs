//! The unprivileged user a server runs as when dbrace runs as root (PostgreSQL and
//! MariaDB refuse root; Redis does not, but need not have it). Never created silently:
//! the package's own user (`postgres`, `mysql`, `redis`, `mongodb`) if it exists, or `--run-as`.

use crate::error::Result;
use crate::platform::{files, user};

/// A user to run servers as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunAs {
    /// Login name.
    pub name: String,
    /// User id.
    pub uid: u32,
    /// Primary group id.
    pub gid: u32,
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    user::is_root()
}

/// Look a user up in the password database.
pub fn lookup(name: &str) -> Option<RunAs> {
    let (uid, gid) = user::lookup(name)?;
    Some(RunAs { name: name.to_string(), uid, gid })
}

/// Who a server that refuses root runs as: nobody else when we are not root; else
/// `--run-as USER` (`chosen`), or the package's own user (`default`, e.g. postgres) when
/// it exists.
pub fn for_server(chosen: Option<&str>, server: &str, default: &str) -> Result<Option<RunAs>> {
    match unprivileged(chosen, default)? {
        Some(u) => Ok(Some(u)),
        None if is_root() => Err(bad_input!(
            "{server} refuses to run as root and there is no '{default}' user; create an unprivileged user and pass --run-as USER"
        )),
        None => Ok(None),
    }
}

/// Who a server that would run as root runs as instead: nobody else when we are not root;
/// else `--run-as USER` (`chosen`), or `default` when that user exists; None leaves it root.
pub fn unprivileged(chosen: Option<&str>, default: &str) -> Result<Option<RunAs>> {
    if !is_root() {
        return Ok(None);
    }
    match chosen {
        Some(name) => lookup(name).map(Some).ok_or_else(|| {
            bad_input!("--run-as {name}: no such user; create it (useradd --system {name}) or name another")
        }),
        None => Ok(lookup(default)),
    }
}

/// Refuse a directory the server's user cannot reach (a parent that is not its own and
/// is closed to others, like root's 0700 home).
pub fn reachable(dir: &std::path::Path, u: &RunAs) -> Result<()> {
    for a in dir.ancestors().skip(1) {
        let Ok(m) = std::fs::metadata(a) else { continue };
        let mode = files::mode(&m);
        let open = mode & 0o001 != 0 || (files::owner(&m) == u.uid && mode & 0o100 != 0);
        if !open {
            return Err(bad_input!(
                "user {} cannot reach {}: {} is closed to it (mode {:o}); choose --disk-dir / --ram-dir elsewhere, e.g. under /var/tmp",
                u.name,
                dir.display(),
                a.display(),
                mode & 0o777
            ));
        }
    }
    Ok(())
}
