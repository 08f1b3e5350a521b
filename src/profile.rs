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
}

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
        "wal-ram",
        LocationKind::Disk,
        Durability::Durable,
        false,
        Some(LocationKind::Ram),
        "data on disk, WAL on tmpfs (PostgreSQL)",
    ),
];

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
            settings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
