//! A composed profile's settings as one engine takes them (`disk+fsync=off`): a key
//! scoped to an engine (`postgres.fsync=off`) is that engine's alone, and every other
//! key must be one the engine knows, or the engine does not run the profile.

use crate::engine::{self, Engine, Machine};
use crate::profile::Profile;

/// `p` with only the settings `e` takes, scopes stripped; Err with the first key `e`
/// does not know.
pub fn for_engine(e: &dyn Engine, p: &Profile, machine: &Machine) -> Result<Profile, String> {
    let mut out = p.clone();
    out.settings.clear();
    for (k, v) in &p.settings {
        match scope(k) {
            Some((en, key)) if en == e.name() => out.settings.push((key.to_string(), v.clone())),
            Some(_) => {}
            None if e.knows_setting(k, machine) => out.settings.push((k.clone(), v.clone())),
            None => return Err(k.clone()),
        }
    }
    Ok(out)
}

/// The engine a key is scoped to, and the key without it.
fn scope(key: &str) -> Option<(&str, &str)> {
    key.split_once('.').filter(|(en, _)| engine::all().iter().any(|e| e.name() == *en))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(engine: &str, name: &str) -> Result<Vec<(String, String)>, String> {
        let e = engine::by_name(engine).unwrap();
        for_engine(e, &Profile::named(name).unwrap(), &Machine::default()).map(|p| p.settings)
    }

    #[test]
    fn a_scoped_key_is_its_engines_alone() {
        let name = "disk+postgres.fsync=off+sqlite.synchronous=off";
        assert_eq!(run("sqlite", name).unwrap(), [("synchronous".to_string(), "off".to_string())]);
        assert_eq!(run("postgres", name).unwrap(), [("fsync".to_string(), "off".to_string())]);
    }

    #[test]
    fn an_engine_that_does_not_know_a_key_does_not_run_the_profile() {
        assert_eq!(run("memory", "disk+synchronous=off"), Err("synchronous".to_string()));
        assert_eq!(run("sqlite", "disk+synchronous=off").unwrap().len(), 1);
    }
}
