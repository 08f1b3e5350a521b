//! What a write Redis acknowledged survives, from the settings read back (CONFIG GET) and
//! where the profile keeps `dir`; docs/durability.md gives the reasons.

use crate::profile::Profile;
use crate::results::Survives;
use std::collections::BTreeMap;

/// Without the append-only file a write lives in memory until the next RDB snapshot, if
/// any. With it, Redis writes the AOF buffer to the file before it sends the replies of an
/// event-loop pass, and `appendfsync always` syncs it first too. `everysec` postpones that
/// write (up to 2 s) while the background fsync of the last second is still running, and
/// sends the replies all the same, so even a server crash may lose what it acknowledged.
/// `no` writes every pass and leaves syncing to the kernel. `no-appendfsync-on-rewrite
/// yes` skips even `always`'s sync while a rewrite or snapshot child runs.
pub fn survives(profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
    let get = |key: &str| settings.get(key).map(|v| v.trim().to_ascii_lowercase());
    match get("appendonly").as_deref() {
        Some("yes") => {}
        Some("no") => return Survives::Nothing,
        _ => return Survives::Unknown,
    }
    let fsync = match get("appendfsync").as_deref() {
        Some("always") => match get("no-appendfsync-on-rewrite").as_deref() {
            Some("no") => Survives::PowerLoss,
            Some("yes") => Survives::ServerCrash,
            _ => Survives::Unknown,
        },
        Some("no") => Survives::ServerCrash,
        Some("everysec") => return Survives::Nothing,
        _ => Survives::Unknown,
    };
    fsync.weaker(Survives::stored(profile))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Survives::*;

    fn rule(profile: &str, pairs: &[(&str, &str)]) -> Survives {
        let settings = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        survives(&Profile::builtin(profile).unwrap(), &settings)
    }

    /// The append-only file on, synced as `fsync` says.
    fn aof(fsync: &str) -> [(&str, &str); 3] {
        [("appendonly", "yes"), ("appendfsync", fsync), ("no-appendfsync-on-rewrite", "no")]
    }

    #[test]
    fn each_profile_as_its_settings_read_back() {
        assert_eq!(rule("disk", &aof("always")), PowerLoss);
        assert_eq!(rule("ram", &aof("always")), ServerCrash, "dir on tmpfs");
        assert_eq!(rule("async", &aof("everysec")), Nothing, "the write may wait behind a running fsync");
        assert_eq!(rule("nosync", &aof("no")), ServerCrash, "written to the kernel every pass");
        assert_eq!(rule("ram-nosync", &aof("no")), ServerCrash);
        assert_eq!(rule("unlogged", &[("appendonly", "no"), ("save", "")]), Nothing);
        assert_eq!(rule("disk", &[("appendonly", "no"), ("save", "3600 1")]), Nothing, "snapshots only");
    }

    #[test]
    fn a_rewrite_that_skips_the_sync_weakens_always() {
        let mut s = aof("always");
        s[2].1 = "yes";
        assert_eq!(rule("disk", &s), ServerCrash);
    }

    #[test]
    fn settings_not_read_back_are_unknown() {
        let hidden = "(not readable: ERR unknown command 'CONFIG')";
        assert_eq!(rule("disk", &[("appendonly", hidden), ("appendfsync", hidden)]), Unknown);
        assert_eq!(rule("disk", &[("appendonly", "yes"), ("appendfsync", "always")]), Unknown);
        assert_eq!(rule("disk", &[]), Unknown);
    }
}
