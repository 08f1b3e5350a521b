//! Throwaway servers handed to a user's own tools (`exec`, `serve`): where a server
//! listens, the account it answers to, and the environment variables ordinary clients read.

pub use crate::launcher::Listen;

use super::Instance;

/// The place and account a user's tools reach (`--port`, `--user`, `--password`,
/// `--database`); what is not given is chosen: a free port, dbrace's account, a random
/// password, the engine's default database.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// TCP port on 127.0.0.1.
    pub port: Option<u16>,
    /// Account name.
    pub user: Option<String>,
    /// The account's password.
    pub password: Option<String>,
    /// Database (a name; a number for Redis).
    pub database: Option<String>,
}

impl Access {
    /// Whether the user named the account or database (a refusal is then theirs to fix).
    pub fn given(&self) -> bool {
        self.user.is_some() || self.password.is_some() || self.database.is_some()
    }
}

/// A throwaway server handed to a user's tools.
pub struct Exposed {
    /// The running instance (stopped when dropped).
    pub instance: Box<dyn Instance>,
    /// The connection URL, password included: what `DATABASE_URL` or `REDIS_URL` holds.
    pub url: String,
    /// The same URL with the password replaced by `***`, safe to print and keep.
    pub redacted: String,
    /// The variables to export: the URL, and those the engine's own clients read.
    pub env: Vec<(String, String)>,
    /// Variables removed from a command's environment: they would send its clients elsewhere.
    pub unset: &'static [&'static str],
    /// The password, so that it can be scrubbed from anything kept.
    pub password: String,
}

/// Percent-encode a URL's user, password or database, leaving what RFC 3986 allows bare.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `scheme://user:password@host:port/path`, and the same with the password as `***`.
pub fn urls(scheme: &str, user: &str, password: &str, host: &str, port: u16, path: &str) -> (String, String) {
    let at = |pw: &str| format!("{scheme}://{}:{pw}@{host}:{port}/{}", encode(user), encode(path));
    (at(&encode(password)), at("***"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parts_are_percent_encoded_and_the_password_redacted() {
        assert_eq!(encode("a b@c:d/é"), "a%20b%40c%3Ad%2F%C3%A9");
        let (url, red) = urls("postgresql", "bob", "p@ss:w/rd", "127.0.0.1", 5433, "shop");
        assert_eq!(url, "postgresql://bob:p%40ss%3Aw%2Frd@127.0.0.1:5433/shop");
        assert_eq!(red, "postgresql://bob:***@127.0.0.1:5433/shop");
        let parsed = crate::engine::postgres::conninfo::ConnInfo::parse(&url).unwrap();
        assert_eq!(parsed.password.as_deref(), Some("p@ss:w/rd"));
    }
}
