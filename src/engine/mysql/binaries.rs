//! The machine's MariaDB or MySQL server binaries: found (`--mysql-bin`, PATH, the usual
//! sbin directories), their version and flavor, and the step that makes a data directory.

use crate::error::Result;
use crate::instance::user::RunAs;
use crate::launcher::Step;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which server it is: they differ in how a data directory is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// MariaDB: `mariadbd` and `mariadb-install-db`.
    MariaDb,
    /// Oracle MySQL: `mysqld --initialize-insecure`.
    MySql,
}

/// The server binaries in use.
#[derive(Clone, Debug)]
pub struct Binaries {
    /// `mariadbd` or `mysqld`.
    pub server: PathBuf,
    /// `mariadb-install-db` (MariaDB only).
    pub install: Option<PathBuf>,
    /// The version, e.g. 10.11.19-MariaDB.
    pub version: String,
    /// MariaDB or MySQL.
    pub flavor: Flavor,
}

/// How to get the binaries, for a message.
fn install_hint() -> String {
    format!("install them ({}) or pass --mysql-bin DIR", crate::platform::packages::install_hint("mysql"))
}

/// Every server variable's name, `_` for `-`, from `--verbose --help` of the server
/// found (none without one), so that an unqualified `--set` or profile setting goes only
/// to the engines that have it.
pub fn setting_names(given: Option<&Path>) -> Option<Vec<String>> {
    crate::engine::kit::setting_names::cached(binaries(given).ok()?.server, variables)
}

/// The names in the table of variables `--verbose --help` ends with: after its header
/// and its rule of dashes, up to the blank line.
fn variables(server: &Path) -> Option<Vec<String>> {
    let out = Command::new(server).args(["--no-defaults", "--verbose", "--help"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let table = text.lines().skip_while(|l| !l.starts_with("Variables (--variable-name=value)")).skip(1);
    let rows = table.skip_while(|l| !l.starts_with("---")).skip(1).take_while(|l| !l.trim().is_empty());
    let names: Vec<String> = rows.filter_map(|l| l.split_whitespace().next()).map(|n| n.replace('-', "_")).collect();
    (!names.is_empty()).then_some(names)
}

/// Find the binaries: `--mysql-bin`, else PATH and the usual sbin directories; mariadbd
/// before mysqld (on Debian mysqld is a link to mariadbd).
pub fn binaries(given: Option<&Path>) -> Result<Binaries> {
    let dirs: Vec<PathBuf> = match given {
        Some(d) => vec![d.to_path_buf()],
        None => {
            let mut v: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect();
            v.extend(crate::platform::packages::server_dirs("mysql"));
            v
        }
    };
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    let Some(server) = find("mariadbd").or_else(|| find("mysqld")) else {
        return Err(match given {
            Some(d) => bad_input!("--mysql-bin {}: no mariadbd or mysqld there", d.display()),
            None => bad_input!("MariaDB/MySQL server binaries (mariadbd or mysqld) not found; {}", install_hint()),
        });
    };
    let out = Command::new(&server)
        .arg("--version")
        .output()
        .map_err(|e| bad_input!("cannot run {}: {e}; {}", server.display(), install_hint()))?;
    // "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
    // "mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let full = text.split_whitespace().skip_while(|w| *w != "Ver").nth(1).unwrap_or("unknown");
    let flavor = if full.contains("MariaDB") { Flavor::MariaDb } else { Flavor::MySql };
    let version = match full.find("-MariaDB") {
        Some(i) => full[..i + "-MariaDB".len()].to_string(),
        None => full.split('-').next().unwrap_or(full).to_string(),
    };
    let install = match flavor {
        Flavor::MySql => None,
        // Debian keeps the server in /usr/sbin and the installer in /usr/bin.
        Flavor::MariaDb => {
            let sibling = server.parent().and_then(Path::parent).map(|p| p.join("bin"));
            let found = dirs
                .iter()
                .chain(sibling.iter())
                .flat_map(|d| [d.join("mariadb-install-db"), d.join("mysql_install_db")])
                .find(|p| p.is_file());
            Some(found.ok_or_else(|| {
                bad_input!("mariadb-install-db not found next to {}; {}", server.display(), install_hint())
            })?)
        }
    };
    Ok(Binaries { server, install, version, flavor })
}

/// The step that fills an empty data directory `tmp`.
pub(super) fn install_step(b: &Binaries, user: Option<&RunAs>, options: &[String], tmp: &Path) -> Step {
    let mut step = match (&b.install, b.flavor) {
        (Some(install), Flavor::MariaDb) => {
            let mut s = Step::new(install, user);
            // Root with an empty password on the socket (a 0700 directory); no test database.
            s.arg("--no-defaults").arg(format!("--datadir={}", tmp.display()));
            s.args(["--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"]);
            if let Some(base) = install.parent().and_then(Path::parent) {
                s.arg(format!("--basedir={}", base.display()));
            }
            s
        }
        _ => {
            let mut s = Step::new(&b.server, user);
            s.arg("--no-defaults").arg(format!("--datadir={}", tmp.display())).arg("--initialize-insecure");
            s
        }
    };
    step.args(options);
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_variables_are_its_settings() {
        let names = setting_names(None).expect("mariadbd lists its variables (apt-get install mariadb-server)");
        for known in ["innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_buffer_pool_size"] {
            assert!(names.iter().any(|n| n == known), "{known}: {names:?}");
        }
        assert!(!names.iter().any(|n| n == "fsync" || n == "full_page_writes"), "{names:?}");
    }
}
