//! A Compose project read as `docker compose` reads it: its files (`-f`, several merged in
//! order), variables from the environment over the project's `.env`, each service's
//! `extends` and `env_file`. The files are only read, never written.

use super::dotenv;
use super::interpolate::{Lookup, interpolate};
use super::service::{self, Service};
use crate::error::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use yaml_serde::{Mapping, Value};

/// The services of a Compose project.
#[derive(Debug)]
pub struct Project {
    /// The directory relative paths in the files are resolved against (the first file's).
    pub dir: PathBuf,
    /// Every service, by name.
    pub services: BTreeMap<String, Service>,
}

/// How deep `extends` may chain before it is taken for a loop.
const EXTENDS_DEPTH: usize = 16;

/// The project of `files`, merged in order.
pub fn load(files: &[PathBuf]) -> Result<Project> {
    let first = files.first().ok_or_else(|| bad_input!("--compose needs a file"))?;
    let dir = first.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let dotenv = dotenv::read(&dir.join(".env"), false)?;
    let vars = move |name: &str| std::env::var(name).ok().or_else(|| dotenv.get(name).cloned());
    let mut merged = Value::Mapping(Mapping::new());
    for f in files {
        merge(&mut merged, read(f, &vars)?);
    }
    let raw = services_of(&merged, &first.display().to_string())?;
    let mut services = BTreeMap::new();
    for name in raw.keys() {
        let (value, env_files) = resolved(name, &raw, &dir, &vars, 0)?;
        services.insert(name.clone(), service::parse(name, &value, env_files)?);
    }
    Ok(Project { dir, services })
}

/// One file, parsed and interpolated.
fn read(path: &Path, vars: &dyn Lookup) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| bad_input!("cannot read {}: {e}", path.display()))?;
    let mut value: Value = yaml_serde::from_str(&text)
        .map_err(|e| bad_input!("{} is not valid YAML: {e}; fix the file", path.display()))?;
    // `<<: *anchor` merge keys, as Compose applies them (anchors themselves are the parser's).
    value.apply_merge().map_err(|e| bad_input!("{}: a merge key (<<) cannot be applied: {e}", path.display()))?;
    if !value.is_mapping() {
        return Err(bad_input!("{} is not a Compose file: its top level is not a mapping", path.display()));
    }
    interpolated(&mut value, vars, &path.display().to_string())?;
    Ok(value)
}

