//! Engine-neutral profiles: where data lives and how durable a commit is.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where an engine keeps its data files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocationKind {
    /// A real disk-backed filesystem (the user's cache dir by default).
    Disk,
    /// A tmpfs (/dev/shm by default).
    Ram,
}

impl fmt::Display for LocationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LocationKind::Disk => "disk",
            LocationKind::Ram => "ram",
        })
    }
}

/// How durable a commit is when the client is told it succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// The commit is on stable storage before it is acknowledged.
    Durable,
    /// The commit is acknowledged before it is synced; a crash loses recent commits, never consistency.
    Async,
    /// Nothing is synced; a crash may lose or corrupt the database.
    Off,
}

/// One profile: location × durability × volatile tables, plus raw engine settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The profile's name, as the user wrote it.
    pub name: String,
    /// Where data files live.
    pub location: LocationKind,
    /// How durable a commit is.
    pub durability: Durability,
    /// Tables are volatile (PG UNLOGGED, MySQL MEMORY, SQLite in-memory, Redis without persistence).
    pub unlogged: bool,
    /// Where the write-ahead log lives, when not with the data (PostgreSQL's pg_wal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal: Option<LocationKind>,
    /// Raw engine settings given with `--set`, applied after the profile's own mapping.
    pub settings: Vec<(String, String)>,
    /// Its throwaway server runs with TLS (a `+tls` profile, or `--tls`): a certificate
    /// from a CA made for the instance, which its clients check (verify-full).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tls: bool,
}

/// The profile whose commits survive power loss where fsync leaves them in the drive's
/// cache (macOS): `disk` with each engine's drive-flushing sync.
pub const FLUSHED: &str = "flushed";

/// The settings that make each engine's sync flush the drive's cache (F_FULLFSYNC), by
/// engine; InnoDB has none, so MySQL's `flushed` is its `disk`.
const DRIVE_FLUSH: [(&str, &str); 3] = [
    ("postgres.wal_sync_method", "fsync_writethrough"),
    ("sqlite.fullfsync", "1"),
    ("sqlite.checkpoint_fullfsync", "1"),
];

/// `flushed`'s settings: none where the sync flushes the drive itself (`sync_flushes`).
fn drive_flush(sync_flushes: bool) -> Vec<(String, String)> {
    let each = DRIVE_FLUSH.iter().map(|(k, v)| (k.to_string(), v.to_string()));
    if sync_flushes { Vec::new() } else { each.collect() }
}

/// What a profile name ends with when its server runs with TLS: `disk+tls`.
pub const TLS_SUFFIX: &str = "+tls";

/// The built-in profiles: name, location, durability, unlogged, WAL location, and help.
type Builtin = (&'static str, LocationKind, Durability, bool, Option<LocationKind>, &'static str);
const BUILTINS: &[Builtin] = &[
    ("disk", LocationKind::Disk, Durability::Durable, false, None, "data on disk, every commit synced"),
    ("ram", LocationKind::Ram, Durability::Durable, false, None, "data on tmpfs, every commit synced"),
    ("async", LocationKind::Disk, Durability::Async, false, None, "data on disk, commits acknowledged before sync"),
    ("nosync", LocationKind::Disk, Durability::Off, false, None, "data on disk, no sync at all"),
    ("ram-nosync", LocationKind::Ram, Durability::Off, false, None, "data on tmpfs, no sync at all"),
    ("unlogged", LocationKind::Disk, Durability::Durable, true, None, "volatile tables (UNLOGGED, MEMORY, in-memory)"),
    (
        FLUSHED,
        LocationKind::Disk,
        Durability::Durable,
        false,
        None,
        "data on disk, every commit flushed through the drive's cache (F_FULLFSYNC on macOS; as disk where fsync flushes it)",
    ),
    (
        "wal-ram",
        LocationKind::Disk,
        Durability::Durable,
        false,
        Some(LocationKind::Ram),
        "data on disk, WAL on tmpfs (PostgreSQL)",
    ),
];

/// `names`, each ending in `+tls` when `tls` (`--tls`).
pub fn with_tls(names: Vec<String>, tls: bool) -> Vec<String> {
    if !tls {
        return names;
    }
    names.into_iter().map(|n| if n.ends_with(TLS_SUFFIX) { n } else { n + TLS_SUFFIX }).collect()
}

