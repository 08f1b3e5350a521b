//! Where Debian's (and most distributions') packages put each engine's server binaries,
//! and the line that installs them.

use std::path::{Path, PathBuf};

/// The directories that may hold `engine`'s server binaries, in the order to look (after
/// the flags' and before PATH).
pub fn server_dirs(engine: &str) -> Vec<PathBuf> {
    let dirs = |list: &[&str]| list.iter().map(PathBuf::from).collect();
    match engine {
        "postgres" => postgres_dirs(Path::new("/usr/lib/postgresql")),
        "mysql" => dirs(&["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/mysql/bin"]),
        "redis" => dirs(&["/usr/bin", "/usr/local/bin", "/usr/sbin"]),
        _ => Vec::new(),
    }
}

/// How to install `engine`'s server, in a few words.
pub fn install_hint(engine: &str) -> &'static str {
    match engine {
        "postgres" => "apt-get install postgresql",
        "mysql" => "apt-get install mariadb-server",
        "redis" => "apt-get install redis-server",
        "mongo" => "mongodb-org-server from MongoDB's apt repository",
        _ => "the distribution's package",
    }
}

/// Debian's /usr/lib/postgresql/VERSION/bin, newest version first.
fn postgres_dirs(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(root)
        .map(|r| r.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let v = p.file_name().and_then(|v| v.to_str()).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            (v as u64, p.join("bin"))
        })
        .collect();
    found.sort_by_key(|(v, _)| std::cmp::Reverse(*v));
    found.into_iter().map(|(_, p)| p).collect()
}
