//! What a server engine checks before anything starts: a managed target needs binaries
//! and a user to run them as; a `--url` target a URL it reads and a profile that needs
//! no server of dbrace's own.

use crate::engine::Target;
use crate::error::Result;
use crate::profile::Profile;

/// Check `profile` on `target`: `managed` for a throwaway server; for a `--url` one,
/// `parse` reads the URL and `on_url` says whether the profile applies there, with
/// `why_not` finishing "profile 'X' needs a server dbrace starts itself" when it does not.
pub fn check(
    profile: &Profile,
    target: &Target,
    managed: impl FnOnce() -> Result<()>,
    parse: impl FnOnce(&str) -> Result<()>,
    on_url: impl FnOnce(&Profile) -> bool,
    why_not: &str,
) -> Result<()> {
    match target {
        Target::Managed => managed(),
        Target::Url(url) => {
            parse(url)?;
            if profile.tls {
                return Err(bad_input!(
                    "profile '{}' starts a server with TLS; a --url server's TLS is its URL's to say \
                     (sslmode=require, ssl-mode=REQUIRED, rediss://, tls=true)",
                    profile.name
                ));
            }
            if !on_url(profile) {
                return Err(bad_input!("profile '{}' needs a server dbrace starts itself{why_not}", profile.name));
            }
            Ok(())
        }
    }
}

/// Refuse a profile that keeps a write-ahead log apart from the data, for a server that
/// keeps its log beside them (`where_it_is` says where, after the engine's name).
pub fn log_beside_data(profile: &Profile, where_it_is: &str) -> Result<()> {
    match profile.wal.is_some_and(|w| w != profile.location) {
        true => Err(bad_input!("profile '{}' puts a write-ahead log apart from the data; {where_it_is}", profile.name)),
        false => Ok(()),
    }
}

/// Refuse `--set` against a `--url` server whose settings are server-wide: `why` says so.
pub fn no_url_settings(profile: &Profile, target: &Target, why: &str) -> Result<()> {
    match target {
        Target::Url(_) if !profile.settings.is_empty() => Err(bad_input!("{why}")),
        _ => Ok(()),
    }
}
