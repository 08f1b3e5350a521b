//! Template data directories: made once (initdb, mariadb-install-db, or a container of an
//! image whose entrypoint runs them) into the shared templates directory, then laid into
//! each instance's data directory. A container's template keeps the login secret its init
//! set in a 0600 file of its own 0700 directory.

use crate::error::{Error, Result};
use crate::instance::user::RunAs;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file of a template's login secret.
const SECRET: &str = "secret";

/// The template for `key` (what it depends on: binaries, user, init options), made by
/// `make` at most once per process, even with clients racing to launch.
pub fn cached(key: String, make: impl FnOnce() -> Result<PathBuf>) -> Result<PathBuf> {
    // A cache of files on disk, keyed by everything they depend on.
    static MADE: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = made.get_or_insert_with(HashMap::new).get(&key) {
        return Ok(p.clone());
    }
    let path = make()?;
    made.get_or_insert_with(HashMap::new).insert(key, path.clone());
    Ok(path)
}

/// Template `name` in the shared templates directory, made unless `done` (a path inside
/// it) is there already: `init` is given a temporary directory (owned by `user`) and runs
/// the step that fills it; `failed` explains a step that did not succeed. Another dbrace
/// may win the race to the name: theirs is as good.
pub fn install(
    name: &str,
    done: &str,
    user: Option<&RunAs>,
    init: impl FnOnce(&Path) -> Result<std::process::Output>,
    failed: impl FnOnce(&std::process::Output) -> Error,
) -> Result<PathBuf> {
    made(name, done, |tmp| {
        if let Some(u) = user {
            crate::platform::files::chown(tmp, u.uid, u.gid).map_err(|e| failed!("cannot chown template: {e}"))?;
        }
        let out = init(tmp)?;
        if out.status.success() { Ok(()) } else { Err(failed(&out)) }
    })
}

/// Template `name` in the shared templates directory, made unless `done` (a path inside
/// it) is there already: `fill` fills an empty 0700 temporary directory of dbrace's,
/// which then takes the name (or, when another dbrace won the race to it, is removed:
/// theirs is as good). A failed fill leaves nothing behind.
pub fn made(name: &str, done: &str, fill: impl FnOnce(&Path) -> Result<()>) -> Result<PathBuf> {
    let dir = crate::instance::location::shared_dir()?.join("templates");
    std::fs::create_dir_all(&dir).map_err(|e| failed!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(name);
    if path.join(done).exists() {
        return Ok(path);
    }
    remove_abandoned();
    let tmp = dir.join(format!("{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    crate::platform::files::private_dir(&tmp).map_err(|e| failed!("cannot create {}: {e}", tmp.display()))?;
    if let Err(e) = fill(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(path)
}

/// Remove the temporary templates of processes that are gone (a SIGKILL mid-init); how many.
pub fn remove_abandoned() -> usize {
    let Ok(dir) = crate::instance::location::shared_dir() else { return 0 };
    let Ok(entries) = std::fs::read_dir(dir.join("templates")) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name.rsplit_once(".tmp-").and_then(|(_, p)| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid > 0
            && !crate::platform::process::alive(pid)
        {
            removed += usize::from(std::fs::remove_dir_all(e.path()).is_ok());
        }
    }
    removed
}

/// A new random login secret for the template being made in `dir`, kept there.
pub fn new_secret(dir: &Path) -> Result<String> {
    let secret = crate::instance::server::random_password()?;
    keep_secret(dir, &secret)?;
    Ok(secret)
}

/// Keep a template's login secret in `dir` (the template's 0700 directory), readable by
/// dbrace's user alone.
pub fn keep_secret(dir: &Path, secret: &str) -> Result<()> {
    use std::io::Write;
    let path = dir.join(SECRET);
    let mut f = crate::platform::files::private_file(&path, std::fs::OpenOptions::new().write(true).create_new(true))
        .map_err(|e| failed!("cannot create {}: {e}", path.display()))?;
    f.write_all(secret.as_bytes()).map_err(|e| failed!("cannot write {}: {e}", path.display()))
}

/// The login secret a template's init set.
pub fn secret(dir: &Path) -> Result<String> {
    let path = dir.join(SECRET);
    std::fs::read_to_string(&path).map_err(|e| failed!("cannot read the template's secret {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_kept_owner_only_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        keep_secret(d.path(), "s3cret").unwrap();
        let mode = crate::platform::files::mode(&std::fs::metadata(d.path().join(SECRET)).unwrap());
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(secret(d.path()).unwrap(), "s3cret");
        assert!(keep_secret(d.path(), "again").is_err(), "a secret is written once");
    }
}
