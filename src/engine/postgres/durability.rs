//! What a commit PostgreSQL acknowledged survives, from the settings read back (SHOW) and
//! where the profile keeps the data directory and `pg_wal`; docs/durability.md gives the
//! reasons.

use crate::profile::Profile;
use crate::results::Survives;
use crate::results::survives::{flag, on_the_drive};
use std::collections::BTreeMap;

/// An UNLOGGED table is truncated by crash recovery; `synchronous_commit=off` acknowledges
/// a commit whose WAL is still in shared memory (up to 3 × `wal_writer_delay`), so a
/// server crash loses it; `fsync=off` leaves the WAL in the page cache, and
/// `full_page_writes=off` lets an OS crash or power loss tear a page the WAL cannot
/// repair: both survive the server's crash, not the machine's. Where fsync leaves a write
/// in the drive's cache (macOS), only `wal_sync_method=fsync_writethrough` (F_FULLFSYNC)
/// survives a power loss.
pub fn survives(profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
    survives_on(profile, settings, crate::platform::storage::SYNC_FLUSHES_DRIVE)
}

/// `survives` where the platform's fsync does (`drive_flushed`) or does not empty the
/// drive's cache.
fn survives_on(profile: &Profile, settings: &BTreeMap<String, String>, drive_flushed: bool) -> Survives {
    if profile.unlogged {
        return Survives::Nothing;
    }
    let Some(flushed) = settings.get("synchronous_commit").and_then(|v| commit_flushes(v)) else {
        return Survives::Unknown;
    };
    if !flushed {
        return Survives::Nothing;
    }
    let (Some(fsync), Some(full_pages)) = (on(settings, "fsync"), on(settings, "full_page_writes")) else {
        return Survives::Unknown;
    };
    let synced = if fsync && full_pages { Survives::PowerLoss } else { Survives::ServerCrash };
    let writethrough = settings.get("wal_sync_method").is_some_and(|m| m.trim() == "fsync_writethrough");
    on_the_drive(synced, drive_flushed || writethrough).weaker(Survives::stored(profile))
}

/// Whether a commit waits for its WAL to be flushed locally: `on`, `local`,
/// `remote_write` and `remote_apply` all do (the remote ones wait for a standby besides);
/// `off` does not. None for a value PostgreSQL would not show.
fn commit_flushes(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "local" | "remote_write" | "remote_apply" => Some(true),
        v => flag(v),
    }
}

/// A boolean setting as SHOW spells it; None when missing or unreadable.
fn on(settings: &BTreeMap<String, String>, key: &str) -> Option<bool> {
    flag(settings.get(key)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Survives::*;

    fn rule(profile: &str, pairs: &[(&str, &str)]) -> Survives {
        let settings = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        survives(&Profile::builtin(profile).unwrap(), &settings)
    }

    const DURABLE: &[(&str, &str)] = &[("fsync", "on"), ("synchronous_commit", "on"), ("full_page_writes", "on")];

    #[test]
    fn each_profile_as_its_settings_read_back() {
        assert_eq!(rule("disk", DURABLE), PowerLoss);
        assert_eq!(rule("ram", DURABLE), ServerCrash, "the data directory on tmpfs");
        assert_eq!(rule("wal-ram", DURABLE), ServerCrash, "pg_wal on tmpfs");
        assert_eq!(rule("unlogged", DURABLE), Nothing, "crash recovery truncates UNLOGGED tables");
        let asynchronous = [("fsync", "on"), ("synchronous_commit", "off"), ("full_page_writes", "on")];
        assert_eq!(rule("async", &asynchronous), Nothing);
        let nosync = [("fsync", "off"), ("synchronous_commit", "off"), ("full_page_writes", "off")];
        assert_eq!(rule("nosync", &nosync), Nothing);
    }

    #[test]
    fn the_settings_decide_not_the_profile_name() {
        // --set fsync=off under disk: commits reach the kernel at commit, not the disk.
        let no_fsync = [("fsync", "off"), ("synchronous_commit", "on"), ("full_page_writes", "on")];
        assert_eq!(rule("disk", &no_fsync), ServerCrash);
        let torn = [("fsync", "on"), ("synchronous_commit", "on"), ("full_page_writes", "off")];
        assert_eq!(rule("disk", &torn), ServerCrash);
        for waits in ["local", "remote_write", "remote_apply", "ON"] {
            let s = [("fsync", "on"), ("synchronous_commit", waits), ("full_page_writes", "on")];
            assert_eq!(rule("disk", &s), PowerLoss, "{waits}");
        }
        // An async commit is lost to a server crash whatever else is set.
        assert_eq!(rule("ram", &[("synchronous_commit", "off")]), Nothing);
    }

    #[test]
    fn where_fsync_leaves_the_drives_cache_only_fsync_writethrough_survives_power_loss() {
        let on_a_mac = |pairs: &[(&str, &str)]| {
            let settings = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            survives_on(&Profile::builtin("disk").unwrap(), &settings, false)
        };
        // macOS's default is open_datasync: no F_FULLFSYNC.
        assert_eq!(on_a_mac(&[DURABLE, &[("wal_sync_method", "open_datasync")]].concat()), OsCrash);
        assert_eq!(on_a_mac(DURABLE), OsCrash, "the method not read back: not writethrough");
        assert_eq!(on_a_mac(&[DURABLE, &[("wal_sync_method", "fsync_writethrough")]].concat()), PowerLoss);
        let no_fsync = [("fsync", "off"), ("synchronous_commit", "on"), ("full_page_writes", "on")];
        assert_eq!(on_a_mac(&no_fsync), ServerCrash, "weaker already");
    }

    #[test]
    fn settings_not_read_back_are_unknown() {
        assert_eq!(rule("disk", &[]), Unknown);
        assert_eq!(rule("disk", &[("synchronous_commit", "on"), ("fsync", "on")]), Unknown);
        assert_eq!(rule("disk", &[("synchronous_commit", "sometimes"), ("fsync", "on")]), Unknown);
    }
}
