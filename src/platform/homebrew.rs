//! Homebrew's server packages under a prefix (`/opt/homebrew` on Apple Silicon,
//! `/usr/local` on Intel): the directories that hold each engine's server binaries, newest
//! keg first. PostgreSQL is keg-only (`opt/postgresql@N/bin` is on no PATH), and so are
//! `mysql@8.x`. Kept apart from the OS so that Linux tests it on a fake tree.

use std::path::{Path, PathBuf};

/// The prefixes Homebrew installs under, Apple Silicon's first.
pub const PREFIXES: [&str; 2] = ["/opt/homebrew", "/usr/local"];

/// The directories under `prefix` that may hold `engine`'s server binaries, in the order
/// to look: versioned kegs newest first, then the unversioned keg, then the linked `bin`.
pub fn server_dirs(prefix: &Path, engine: &str) -> Vec<PathBuf> {
    let opt = prefix.join("opt");
    let kegs: &[&str] = match engine {
        "postgres" => &["postgresql"],
        "mysql" => &["mariadb", "mysql"],
        "redis" => &["redis"],
        "mongo" => &["mongodb-community"],
        _ => &[],
    };
    let mut dirs = Vec::new();
    for keg in kegs {
        dirs.extend(versioned(&opt, keg).into_iter().map(|k| opt.join(k).join("bin")));
        dirs.push(opt.join(keg).join("bin"));
    }
    if !kegs.is_empty() {
        dirs.push(prefix.join("bin"));
        dirs.push(prefix.join("sbin"));
    }
    dirs
}

/// The `brew install` line for `engine`'s server.
pub fn install_line(engine: &str) -> &'static str {
    match engine {
        "postgres" => "brew install postgresql@17",
        "mysql" => "brew install mariadb (or mysql)",
        "redis" => "brew install redis",
        "mongo" => "brew tap mongodb/brew && brew install mongodb-community",
        _ => "brew install",
    }
}

/// The kegs `keg@VERSION` in `opt`, newest version first.
fn versioned(opt: &Path, keg: &str) -> Vec<String> {
    let prefix = format!("{keg}@");
    let mut found: Vec<(Vec<u64>, String)> = std::fs::read_dir(opt)
        .map(|d| d.flatten().filter_map(|e| e.file_name().into_string().ok()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|name| {
            let v = name.strip_prefix(&prefix)?;
            let parts: Option<Vec<u64>> = v.split('.').map(|p| p.parse().ok()).collect();
            Some((parts?, name))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kegs_newest_first_then_the_unversioned_keg_then_the_linked_bin() {
        let t = tempfile::tempdir().unwrap();
        for keg in ["postgresql@14", "postgresql@17", "postgresql@9.6", "postgresql@beta", "mysql@8.4", "mysql@8.0"] {
            std::fs::create_dir_all(t.path().join("opt").join(keg).join("bin")).unwrap();
        }
        let names = |engine| -> Vec<String> {
            server_dirs(t.path(), engine)
                .iter()
                .map(|d| d.strip_prefix(t.path()).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            names("postgres"),
            [
                "opt/postgresql@17/bin",
                "opt/postgresql@14/bin",
                "opt/postgresql@9.6/bin",
                "opt/postgresql/bin",
                "bin",
                "sbin"
            ]
        );
        assert_eq!(
            names("mysql"),
            ["opt/mariadb/bin", "opt/mysql@8.4/bin", "opt/mysql@8.0/bin", "opt/mysql/bin", "bin", "sbin"]
        );
        assert_eq!(names("redis"), ["opt/redis/bin", "bin", "sbin"]);
        assert_eq!(names("mongo"), ["opt/mongodb-community/bin", "bin", "sbin"]);
        assert!(names("sqlite").is_empty());
        assert!(server_dirs(Path::new("/no/such/prefix"), "postgres").len() == 3, "no kegs: still the usual places");
    }
}
