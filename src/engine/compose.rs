//! What a Compose service of an engine's official image means to dbrace: which images are
//! the engine's, where the image keeps its data, how its `command:` writes server settings,
//! which of them a profile sets, and the account its environment creates.

use super::access::Access;
use std::collections::BTreeMap;

/// An engine's image, as a Compose service uses it.
#[derive(Debug)]
pub struct ServiceContract {
    /// Image names that are the engine's (the last part of the repository, any registry
    /// and tag): `postgres`; `mysql` and `mariadb`.
    pub images: &'static [&'static str],
    /// The port the server listens on inside the container, which `ports:` publishes.
    pub port: u16,
    /// Where the image keeps its data.
    pub data_dir: &'static str,
    /// The server programs a `command:` may start with.
    pub programs: &'static [&'static str],
    /// How the server's settings are written as arguments.
    pub flags: Flags,
    /// The settings a profile sets (its durability): a `command:` that sets one is a
    /// tuning the profiles replace.
    pub durability: &'static [&'static str],
    /// The image's own values of those settings where they differ from a durable
    /// profile's, which the `as-written` cell starts from (Redis keeps no append-only file
    /// unless told to).
    pub defaults: &'static [(&'static str, &'static str)],
    /// Settings that are the account, not the server's tuning (Redis's `requirepass`):
    /// taken into the access, not passed on.
    pub account_settings: &'static [&'static str],
    /// The account and database clients reach, from the service's environment and the
    /// account settings of its command.
    pub access: fn(&BTreeMap<String, String>, &BTreeMap<String, String>) -> Access,
}

/// How a server's settings are written on its command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flags {
    /// `-c key=value` (or `-ckey=value`, `--key=value`): PostgreSQL.
    DashC,
    /// `--key=value`, a bare `--key` on and `--skip-key` off, dashes and underscores alike:
    /// mysqld.
    Mysqld,
    /// `--key value…` (the words up to the next `--`): redis-server, mongod.
    Spaced,
}

/// The first of `keys` set in `env`.
pub fn first(env: &BTreeMap<String, String>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| env.get(*k).cloned())
}
