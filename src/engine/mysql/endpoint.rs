//! Where a MySQL client connects: a `mysql://user:password@host:port/db` URL (or
//! `?socket=PATH`), or a throwaway server's socket or port; redacted for anything that is
//! printed or stored.

use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::error::Result;
use crate::redact::redact;
use mysql_async::{Opts, OptsBuilder};
use std::time::Duration;

/// One server and account to connect to.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The driver's options (host or socket, user, password, database).
    pub opts: Opts,
    /// How long connecting and logging in may take (`?connect-timeout=SECONDS`, as the
    /// mysql client's option; None: as long as it takes).
    pub connect_timeout: Option<Duration>,
}

impl Endpoint {
    /// Parse a `mysql://` or `mariadb://` URL. A host means TCP (never swapped for the
    /// socket the server reports, as the driver would by default); `?socket=PATH` means
    /// that unix socket.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let bad = |why: String| {
            bad_input!("--url {}: {why}; write mysql://USER[:PASSWORD]@HOST[:PORT]/[DATABASE]", redact(url))
        };
        let rest = url
            .strip_prefix("mysql://")
            .or_else(|| url.strip_prefix("mariadb://"))
            .ok_or_else(|| bad("not a mysql:// URL".into()))?;
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        if authority.rsplit('@').next().unwrap_or_default().is_empty() && !rest.contains("socket=") {
            return Err(bad("no host (or ?socket=PATH) given".into()));
        }
        // The driver's parser wants a host even for a socket: any will do, it is not used.
        let parsed = if authority.ends_with('@') || authority.is_empty() {
            format!("mysql://{authority}localhost{}", &rest[authority.len()..])
        } else {
            format!("mysql://{rest}")
        };
        let (parsed, connect_timeout) = take_timeout(&parsed).map_err(bad)?;
        let opts = Opts::from_url(&parsed).map_err(|e| bad(e.to_string()))?;
        Ok(Endpoint { connect_timeout, ..Endpoint::new(OptsBuilder::from_opts(opts)) })
    }

    /// dbrace's options on top of `b`: TCP stays TCP, statements are held for the
    /// connection's life (no cache that would close them), and UPDATE counts matched rows,
    /// as PostgreSQL does.
    pub fn new(b: OptsBuilder) -> Endpoint {
        let b = b.prefer_socket(false).stmt_cache_size(0).client_found_rows(true).tcp_nodelay(true);
        Endpoint { opts: b.into(), connect_timeout: Some(CONNECT_TIMEOUT) }
    }

    /// The same server and account, another database.
    pub fn with_database(&self, db: &str) -> Endpoint {
        let opts = OptsBuilder::from_opts(self.opts.clone()).db_name(Some(db)).into();
        Endpoint { opts, connect_timeout: self.connect_timeout }
    }

    /// Whether clients use the unix socket.
    pub fn is_socket(&self) -> bool {
        self.opts.socket().is_some()
    }

    /// Where it connects, safe to print and store: the password replaced by `***`.
    pub fn redacted(&self) -> String {
        let o = &self.opts;
        let pw = if o.pass().is_some() { ":***" } else { "" };
        let user = o.user().unwrap_or_default();
        let db = o.db_name().unwrap_or_default();
        match o.socket() {
            Some(s) => format!("mysql://{user}{pw}@/{db}?socket={s}"),
            None => format!("mysql://{user}{pw}@{}:{}/{db}", o.ip_or_hostname(), o.tcp_port()),
        }
    }
}

/// `url` without its `connect-timeout` (or `connect_timeout`) option, which the driver
/// does not know, and the timeout it gives: whole seconds as the mysql client's
/// `--connect-timeout`, 0 for as long as it takes; 10 s when it is not given.
fn take_timeout(url: &str) -> std::result::Result<(String, Option<Duration>), String> {
    let Some((head, query)) = url.split_once('?') else { return Ok((url.to_string(), Some(CONNECT_TIMEOUT))) };
    let mut timeout = Some(CONNECT_TIMEOUT);
    let mut kept = Vec::new();
    for kv in query.split('&') {
        match kv.split_once('=') {
            Some(("connect-timeout" | "connect_timeout", v)) => {
                let n: u64 = v.parse().map_err(|_| format!("{kv}: the timeout is whole seconds"))?;
                timeout = (n > 0).then(|| Duration::from_secs(n));
            }
            _ => kept.push(kv),
        }
    }
    let url = if kept.iter().all(|kv| kv.is_empty()) { head.to_string() } else { format!("{head}?{}", kept.join("&")) };
    Ok((url, timeout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tcp_and_socket_urls_and_hides_the_password() {
        let e = Endpoint::parse("mysql://bob:s%40cret@127.0.0.1:3307/shop").unwrap();
        assert_eq!((e.opts.ip_or_hostname(), e.opts.tcp_port()), ("127.0.0.1", 3307));
        assert_eq!((e.opts.user(), e.opts.pass(), e.opts.db_name()), (Some("bob"), Some("s@cret"), Some("shop")));
        assert!(!e.opts.prefer_socket() && !e.is_socket());
        assert_eq!(e.redacted(), "mysql://bob:***@127.0.0.1:3307/shop");
        let e = Endpoint::parse("mysql://root@/?socket=%2Frun%2Fmysqld%2Fmysqld.sock").unwrap();
        assert_eq!(e.opts.socket(), Some("/run/mysqld/mysqld.sock"));
        assert_eq!(e.redacted(), "mysql://root@/?socket=/run/mysqld/mysqld.sock");
        let e = Endpoint::parse("mariadb://root@localhost").unwrap();
        assert_eq!(e.opts.tcp_port(), 3306);
        assert!(Endpoint::parse("postgres://x@h/d").is_err());
        assert!(Endpoint::parse("mysql://root@/db").is_err());
        let err = Endpoint::parse("mysql://bob:hunter2@h:zz/d").unwrap_err().to_string();
        assert!(!err.contains("hunter2") && err.contains("bob:***@"), "{err}");
        assert_eq!(e.connect_timeout, Some(CONNECT_TIMEOUT));
        let e = Endpoint::parse("mysql://root@h/d?connect-timeout=3&socket=%2Fx.sock").unwrap();
        assert_eq!((e.connect_timeout, e.opts.socket()), (Some(Duration::from_secs(3)), Some("/x.sock")));
        assert_eq!(Endpoint::parse("mysql://root@h/d?connect_timeout=0").unwrap().connect_timeout, None);
        assert_eq!(
            Endpoint::parse("mysql://root@h/d?connect_timeout=7").unwrap().with_database("x").connect_timeout,
            Some(Duration::from_secs(7))
        );
        assert!(Endpoint::parse("mysql://root@h/d?connect-timeout=soon").is_err());
        let err = Endpoint::parse("mysql://bob:hunter2@h/d?nonsense=1").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }
}
