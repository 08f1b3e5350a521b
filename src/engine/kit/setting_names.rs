//! The names of the settings a server binary says it has, asked once per binary: an
//! unqualified `--set` or profile setting goes only to the engines that have it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What `list` reads from `binary` (a file or a directory of binaries), cached by path.
pub fn cached(binary: PathBuf, list: fn(&Path) -> Option<Vec<String>>) -> Option<Vec<String>> {
    static NAMES: Mutex<BTreeMap<PathBuf, Option<Vec<String>>>> = Mutex::new(BTreeMap::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    names.entry(binary).or_insert_with_key(|b| list(b)).clone()
}