/// Every string in `v` with its variables substituted (keys are left as written).
fn interpolated(v: &mut Value, vars: &dyn Lookup, at: &str) -> Result<()> {
    match v {
        Value::String(s) => *s = interpolate(s, vars, at)?,
        Value::Sequence(list) => {
            for (i, x) in list.iter_mut().enumerate() {
                interpolated(x, vars, &format!("{at}[{i}]"))?;
            }
        }
        Value::Mapping(map) => {
            for (k, x) in map.iter_mut() {
                let key = k.as_str().unwrap_or("?");
                interpolated(x, vars, &format!("{at}: {key}"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `over` merged into `base` as Compose merges files: mappings key by key, a service's
/// `environment` as a map, `command` and `entrypoint` replaced, other lists appended.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Mapping(b), Value::Mapping(o)) => {
            for (k, v) in o {
                let replaced = matches!(k.as_str(), Some("command" | "entrypoint"));
                let v = if k.as_str() == Some("environment") { env_as_map(v) } else { v };
                match b.get_mut(&k) {
                    Some(slot) if !replaced => {
                        if k.as_str() == Some("environment") {
                            *slot = env_as_map(std::mem::take(slot));
                        }
                        merge(slot, v)
                    }
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (Value::Sequence(b), Value::Sequence(o)) => b.extend(o),
        (b, o) => *b = o,
    }
}

/// A list-style `environment` as a map, so that two files' merge key by key.
fn env_as_map(v: Value) -> Value {
    let Some(list) = v.as_sequence() else { return v };
    let mut map = Mapping::new();
    for item in list.iter().filter_map(Value::as_str) {
        let (k, val) = item.split_once('=').unwrap_or((item, ""));
        map.insert(Value::String(k.into()), Value::String(val.into()));
    }
    Value::Mapping(map)
}

/// The `services:` mapping, by name.
fn services_of(v: &Value, file: &str) -> Result<BTreeMap<String, Value>> {
    let Some(services) = v.get("services").and_then(Value::as_mapping) else {
        return Err(bad_input!("{file} has no services: mapping; is it a Compose file?"));
    };
    let mut out = BTreeMap::new();
    for (k, s) in services {
        let name = k.as_str().ok_or_else(|| bad_input!("{file}: a service's name is not text"))?;
        if !s.is_mapping() {
            return Err(bad_input!("{file}: services.{name} is not a mapping"));
        }
        out.insert(name.to_string(), s.clone());
    }
    Ok(out)
}

/// Service `name` with what it extends merged under it, and its env files' variables.
fn resolved(
    name: &str,
    services: &BTreeMap<String, Value>,
    dir: &Path,
    vars: &dyn Lookup,
    depth: usize,
) -> Result<(Value, BTreeMap<String, String>)> {
    if depth > EXTENDS_DEPTH {
        return Err(bad_input!("services.{name}: extends goes round in a loop"));
    }
    let own = &services[name];
    let mut env = env_files(name, own, dir)?;
    let Some(ext) = own.get("extends") else { return Ok((own.clone(), env)) };
    let (base_name, file) = match ext {
        Value::String(s) => (s.clone(), None),
        _ => (
            ext.get("service")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad_input!("services.{name}.extends: needs the service it extends"))?,
            ext.get("file").and_then(Value::as_str).map(|f| dir.join(f)),
        ),
    };
    let (mut base, base_env) = match file {
        Some(f) => {
            let other = services_of(&read(&f, vars)?, &f.display().to_string())?;
            check_known(name, &base_name, &other)?;
            resolved(&base_name, &other, f.parent().unwrap_or(dir), vars, depth + 1)?
        }
        None => {
            check_known(name, &base_name, services)?;
            resolved(&base_name, services, dir, vars, depth + 1)?
        }
    };
    let mut own = own.clone();
    if let Some(m) = own.as_mapping_mut() {
        m.remove("extends");
    }
    merge(&mut base, own);
    env = base_env.into_iter().chain(env).collect();
    Ok((base, env))
}

/// Refuse an `extends` of a service that is not there.
fn check_known(name: &str, base: &str, services: &BTreeMap<String, Value>) -> Result<()> {
    match services.contains_key(base) {
        true => Ok(()),
        false => Err(bad_input!("services.{name}.extends: there is no service '{base}'")),
    }
}

/// The variables of a service's `env_file:`s, in order.
fn env_files(name: &str, s: &Value, dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    let files: Vec<(String, bool)> = match s.get("env_file") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(f)) => vec![(f.clone(), true)],
        Some(Value::Sequence(list)) => list
            .iter()
            .filter_map(|x| match x {
                Value::String(f) => Some((f.clone(), true)),
                m => Some((
                    m.get("path")?.as_str()?.to_string(),
                    m.get("required").and_then(Value::as_bool) != Some(false),
                )),
            })
            .collect(),
        Some(_) => return Err(bad_input!("services.{name}.env_file: expected a path or a list of them")),
    };
    for (f, required) in files {
        env.extend(dotenv::read(&dir.join(f), required)?);
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn files_merge_in_order_with_env_and_extends() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), ".env", "DB_PORT=15432\nDB_PASSWORD=secret\n");
        write(d.path(), "db.env", "TZ=UTC\n");
        write(
            d.path(),
            "base.yml",
            "services:\n  pg:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n",
        );
        let main = write(
            d.path(),
            "compose.yml",
            "version: '3.8'\nservices:\n  db:\n    extends: {file: base.yml, service: pg}\n    env_file: db.env\n    environment: ['POSTGRES_PASSWORD=${DB_PASSWORD}']\n    ports: ['${DB_PORT}:5432']\n    command: postgres -c fsync=off\n  web:\n    build: .\n    depends_on: [db]\n",
        );
        let over = write(
            d.path(),
            "override.yml",
            "services:\n  db:\n    environment: {POSTGRES_DB: shop}\n    command: [postgres, -c, max_connections=50]\n",
        );
        let p = load(&[main, over]).unwrap();
        let db = &p.services["db"];
        assert_eq!(db.image.as_deref(), Some("postgres:16"));
        let env: Vec<_> = db.environment.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(env, ["POSTGRES_DB=shop", "POSTGRES_PASSWORD=secret", "POSTGRES_USER=app", "TZ=UTC"]);
        assert_eq!(db.ports[0].published, Some(15432));
        assert_eq!(db.command.as_ref().unwrap().last().map(String::as_str), Some("max_connections=50"));
        assert!(p.services["web"].image.is_none());
    }

    #[test]
    fn bad_files_are_one_line_naming_the_file() {
        let d = tempfile::tempdir().unwrap();
        let bad = write(d.path(), "bad.yml", "services:\n  db: [unclosed\n");
        assert!(load(std::slice::from_ref(&bad)).unwrap_err().to_string().contains("not valid YAML"));
        let none = write(d.path(), "none.yml", "volumes: {}\n");
        assert!(load(&[none]).unwrap_err().to_string().contains("no services"));
        let unset = write(d.path(), "unset.yml", "services:\n  db:\n    image: postgres:${NO_SUCH_TAG_VAR}\n");
        let e = load(&[unset]).unwrap_err().to_string();
        assert!(e.contains("NO_SUCH_TAG_VAR") && e.contains("unset.yml"), "{e}");
        let looped = write(d.path(), "loop.yml", "services:\n  a: {extends: b}\n  b: {extends: a}\n");
        assert!(load(&[looped]).unwrap_err().to_string().contains("loop"));
        assert!(load(&[d.path().join("missing.yml")]).unwrap_err().to_string().contains("cannot read"));
    }
}