/// Names of the built-in profiles, for messages and help.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.0).collect()
}

/// Help lines for the built-in profiles.
pub fn builtin_help() -> Vec<(&'static str, &'static str)> {
    BUILTINS.iter().map(|b| (b.0, b.5)).collect()
}

impl Profile {
    /// Look up a built-in profile by name.
    pub fn builtin(name: &str) -> Option<Profile> {
        BUILTINS.iter().find(|b| b.0 == name).map(|&(name, location, durability, unlogged, wal, _)| Profile {
            name: name.to_string(),
            location,
            durability,
            unlogged,
            wal,
            settings: if name == FLUSHED {
                drive_flush(crate::platform::storage::SYNC_FLUSHES_DRIVE)
            } else {
                Vec::new()
            },
            tls: false,
        })
    }

    /// The profile `name` names: a built-in one, then `+KEY=VALUE` engine settings over it
    /// and `+tls` (`disk+fsync=off+tls`, named as `--sweep` names its cells); or
    /// `NAME=PROFILE`, that profile under a name of the user's (a second `disk` cell beside
    /// the first tells how far two identical cells differ: an A/A control).
    pub fn named(name: &str) -> crate::error::Result<Profile> {
        if let Some((alias, composed)) = name.split_once('=').filter(|(a, _)| !a.contains('+')) {
            check_alias(alias, name)?;
            if composed.split_once('=').is_some_and(|(a, _)| !a.contains('+')) {
                return Err(bad_input!(
                    "profile '{name}' names an alias of an alias; write ALIAS=PROFILE, e.g. disk2=disk"
                ));
            }
            return Profile::named(composed).map(|p| Profile { name: alias.to_string(), ..p });
        }
        let mut parts = name.split('+');
        let base = parts.next().unwrap_or_default();
        let mut p = Profile::builtin(base).ok_or_else(|| {
            bad_input!(
                "unknown profile '{name}'; valid profiles: {}, each followed by +KEY=VALUE settings or {TLS_SUFFIX}",
                builtin_names().join(", ")
            )
        })?;
        for part in parts {
            match part.split_once('=') {
                _ if part == &TLS_SUFFIX[1..] => p.tls = true,
                Some((k, v)) if !k.is_empty() && !v.is_empty() => p.settings.push((k.to_string(), v.to_string())),
                _ => {
                    return Err(bad_input!(
                        "profile '{name}': '{part}' is neither KEY=VALUE nor tls; write e.g. disk+fsync=off"
                    ));
                }
            }
        }
        p.name = name.to_string();
        Ok(p)
    }

    /// What it does, in the words of the built-in profile it is a copy of (an alias's
    /// too); empty for one with no such built-in.
    pub fn about(&self) -> &'static str {
        let base = self.name.split('+').next().unwrap_or_default();
        let alike = |b: &&Builtin| (b.1, b.2, b.3, b.4) == (self.location, self.durability, self.unlogged, self.wal);
        BUILTINS.iter().find(|b| b.0 == base).or_else(|| BUILTINS.iter().find(alike)).map_or("", |b| b.5)
    }

    /// What it does: `about`, then the settings given over it, which may undo it
    /// (a Compose file's `as-written` cell: "…every commit synced, then fsync=off").
    pub fn described(&self) -> String {
        let set: Vec<String> = self.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        match set.is_empty() {
            true => self.about().to_string(),
            false => format!("{}, then {}", self.about(), set.join(" ")),
        }
    }

    /// Whether its data or its log is kept in the ram location.
    pub fn on_ram(&self) -> bool {
        self.location == LocationKind::Ram || self.wal == Some(LocationKind::Ram)
    }

    /// Whether this is the profile `name` (the name the user gave, before a sweep's label).
    pub fn is_named(&self, name: &str) -> bool {
        let labelled = self.name.strip_prefix(name).is_some_and(|rest| rest.starts_with('+'));
        self.name == name || (labelled && self.tls == name.ends_with(TLS_SUFFIX))
    }
}

