//! What a commit MariaDB or MySQL acknowledged survives, from the variables read back
//! (`SELECT @@…`) and where the profile keeps the datadir and the redo log;
//! docs/durability.md gives the reasons.

use crate::profile::Profile;
use crate::results::Survives;
use crate::results::survives::{flag, on_the_drive};
use std::collections::BTreeMap;

/// MEMORY tables come back empty after any restart. `innodb_flush_log_at_trx_commit` 1
/// (or MariaDB's 3) syncs the redo log at each commit, 2 writes it to the kernel, 0 leaves
/// it in the server's log buffer for up to a second. With the binlog on, a commit is only
/// as safe as its binlog event (crash recovery rolls back what the binlog lacks), so
/// `sync_binlog` must be 1. A page torn by an OS crash or power loss needs the doublewrite
/// buffer to be repaired, and data files that are never synced (`innodb_doublewrite=fast`,
/// `innodb_flush_method=O_DIRECT_NO_FSYNC`, `nosync`, `littlesync`) may hold committed
/// pages the redo log no longer covers. InnoDB syncs with fsync alone, so where that leaves
/// a write in the drive's cache (macOS) no setting survives a power loss.
pub fn survives(profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
    survives_on(profile, settings, crate::platform::storage::SYNC_FLUSHES_DRIVE)
}

/// `survives` where the platform's fsync does (`drive_flushed`) or does not empty the
/// drive's cache.
fn survives_on(profile: &Profile, settings: &BTreeMap<String, String>, drive_flushed: bool) -> Survives {
    let get = |key: &str| settings.get(key).map(|v| v.trim().to_ascii_lowercase());
    if profile.unlogged || get("default_storage_engine").as_deref() == Some("memory") {
        return Survives::Nothing;
    }
    let redo = match get("innodb_flush_log_at_trx_commit").as_deref() {
        Some("1" | "3") => Survives::PowerLoss,
        Some("2") => Survives::ServerCrash,
        Some("0") => return Survives::Nothing,
        _ => return Survives::Unknown,
    };
    let binlog = match (get("log_bin").as_deref().and_then(flag), get("sync_binlog").as_deref()) {
        (Some(false), _) | (Some(true), Some("1")) => Survives::PowerLoss,
        (Some(true), Some(n)) if n.parse::<u64>().is_ok() => Survives::ServerCrash,
        _ => Survives::Unknown,
    };
    let pages = match get("innodb_doublewrite").as_deref() {
        Some("1" | "on" | "detect_and_recover") => Survives::PowerLoss,
        Some("0" | "off" | "detect_only" | "fast") => Survives::ServerCrash,
        _ => Survives::Unknown,
    };
    let unsynced_files =
        matches!(get("innodb_flush_method").as_deref(), Some("o_direct_no_fsync" | "nosync" | "littlesync"));
    let files = if unsynced_files { Survives::ServerCrash } else { Survives::PowerLoss };
    let synced = redo.weaker(binlog).weaker(pages).weaker(files);
    on_the_drive(synced, drive_flushed).weaker(Survives::stored(profile))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Survives::*;

    fn rule(profile: &str, over: &[(&str, &str)]) -> Survives {
        let base = [
            ("innodb_flush_log_at_trx_commit", "1"),
            ("innodb_doublewrite", "ON"),
            ("sync_binlog", "1"),
            ("log_bin", "0"),
            ("default_storage_engine", "InnoDB"),
            ("innodb_flush_method", "O_DIRECT"),
        ];
        let settings = crate::results::survives::settings_with(&base, over);
        survives(&Profile::builtin(profile).unwrap(), &settings)
    }

    #[test]
    fn where_fsync_leaves_the_drives_cache_innodb_survives_an_os_crash_at_most() {
        let base = [("innodb_flush_log_at_trx_commit", "1"), ("innodb_doublewrite", "ON"), ("log_bin", "0")];
        let settings = crate::results::survives::settings_with(&base, &[("innodb_flush_method", "fsync")]);
        assert_eq!(survives_on(&Profile::builtin("disk").unwrap(), &settings, false), OsCrash);
        assert_eq!(survives_on(&Profile::builtin("disk").unwrap(), &settings, true), PowerLoss);
    }

    #[test]
    fn each_profile_as_its_settings_read_back() {
        assert_eq!(rule("disk", &[]), PowerLoss);
        assert_eq!(rule("ram", &[]), ServerCrash, "the datadir on tmpfs");
        assert_eq!(rule("wal-ram", &[]), ServerCrash, "the redo log on tmpfs");
        let asynchronous = [("innodb_flush_log_at_trx_commit", "2"), ("sync_binlog", "0")];
        assert_eq!(rule("async", &asynchronous), ServerCrash);
        let nosync = [("innodb_flush_log_at_trx_commit", "0"), ("innodb_doublewrite", "OFF"), ("sync_binlog", "0")];
        assert_eq!(rule("nosync", &nosync), Nothing);
        assert_eq!(rule("unlogged", &[("default_storage_engine", "MEMORY")]), Nothing);
        assert_eq!(rule("disk", &[("default_storage_engine", "MEMORY")]), Nothing);
    }

    #[test]
    fn binlog_doublewrite_and_flush_method_weaken_a_synced_redo_log() {
        assert_eq!(rule("disk", &[("innodb_flush_log_at_trx_commit", "3")]), PowerLoss, "MariaDB's 3");
        assert_eq!(rule("disk", &[("log_bin", "1"), ("sync_binlog", "1")]), PowerLoss);
        assert_eq!(rule("disk", &[("log_bin", "ON"), ("sync_binlog", "0")]), ServerCrash);
        assert_eq!(rule("disk", &[("log_bin", "1"), ("sync_binlog", "100")]), ServerCrash);
        assert_eq!(rule("disk", &[("log_bin", "0"), ("sync_binlog", "0")]), PowerLoss, "no binlog to wait for");
        assert_eq!(rule("disk", &[("innodb_doublewrite", "OFF")]), ServerCrash);
        assert_eq!(rule("disk", &[("innodb_doublewrite", "fast")]), ServerCrash);
        assert_eq!(rule("disk", &[("innodb_doublewrite", "DETECT_ONLY")]), ServerCrash);
        assert_eq!(rule("disk", &[("innodb_doublewrite", "DETECT_AND_RECOVER")]), PowerLoss);
        assert_eq!(rule("disk", &[("innodb_flush_method", "O_DIRECT_NO_FSYNC")]), ServerCrash);
        assert_eq!(rule("disk", &[("innodb_flush_method", "fsync")]), PowerLoss);
    }

    #[test]
    fn variables_not_read_back_are_unknown() {
        assert_eq!(rule("disk", &[("innodb_flush_log_at_trx_commit", "(not a variable here)")]), Unknown);
        assert_eq!(rule("disk", &[("innodb_flush_log_at_trx_commit", "-")]), Unknown);
        assert_eq!(rule("disk", &[("log_bin", "-")]), Unknown);
        assert_eq!(rule("disk", &[("log_bin", "1"), ("sync_binlog", "-")]), Unknown);
        assert_eq!(rule("disk", &[("innodb_doublewrite", "(not a variable here)")]), Unknown);
        // What is lost at once is lost whatever else is unknown.
        assert_eq!(rule("disk", &[("innodb_flush_log_at_trx_commit", "0"), ("log_bin", "-")]), Nothing);
        assert_eq!(rule("disk", &[("innodb_flush_method", "-")]), PowerLoss, "its default syncs");
    }
}
