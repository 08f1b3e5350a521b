//! What a commit the engine acknowledged survives: each engine's rule (engine/NAME/
//! durability.rs) says it from the settings read back and where the profile keeps the
//! data and its log; docs/durability.md gives the reasons.

use crate::profile::{LocationKind, Profile};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The worst failure an acknowledged commit is still there after, each level including
/// those below it: a commit that survives a power loss survives an OS crash too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Survives {
    /// Power loss: it was on stable storage (synced) before it was acknowledged.
    PowerLoss,
    /// An OS crash (kernel panic, reset), not a power loss: it reached the drive but
    /// perhaps only the drive's volatile cache.
    OsCrash,
    /// The server's crash (kill -9; dbrace's own process for an embedded engine), not the
    /// OS's: it was in the kernel's page cache or on tmpfs.
    ServerCrash,
    /// Nothing: the server's crash may lose it (it sat in the server's memory, or its
    /// tables are volatile).
    Nothing,
    /// The settings that decide it could not all be read back (a `--url` server that
    /// hides them, a server of another make): not guessed.
    Unknown,
}

impl Survives {
    /// How far it goes, for `weaker`: 0 nothing … 3 power loss; none for unknown.
    fn rank(self) -> Option<u8> {
        match self {
            Survives::Nothing => Some(0),
            Survives::ServerCrash => Some(1),
            Survives::OsCrash => Some(2),
            Survives::PowerLoss => Some(3),
            Survives::Unknown => None,
        }
    }

    /// Its name in results files and CSV: `power-loss`, `os-crash`, `server-crash`,
    /// `nothing`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Survives::PowerLoss => "power-loss",
            Survives::OsCrash => "os-crash",
            Survives::ServerCrash => "server-crash",
            Survives::Nothing => "nothing",
            Survives::Unknown => "unknown",
        }
    }

    /// What may still lose a commit acknowledged at this level, in words.
    pub fn lost_to(self) -> &'static str {
        match self {
            Survives::PowerLoss => "only the disk's own failure",
            Survives::OsCrash => "a power loss (it may sit in the drive's volatile cache)",
            Survives::ServerCrash => "an OS crash or a power loss (it may sit in the page cache, or on tmpfs)",
            Survives::Nothing => "a crash of the server itself (it may sit in the server's memory)",
            Survives::Unknown => "anything: a setting that decides it is not known",
        }
    }

    /// The lesser of two limits on one commit: nothing is nothing whatever else is
    /// unknown; otherwise an unknown part leaves the whole unknown.
    pub fn weaker(self, other: Survives) -> Survives {
        match (self.rank(), other.rank()) {
            (Some(0), _) | (_, Some(0)) => Survives::Nothing,
            (Some(a), Some(b)) => {
                if a <= b {
                    self
                } else {
                    other
                }
            }
            _ => Survives::Unknown,
        }
    }

    /// The most a commit can survive where the profile keeps its data and its log: a
    /// synced write on disk survives a power loss, one on tmpfs only the server's crash.
    pub fn stored(profile: &Profile) -> Survives {
        let at = |l: LocationKind| match l {
            LocationKind::Disk => Survives::PowerLoss,
            LocationKind::Ram => Survives::ServerCrash,
        };
        at(profile.location).weaker(profile.wal.map_or(Survives::PowerLoss, at))
    }
}

/// A commit synced to the drive, where the sync may leave it in the drive's volatile cache
/// (macOS's fsync; `flushed` false): an OS crash keeps it, a power loss may not.
pub fn on_the_drive(synced: Survives, flushed: bool) -> Survives {
    if synced == Survives::PowerLoss && !flushed { Survives::OsCrash } else { synced }
}

/// A boolean setting as servers spell it (`on`, `1`, `yes`, `true`, any case); None for
/// anything else, which the rules then do not guess at.
pub fn flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// `base` as settings read back, with each of `over` set, or removed when its value is
/// `-`: the engines' rules are tested on these.
#[cfg(test)]
pub fn settings_with(base: &[(&str, &str)], over: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    let mut settings: std::collections::BTreeMap<String, String> =
        base.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    for (k, v) in over {
        match *v {
            "-" => settings.remove(*k),
            v => settings.insert(k.to_string(), v.to_string()),
        };
    }
    settings
}

impl fmt::Display for Survives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Survives::PowerLoss => "power loss",
            Survives::OsCrash => "OS crash",
            Survives::ServerCrash => "server crash",
            Survives::Nothing => "nothing",
            Survives::Unknown => "unknown",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weaker_takes_the_lesser_and_nothing_beats_unknown() {
        use Survives::*;
        assert_eq!(PowerLoss.weaker(ServerCrash), ServerCrash);
        assert_eq!(ServerCrash.weaker(PowerLoss), ServerCrash);
        assert_eq!(OsCrash.weaker(PowerLoss), OsCrash);
        assert_eq!(PowerLoss.weaker(PowerLoss), PowerLoss);
        assert_eq!(Unknown.weaker(Nothing), Nothing);
        assert_eq!(Nothing.weaker(Unknown), Nothing);
        assert_eq!(Unknown.weaker(PowerLoss), Unknown);
        assert_eq!(ServerCrash.weaker(Unknown), Unknown);
    }

    #[test]
    fn tmpfs_for_data_or_log_stops_at_a_server_crash() {
        let p = |n: &str| Survives::stored(&Profile::builtin(n).unwrap());
        assert_eq!(p("disk"), Survives::PowerLoss);
        assert_eq!(p("nosync"), Survives::PowerLoss, "where it lives, not how it is synced");
        assert_eq!(p("ram"), Survives::ServerCrash);
        assert_eq!(p("ram-nosync"), Survives::ServerCrash);
        assert_eq!(p("wal-ram"), Survives::ServerCrash);
    }

    #[test]
    fn spelled_in_kebab_case_and_shown_in_words() {
        assert_eq!(serde_json::to_string(&Survives::PowerLoss).unwrap(), r#""power-loss""#);
        assert_eq!(serde_json::to_string(&Survives::ServerCrash).unwrap(), r#""server-crash""#);
        assert_eq!(serde_json::from_str::<Survives>(r#""os-crash""#).unwrap(), Survives::OsCrash);
        assert_eq!(Survives::ServerCrash.to_string(), "server crash");
        use Survives::*;
        for s in [PowerLoss, OsCrash, ServerCrash, Nothing, Unknown] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name(), "the CSV spells it as the file does");
        }
        assert_eq!(Survives::Unknown.to_string(), "unknown");
    }
}
