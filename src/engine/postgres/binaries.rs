//! The machine's PostgreSQL server binaries: found (`--pg-bin`, `pg_config`, the package
//! manager's directories, PATH), their version, and the settings they know.

use crate::error::Result;
use crate::platform::packages;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The server binaries in use.
#[derive(Clone, Debug)]
pub struct Binaries {
    /// The directory holding postgres and initdb.
    pub dir: PathBuf,
    /// `postgres --version`'s number, e.g. 15.20.
    pub version: String,
}

/// Find the binaries: `--pg-bin`, `pg_config --bindir`, the packages' directories (Debian's
/// /usr/lib/postgresql/*/bin, Homebrew's postgresql@N kegs; newest first), then PATH.
pub fn binaries(given: Option<&Path>) -> Result<Binaries> {
    let has = |d: &Path| d.join("postgres").is_file() && d.join("initdb").is_file();
    if let Some(d) = given {
        if !has(d) {
            return Err(bad_input!("--pg-bin {}: no postgres and initdb there", d.display()));
        }
        return describe(d);
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(o) = Command::new("pg_config").arg("--bindir").output() {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    candidates.extend(packages::server_dirs("postgres"));
    candidates.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    match candidates.iter().find(|d| has(d)) {
        Some(d) => describe(d),
        None => Err(bad_input!(
            "PostgreSQL server binaries (postgres, initdb) not found; install them ({}) or pass --pg-bin DIR",
            packages::install_hint("postgres")
        )),
    }
}

/// Every server setting's name, from `postgres --describe-config` of the binaries found
/// (`--pg-bin` given or not; none without binaries), so that an unqualified `--set` goes
/// only to the engines that have the setting.
pub fn setting_names(given: Option<&Path>) -> Option<Vec<String>> {
    crate::engine::kit::setting_names::cached(binaries(given).ok()?.dir, described_config)
}

/// The first column of `postgres --describe-config` in `dir`.
fn described_config(dir: &Path) -> Option<Vec<String>> {
    let out = Command::new(dir.join("postgres")).arg("--describe-config").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<String> = text.lines().filter_map(|l| l.split('\t').next()).map(str::to_string).collect();
    (out.status.success() && !names.is_empty()).then_some(names)
}

fn describe(dir: &Path) -> Result<Binaries> {
    let out = Command::new(dir.join("postgres"))
        .arg("--version")
        .output()
        .map_err(|e| bad_input!("cannot run {}/postgres: {e}", dir.display()))?;
    // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().nth(2).unwrap_or("unknown").to_string();
    Ok(Binaries { dir: dir.to_path_buf(), version })
}
