//! What a commit SQLite acknowledged survives, from the PRAGMAs read back and where the
//! profile keeps the database file; docs/durability.md gives the reasons. SQLite runs in
//! dbrace's process: the "server" whose crash a commit survives is dbrace itself.

use crate::profile::Profile;
use crate::results::Survives;
use crate::results::survives::on_the_drive;
use std::collections::BTreeMap;

/// Every commit reaches the file or the WAL (the kernel's page cache) before it returns,
/// whatever `synchronous` says, so a crash of the process keeps it (sqlite.org,
/// PRAGMA synchronous). Whether it survives the machine's crash depends on the syncs: in
/// WAL mode FULL and EXTRA sync the WAL at each commit, NORMAL only at checkpoints. In a
/// rollback-journal mode a commit is undone after a power loss unless the journal's end
/// (its deletion under DELETE, which only EXTRA syncs; its truncation under TRUNCATE, its
/// zeroed header under PERSIST, which FULL syncs) reached the disk, and NORMAL may corrupt
/// the file. With the journal in memory or off, a crash in a later transaction may
/// corrupt the file, earlier commits and all. An in-memory database keeps nothing. Where
/// fsync leaves a write in the drive's cache (macOS), `fullfsync` (off by default) is what
/// makes SQLite's syncs F_FULLFSYNC.
pub fn survives(profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
    survives_on(profile, settings, crate::platform::storage::SYNC_FLUSHES_DRIVE)
}

/// `survives` where the platform's fsync does (`drive_flushed`) or does not empty the
/// drive's cache.
fn survives_on(profile: &Profile, settings: &BTreeMap<String, String>, drive_flushed: bool) -> Survives {
    if profile.unlogged {
        return Survives::Nothing;
    }
    let get = |key: &str| settings.get(key).map(|v| v.trim().to_ascii_lowercase());
    let Some(sync) = get("synchronous").as_deref().and_then(level) else {
        return Survives::Unknown;
    };
    let synced = |least: u8| if sync >= least { Survives::PowerLoss } else { Survives::ServerCrash };
    let by_journal = match get("journal_mode").as_deref() {
        Some("wal") => synced(FULL),
        Some("delete") => synced(EXTRA),
        Some("truncate" | "persist") => synced(FULL),
        Some("memory" | "off") => return Survives::Nothing,
        _ => Survives::Unknown,
    };
    let fullfsync = get("fullfsync").as_deref().and_then(crate::results::survives::flag) == Some(true);
    on_the_drive(by_journal, drive_flushed || fullfsync).weaker(Survives::stored(profile))
}

/// `synchronous=FULL`.
const FULL: u8 = 2;
/// `synchronous=EXTRA`.
const EXTRA: u8 = 3;

/// `synchronous` as a number, as PRAGMA reads it back (0 OFF … 3 EXTRA), or its name.
fn level(v: &str) -> Option<u8> {
    match v {
        "0" | "off" => Some(0),
        "1" | "normal" => Some(1),
        "2" | "full" => Some(FULL),
        "3" | "extra" => Some(EXTRA),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Survives::*;

    fn rule(profile: &str, journal: &str, sync: &str) -> Survives {
        let settings = [("journal_mode", journal), ("synchronous", sync)]
            .iter()
            .filter(|(_, v)| *v != "-")
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let p = Profile::builtin(profile).unwrap();
        // As the engine runs it: unlogged is an in-memory database, recorded as ram.
        let p = crate::engine::Engine::resolve_profile(&super::super::Sqlite, &p).unwrap();
        survives(&p, &settings)
    }

    #[test]
    fn each_profile_as_its_pragmas_read_back() {
        assert_eq!(rule("disk", "wal", "2"), PowerLoss);
        assert_eq!(rule("ram", "wal", "2"), ServerCrash, "the file on tmpfs");
        assert_eq!(rule("async", "wal", "1"), ServerCrash, "NORMAL syncs the WAL at checkpoints only");
        assert_eq!(rule("nosync", "wal", "0"), ServerCrash, "the process may crash, not the machine");
        assert_eq!(rule("ram-nosync", "wal", "0"), ServerCrash);
        assert_eq!(rule("unlogged", "memory", "0"), Nothing);
    }

    #[test]
    fn rollback_journals_need_their_end_synced() {
        assert_eq!(rule("disk", "wal", "3"), PowerLoss);
        assert_eq!(rule("disk", "delete", "2"), ServerCrash, "FULL does not sync the journal's deletion");
        assert_eq!(rule("disk", "delete", "3"), PowerLoss);
        assert_eq!(rule("disk", "truncate", "2"), PowerLoss);
        assert_eq!(rule("disk", "persist", "full"), PowerLoss);
        assert_eq!(rule("disk", "persist", "1"), ServerCrash);
        assert_eq!(rule("disk", "memory", "2"), Nothing);
        assert_eq!(rule("disk", "off", "3"), Nothing);
    }

    #[test]
    fn where_fsync_leaves_the_drives_cache_fullfsync_is_what_survives_power_loss() {
        let on_a_mac = |fullfsync: &str| {
            let settings = [("journal_mode", "wal"), ("synchronous", "2"), ("fullfsync", fullfsync)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            survives_on(&Profile::builtin("disk").unwrap(), &settings, false)
        };
        assert_eq!(on_a_mac("0"), OsCrash);
        assert_eq!(on_a_mac("1"), PowerLoss);
    }

    #[test]
    fn pragmas_not_read_back_are_unknown() {
        assert_eq!(rule("disk", "-", "2"), Unknown);
        assert_eq!(rule("disk", "wal", "-"), Unknown);
        assert_eq!(rule("disk", "wal2", "2"), Unknown);
    }
}