/// An alias is a plain name: letters, digits, `-` and `_`, not a built-in one's, and
/// without the `+` that sweeps and `+tls` add.
fn check_alias(alias: &str, given: &str) -> crate::error::Result<()> {
    let plain = !alias.is_empty() && alias.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !plain || Profile::builtin(alias).is_some() {
        return Err(bad_input!(
            "profile '{given}': the name before '=' must be a new name of letters, digits, - and _ (e.g. disk2=disk), not a built-in profile's"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flushed_adds_each_engines_drive_flush_only_where_fsync_does_not() {
        assert!(drive_flush(true).is_empty());
        let mac = drive_flush(false);
        assert!(mac.contains(&("postgres.wal_sync_method".into(), "fsync_writethrough".into())), "{mac:?}");
        assert!(mac.contains(&("sqlite.fullfsync".into(), "1".into())), "{mac:?}");
        let p = Profile::builtin(FLUSHED).unwrap();
        assert_eq!((p.location, p.durability, p.unlogged), (LocationKind::Disk, Durability::Durable, false));
        assert_eq!(p.settings, drive_flush(crate::platform::storage::SYNC_FLUSHES_DRIVE));
        assert!(p.about().contains("F_FULLFSYNC"), "{}", p.about());
    }

    #[test]
    fn builtins_map_to_location_and_durability() {
        let p = |n| Profile::builtin(n).unwrap();
        assert_eq!((p("disk").location, p("disk").durability), (LocationKind::Disk, Durability::Durable));
        assert_eq!((p("ram").location, p("ram").durability), (LocationKind::Ram, Durability::Durable));
        assert_eq!(p("async").durability, Durability::Async);
        assert_eq!((p("nosync").location, p("nosync").durability), (LocationKind::Disk, Durability::Off));
        assert_eq!((p("ram-nosync").location, p("ram-nosync").durability), (LocationKind::Ram, Durability::Off));
        assert!(p("unlogged").unlogged && !p("disk").unlogged);
        assert!(Profile::builtin("fast").is_none());
    }

    #[test]
    fn an_alias_names_a_copy_of_a_builtin() {
        let p = Profile::named("disk2=disk").unwrap();
        assert_eq!((p.name.as_str(), p.location, p.durability), ("disk2", LocationKind::Disk, Durability::Durable));
        let t = Profile::named("secure=ram+tls").unwrap();
        assert!(t.tls && t.name == "secure" && t.location == LocationKind::Ram);
        for bad in ["=disk", "ram=disk", "a b=disk", "x+y=disk", "d2=fast", "d2=d3=disk"] {
            assert!(Profile::named(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_composed_profile_is_a_base_with_settings_over_it() {
        let p = Profile::named("ram+fsync=off+full_page_writes=off+tls").unwrap();
        assert_eq!(
            (p.name.as_str(), p.location, p.tls),
            ("ram+fsync=off+full_page_writes=off+tls", LocationKind::Ram, true)
        );
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(p.settings, [kv("fsync", "off"), kv("full_page_writes", "off")]);
        let short = Profile::named("cache=disk+synchronous_commit=off").unwrap();
        assert_eq!((short.name.as_str(), short.settings.clone()), ("cache", vec![kv("synchronous_commit", "off")]));
        assert!(
            short.described().ends_with("every commit synced, then synchronous_commit=off"),
            "{}",
            short.described()
        );
        for bad in ["disk+fsync", "disk+=off", "disk+fsync=", "fast+fsync=off", "a=b=disk+fsync=off"] {
            assert!(Profile::named(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_tls_suffix_runs_the_profile_with_tls() {
        let p = Profile::named("ram+tls").unwrap();
        assert!(p.tls && p.location == LocationKind::Ram && p.name == "ram+tls");
        assert!(!Profile::named("ram").unwrap().tls);
        let e = Profile::named("fast+tls").unwrap_err().to_string();
        assert!(e.contains("'fast+tls'") && e.contains("+tls"), "{e}");
        assert!(Profile::named("tls").is_err() && Profile::named("+tls").is_err());
        let mut swept = p.clone();
        swept.name = "ram+tls+scale=10".into();
        assert!(swept.is_named("ram+tls") && !swept.is_named("ram"));
        assert!(Profile::named("ram").unwrap().is_named("ram") && !p.is_named("ram"));
    }
}
