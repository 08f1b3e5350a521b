//! The machine's `mongod`: found in `--mongo-bin DIR` or on PATH, its version, and
//! whether it has the inMemory storage engine.

use crate::engine::Machine;
use crate::error::Result;
use std::path::PathBuf;
use std::process::Command;

/// The server binary in use.
#[derive(Clone, Debug)]
pub struct Binary {
    /// Path of mongod.
    pub path: PathBuf,
    /// Its version, e.g. 7.0.14.
    pub version: String,
    /// Whether it has the inMemory storage engine (MongoDB Enterprise).
    pub in_memory: bool,
}

/// Find mongod in `--mongo-bin DIR`, else on PATH, then where the packages put it.
pub fn binary(machine: &Machine) -> Result<Binary> {
    let path = match machine.bin_dir("mongo") {
        Some(d) => {
            let p = d.join("mongod");
            if !p.is_file() {
                return Err(bad_input!("--mongo-bin {}: no mongod there", d.display()));
            }
            p
        }
        None => {
            let mut dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
            dirs.extend(crate::platform::packages::server_dirs("mongo"));
            dirs.iter().map(|d| d.join("mongod")).find(|p| p.is_file()).ok_or_else(|| {
                bad_input!(
                    "mongod not found; install MongoDB's server ({}) and put it on PATH, or give --mongo-bin DIR",
                    crate::platform::packages::install_hint("mongo")
                )
            })?
        }
    };
    let out =
        Command::new(&path).arg("--version").output().map_err(|e| failed!("cannot run {}: {e}", path.display()))?;
    // "db version v7.0.14\nBuild Info: {… "modules": ["enterprise"] …}"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("db version v"))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| failed!("{} --version does not say 'db version v…': is it mongod?", path.display()))?;
    Ok(Binary { path, version, in_memory: text.contains("\"enterprise\"") })
}
