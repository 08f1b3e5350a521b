//! What a write MongoDB acknowledged survives, from what the server reports of itself
//! (serverStatus), the write concern every write carries, and where the profile keeps the
//! dbpath; docs/durability.md gives the reasons.

use crate::profile::Profile;
use crate::results::Survives;
use std::collections::BTreeMap;

/// `j: true` acknowledges a write once the journal holding it is synced; `j: false` once
/// it is in memory, its journal record in WiredTiger's buffer until the next journal sync
/// (every 100 ms by default), so a crash of mongod loses it. A storage engine that is not
/// persistent (inMemory) keeps nothing. A server that is not mongod (or mongos) but speaks
/// its protocol decides for itself what `j` means: unknown.
pub fn survives(profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
    let get = |key: &str| settings.get(key).map(|v| v.trim().to_string());
    let volatile = get("storage_persistent").as_deref() == Some("false")
        || get("storage_engine").is_some_and(|e| e.eq_ignore_ascii_case("inMemory"));
    if profile.unlogged || volatile {
        return Survives::Nothing;
    }
    let mongod = get("server_process").is_some_and(|p| p.starts_with("mongod") || p.starts_with("mongos"));
    if !mongod || get("storage_persistent").as_deref() != Some("true") {
        return Survives::Unknown;
    }
    let concern = get("write_concern").unwrap_or_default().replace(' ', "");
    if concern.contains("j:true") {
        Survives::PowerLoss.weaker(Survives::stored(profile))
    } else if concern.contains("j:false") {
        Survives::Nothing
    } else {
        Survives::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Survives::*;

    fn rule(profile: &str, journal: bool, over: &[(&str, &str)]) -> Survives {
        let concern = format!("{{w: 1, j: {journal}}}");
        let base = [
            ("server_process", "mongod"),
            ("storage_engine", "wiredTiger"),
            ("storage_persistent", "true"),
            ("write_concern", concern.as_str()),
        ];
        let settings = crate::results::survives::settings_with(&base, over);
        survives(&Profile::builtin(profile).unwrap(), &settings)
    }

    #[test]
    fn each_profile_as_its_write_concern_and_storage() {
        assert_eq!(rule("disk", true, &[]), PowerLoss);
        assert_eq!(rule("ram", true, &[]), ServerCrash, "the dbpath on tmpfs");
        assert_eq!(rule("async", false, &[]), Nothing, "the journal is synced every 100 ms");
        assert_eq!(rule("nosync", false, &[]), Nothing);
        let in_memory = [("storage_engine", "inMemory"), ("storage_persistent", "false")];
        assert_eq!(rule("unlogged", false, &in_memory), Nothing);
        assert_eq!(rule("disk", true, &in_memory), Nothing, "j on a storage engine that keeps nothing");
        assert_eq!(rule("disk", true, &[("server_process", "mongos")]), PowerLoss);
    }

    #[test]
    fn another_server_or_missing_facts_are_unknown() {
        assert_eq!(rule("disk", true, &[("server_process", "secantus")]), Unknown);
        assert_eq!(rule("disk", true, &[("server_process", "-")]), Unknown);
        assert_eq!(rule("disk", true, &[("storage_persistent", "-")]), Unknown);
        assert_eq!(rule("disk", true, &[("write_concern", "-")]), Unknown);
    }
}
