//! A service's init scripts: what it mounts into its image's init directory
//! (`/docker-entrypoint-initdb.d`), which the official images run once on an empty data directory. dbrace starts its cells from a
//! template the image's init made without them, so it applies the SQL scripts itself, in
//! the order of their names as the entrypoint does, before `--setup`; scripts in other
//! languages are said, not run.

use super::service::Service;
use crate::error::Result;
use std::path::{Path, PathBuf};

/// The SQL scripts `s` mounts into `init_dir` (host paths, in order), and what it mounts
/// there that is not SQL, in words.
pub fn scripts(s: &Service, project: &Path, init_dir: Option<&str>) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let Some(init_dir) = init_dir else { return Ok((Vec::new(), Vec::new())) };
    // Each file with the name the entrypoint sorts it by: its name inside the container.
    let mut named: Vec<(String, PathBuf)> = Vec::new();
    for v in s.volumes.iter().filter(|v| v.is_bind()) {
        let Some(inside) = v.target.strip_prefix(init_dir) else { continue };
        let host = project.join(v.source.as_deref().unwrap_or_default().trim_start_matches("./"));
        match inside.trim_matches('/') {
            "" => named.extend(listed(&host, &s.name)?),
            name => named.push((name.to_string(), host)),
        }
    }
    named.sort();
    let (sql, other): (Vec<_>, Vec<_>) =
        named.into_iter().map(|(_, p)| p).partition(|p| p.extension().is_some_and(|e| e == "sql"));
    Ok((sql, other.iter().map(|p| p.display().to_string()).collect()))
}

/// The files of an init directory, by name.
fn listed(dir: &Path, service: &str) -> Result<Vec<(String, PathBuf)>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| bad_input!("services.{service}.volumes: cannot read {}: {e}", dir.display()))?;
    let files = entries.flatten().map(|e| e.path()).filter(|p| p.is_file());
    Ok(files.map(|p| (p.file_name().unwrap_or_default().to_string_lossy().into_owned(), p)).collect())
}

/// The scripts' texts, one after another.
pub fn text(scripts: &[PathBuf]) -> Result<String> {
    let mut all = String::new();
    for p in scripts {
        let t = std::fs::read_to_string(p).map_err(|e| bad_input!("cannot read init script {}: {e}", p.display()))?;
        all.push_str(&t);
        all.push('\n');
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::service::Volume;

    #[test]
    fn sql_scripts_in_name_order_and_the_others_named() {
        let d = tempfile::tempdir().unwrap();
        let init = d.path().join("init");
        std::fs::create_dir(&init).unwrap();
        for f in ["02-data.sql", "01-schema.sql", "03-users.sh"] {
            std::fs::write(init.join(f), "select 1;").unwrap();
        }
        std::fs::write(d.path().join("extra.sql"), "select 2;").unwrap();
        let bind = |source: &str, target: &str| Volume { source: Some(source.into()), target: target.into() };
        let s = Service {
            name: "db".into(),
            volumes: vec![
                bind("./init", "/docker-entrypoint-initdb.d"),
                bind("./extra.sql", "/docker-entrypoint-initdb.d/00-extra.sql"),
                Volume { source: Some("pgdata".into()), target: "/var/lib/postgresql/data".into() },
            ],
            ..Service::default()
        };
        let (sql, other) = scripts(&s, d.path(), Some("/docker-entrypoint-initdb.d")).unwrap();
        let names: Vec<_> = sql.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["extra.sql", "01-schema.sql", "02-data.sql"], "00-extra.sql inside sorts first");
        assert!(other[0].ends_with("03-users.sh"), "{other:?}");
        assert_eq!(text(&sql[..2]).unwrap(), "select 2;\nselect 1;\n");
    }
}
