//! An engine's official image, described once for the docker launcher (engine/NAME/server.rs
//! reads its default, data directory, port, program and account variables), `--compose`
//! (which images are the engine's, how a `command:` writes settings, which a profile sets,
//! the account its environment creates) and `suggest` (a profile's settings, the
//! configuration file, the password a user must set, the ready line).

use super::access::Access;
use crate::profile::Profile;
use std::collections::BTreeMap;

/// An engine's image and the contract it follows.
#[derive(Debug)]
pub struct Image {
    /// The image run when `--image` names none: `postgres:17`.
    pub default_image: &'static str,
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
    /// Variables of the service's environment, by prefix, that make the account or move
    /// the data besides `account`'s, which dbrace gives itself: not passed to its
    /// containers (see `owns`); the others are.
    pub own_env: &'static [&'static str],
    /// The account and database clients reach, from the service's environment and the
    /// account settings of its command.
    pub access: fn(&BTreeMap<String, String>, &BTreeMap<String, String>) -> Access,
    /// The server settings that give a profile in this image (with a tmpfs on `data_dir`
    /// for a ram one), or why settings and a tmpfs cannot give it: `dbrace suggest`.
    pub settings: fn(&Profile) -> ProfileSettings,
    /// The image's values of the other settings the engine's durability rule reads, which
    /// no profile sets: what a suggested server runs with besides the profile's.
    pub image_values: &'static [(&'static str, &'static str)],
    /// Where its entrypoint finds init scripts to run on an empty data directory, if it does.
    pub init_dir: Option<&'static str>,
    /// The variables its init makes the first account from.
    pub account: AccountEnv,
    /// The engine's own configuration file.
    pub conf: Conf,
    /// The log line the image's server prints once it takes clients over TCP (not the
    /// first start's temporary server), and on which stream.
    pub ready: (Stream, &'static str),
}

impl Image {
    /// Whether the service's variable `key` is dbrace's to give: the account's, or one of
    /// `own_env`.
    pub fn owns(&self, key: &str) -> bool {
        let a = &self.account;
        [a.user, a.password, a.database].iter().any(|names| names.contains(&key))
            || self.own_env.iter().any(|p| key.starts_with(p))
    }
}

/// The variables an image's init makes its first account from, each by every name the
/// image takes (the first is the one to show a user).
#[derive(Debug)]
pub struct AccountEnv {
    /// The superuser's name (none: a fixed one, MariaDB's root).
    pub user: &'static [&'static str],
    /// Its password.
    pub password: &'static [&'static str],
    /// The database made for it.
    pub database: &'static [&'static str],
    /// Whether the image refuses to start without a password.
    pub password_required: bool,
}

impl AccountEnv {
    /// The variables that make `user` with `password` (and `database`, where given).
    pub fn init(&self, user: &str, password: &str, database: Option<&str>) -> Vec<(String, String)> {
        let set = |names: &[&str], v: &str| names.iter().map(|n| (n.to_string(), v.to_string())).collect::<Vec<_>>();
        let mut env = set(self.user, user);
        env.extend(set(self.password, password));
        env.extend(database.map(|d| set(self.database, d)).unwrap_or_default());
        env
    }

    /// The variable a user must set before the image starts, if it needs one.
    pub fn required_password(&self) -> Option<&'static str> {
        self.password.first().copied().filter(|_| self.password_required)
    }

    /// The account a service's `env` makes: its user, password and database, where set.
    pub fn read(&self, env: &BTreeMap<String, String>) -> [Option<String>; 3] {
        [first(env, self.user), first(env, self.password), first(env, self.database)]
    }
}

/// A profile's server settings, or why settings cannot give it.
pub type ProfileSettings = Result<Vec<(String, String)>, &'static str>;

/// An engine's configuration file: its usual name and how a setting is written in it.
#[derive(Debug)]
pub struct Conf {
    /// Its usual name: `postgresql.conf`.
    pub file: &'static str,
    /// The file's text holding these settings.
    pub render: fn(&[(String, String)]) -> String,
}

/// A container's output stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
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

impl Flags {
    /// `settings` as the server's command-line arguments.
    pub fn args(self, settings: &[(String, String)]) -> Vec<String> {
        let mut out = Vec::new();
        for (k, v) in settings {
            match self {
                Flags::DashC => out.extend(["-c".to_string(), format!("{k}={v}")]),
                Flags::Mysqld => out.push(format!("--{k}={v}")),
                Flags::Spaced => out.extend([format!("--{k}"), v.clone()]),
            }
        }
        out
    }
}

/// The first of `keys` set in `env`.
pub fn first(env: &BTreeMap<String, String>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| env.get(*k).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_become_each_servers_arguments() {
        let s = vec![("fsync".to_string(), "off".to_string()), ("save".to_string(), String::new())];
        assert_eq!(Flags::DashC.args(&s), ["-c", "fsync=off", "-c", "save="]);
        assert_eq!(Flags::Mysqld.args(&s), ["--fsync=off", "--save="]);
        assert_eq!(Flags::Spaced.args(&s), ["--fsync", "off", "--save", ""]);
    }
}
