//! Template data directories: made once (initdb, mariadb-install-db) into the shared
//! templates directory, then laid into each instance's data directory by the launcher.

use crate::error::{Error, Result};
use crate::instance::user::RunAs;
use crate::launcher::{Launcher, Step};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
/// it) is there already: `init` is given a temporary directory (owned by `user`) and
/// returns the step that fills it, which `launcher` runs; `failed` explains a step that
/// did not succeed. Another dbrace may win the race to the name: theirs is as good.
pub fn install(
    launcher: &dyn Launcher,
    name: &str,
    done: &str,
    user: Option<&RunAs>,
    init: impl FnOnce(&Path) -> Step,
    failed: impl FnOnce(&std::process::Output) -> Error,
) -> Result<PathBuf> {
    let dir = crate::instance::location::shared_dir()?.join("templates");
    std::fs::create_dir_all(&dir).map_err(|e| failed!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(name);
    if path.join(done).exists() {
        return Ok(path);
    }
    let tmp = dir.join(format!("{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).map_err(|e| failed!("cannot create {}: {e}", tmp.display()))?;
    if let Some(u) = user {
        std::os::unix::fs::chown(&tmp, Some(u.uid), Some(u.gid)).map_err(|e| failed!("cannot chown template: {e}"))?;
    }
    let out = launcher.init(&init(&tmp))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(failed(&out));
    }
    if std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(path)
}
