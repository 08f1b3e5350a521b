//! Where a Redis server is and as whom to connect: `redis://` and `redis+unix://` URLs
//! read as the `redis` crate read them, `rediss://` with redis-py's TLS options
//! (`ssl_cert_reqs`, `ssl_ca_certs`, `ssl_check_hostname`, `ssl_certfile`, `ssl_keyfile`),
//! and printed with the password replaced.

use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use std::path::PathBuf;
use std::time::Duration;

/// Where a server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// TCP host and port.
    Tcp(String, u16),
    /// A unix socket file.
    Unix(PathBuf),
}

/// Where and as whom to connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The server's address.
    pub addr: Addr,
    /// ACL user name, if any (else `default`).
    pub username: Option<String>,
    /// Password, if any (never printed).
    pub password: Option<String>,
    /// Database number (SELECT).
    pub db: i64,
    /// How long connecting and logging in may take (`?timeout=`, as Lettuce's URIs;
    /// None: as long as it takes).
    pub timeout: Option<Duration>,
    /// TLS (`rediss://`) and what it checks; None: plain.
    pub tls: Option<Tls>,
}

/// The port a `redis://` URL without one means.
const DEFAULT_PORT: u16 = 6379;

impl Endpoint {
    /// Parse `redis://[USER[:PASSWORD]@]HOST[:PORT][/DB]`, the same with TLS as
    /// `rediss://…[?ssl_…]`, or `redis+unix:///PATH[?db=N&pass=P&user=U]`; user and
    /// password are percent-decoded.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let redacted = crate::redact::redact(url);
        let bad = |why: &str| {
            bad_input!(
                "--url {redacted}: {why}; write redis://[USER:PASSWORD@]HOST[:PORT][/DB], rediss://… for TLS, or redis+unix:///PATH"
            )
        };
        let parsed = if let Some(rest) = url.strip_prefix("redis://") {
            tcp(rest, false)
        } else if let Some(rest) = url.strip_prefix("rediss://") {
            tcp(rest, true)
        } else if let Some(rest) = url.strip_prefix("redis+unix://") {
            unix(rest)
        } else {
            return Err(bad("not a redis:// URL"));
        };
        parsed.map_err(|why| bad(&why))
    }

    /// A URL safe to print and store: the password replaced by `***`.
    pub fn redacted(&self) -> String {
        let user = self.username.as_deref().unwrap_or("");
        match &self.addr {
            Addr::Tcp(h, p) => {
                let pw = if self.password.is_some() { ":***" } else { "" };
                let auth = if user.is_empty() && pw.is_empty() { String::new() } else { format!("{user}{pw}@") };
                let scheme = if self.tls.is_some() { "rediss" } else { "redis" };
                format!("{scheme}://{auth}{}:{p}/{}", bracketed(h), self.db)
            }
            Addr::Unix(p) => {
                let user = if user.is_empty() { String::new() } else { format!("&user={user}") };
                let pw = if self.password.is_some() { "&pass=***" } else { "" };
                format!("redis+unix://{}?db={}{user}{pw}", p.display(), self.db)
            }
        }
    }

    /// How clients reach the server, for the recorded settings.
    pub fn transport(&self) -> String {
        match &self.addr {
            Addr::Tcp(h, p) => format!("tcp {}:{p}", bracketed(h)),
            Addr::Unix(p) => format!("socket {}", p.display()),
        }
    }
}

/// An IPv6 address in brackets, so the port after it reads as one.
fn bracketed(host: &str) -> String {
    if host.contains(':') { format!("[{host}]") } else { host.to_string() }
}

/// The part after `redis://`, or `rediss://` when `tls`. Error texts never quote the
/// user information.
fn tcp(rest: &str, tls: bool) -> std::result::Result<Endpoint, String> {
    // As in any URL, the authority ends at the path, the query or the fragment.
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let (mut username, mut password) = (None, None);
    if let Some(info) = userinfo {
        let (u, p) = info.split_once(':').map_or((info, None), |(u, p)| (u, Some(p)));
        username = Some(decode(u, "user name")?).filter(|u| !u.is_empty());
        password = p.map(|p| decode(p, "password")).transpose()?.filter(|p| !p.is_empty());
    }
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (h, after) = v6.split_once(']').ok_or("an IPv6 host needs its closing ']'")?;
        (h, after.strip_prefix(':').unwrap_or(after))
    } else {
        hostport.split_once(':').unwrap_or((hostport, ""))
    };
    if host.is_empty() {
        return Err("no host".into());
    }
    let port = if port.is_empty() {
        DEFAULT_PORT
    } else {
        // Not quoted: after an unescaped '/' or '#' in a password, the "port" is part of it.
        port.parse::<u16>()
            .ok()
            .filter(|_| port.bytes().all(|b| b.is_ascii_digit()))
            .ok_or("the port is not a number from 0 to 65535")?
    };
    let path = tail.split(['?', '#']).next().unwrap_or("");
    let db = database(path.trim_matches('/'))?;
    let mut timeout = Some(CONNECT_TIMEOUT);
    let mut options = TlsOptions::default();
    let query = tail.split('#').next().unwrap_or("").split_once('?').map_or("", |(_, q)| q);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "timeout" => timeout = duration(v)?,
            k if k.starts_with("ssl_") => options.take(k, &decode(&v.replace('+', " "), k)?)?,
            _ => {}
        }
    }
    let tls = match (tls, options.given.clone()) {
        (true, _) => Some(options.tls()?),
        (false, Some(k)) => return Err(format!("{k} is a TLS option: TLS URLs start rediss://")),
        (false, None) => None,
    };
    Ok(Endpoint { addr: Addr::Tcp(host.to_ascii_lowercase(), port), username, password, db, timeout, tls })
}

/// redis-py's TLS options, as a `rediss://` URL's query gives them.
#[derive(Default)]
struct TlsOptions {
    /// The first one given, for a message about a URL without TLS.
    given: Option<String>,
    cert_reqs: Option<String>,
    check_hostname: Option<bool>,
    ca_certs: Option<String>,
    certfile: Option<String>,
    keyfile: Option<String>,
}

impl TlsOptions {
    /// Take option `k` with value `v`.
    fn take(&mut self, k: &str, v: &str) -> std::result::Result<(), String> {
        self.given.get_or_insert_with(|| k.to_string());
        let file = |v: &str| if v.is_empty() { Err(format!("{k} names no file")) } else { Ok(Some(v.to_string())) };
        match k {
            "ssl_cert_reqs" => match v.to_ascii_lowercase().as_str() {
                "none" | "optional" | "required" => self.cert_reqs = Some(v.to_ascii_lowercase()),
                _ => return Err(format!("ssl_cert_reqs={v} is not one of none, optional, required")),
            },
            "ssl_check_hostname" => {
                self.check_hostname = Some(match v.to_ascii_lowercase().as_str() {
                    "true" | "yes" | "1" => true,
                    "false" | "no" | "0" => false,
                    _ => return Err(format!("ssl_check_hostname={v} is not true or false")),
                })
            }
            "ssl_ca_certs" => self.ca_certs = file(v)?,
            "ssl_certfile" => self.certfile = file(v)?,
            "ssl_keyfile" => self.keyfile = file(v)?,
            _ => {
                return Err(format!(
                    "unknown TLS option {k} (known: ssl_cert_reqs, ssl_ca_certs, ssl_check_hostname, ssl_certfile, ssl_keyfile)"
                ));
            }
        }
        Ok(())
    }

    /// The client's TLS: verify-full unless the options say less. `optional` checks as
    /// `required` does, as Python's ssl module does on a client.
    fn tls(self) -> std::result::Result<Tls, String> {
        let mode = match (self.cert_reqs.as_deref(), self.check_hostname) {
            (Some("none"), Some(true)) => {
                return Err("ssl_check_hostname=true needs the certificate checked: drop ssl_cert_reqs=none".into());
            }
            (Some("none"), _) => Mode::Require,
            (_, Some(false)) => Mode::VerifyCa,
            _ => Mode::VerifyFull,
        };
        let client_cert = match (self.certfile, self.keyfile) {
            (Some(c), Some(k)) => Some((c.into(), k.into())),
            (None, None) => None,
            (Some(_), None) => return Err("ssl_certfile needs its key: add ssl_keyfile=FILE".into()),
            (None, Some(_)) => return Err("ssl_keyfile needs its certificate: add ssl_certfile=FILE".into()),
        };
        Ok(Tls::new(mode, self.ca_certs.map(Into::into), client_cert))
    }
}

/// The part after `redis+unix://`: an absolute path, then `db`, `pass` and `user` in the query.
fn unix(rest: &str) -> std::result::Result<Endpoint, String> {
    let rest = rest.split('#').next().unwrap_or("");
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if !path.starts_with('/') {
        return Err("a unix socket URL takes an absolute path: redis+unix:///PATH".into());
    }
    let mut ep = Endpoint {
        addr: Addr::Unix(decode(path, "path")?.into()),
        username: None,
        password: None,
        db: 0,
        timeout: Some(CONNECT_TIMEOUT),
        tls: None,
    };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        // A query is form-encoded: '+' is a space there.
        let v = v.replace('+', " ");
        match k {
            "db" => ep.db = database(&decode(&v, "db")?)?,
            "pass" => ep.password = Some(decode(&v, "password")?),
            "user" => ep.username = Some(decode(&v, "user name")?),
            "timeout" => ep.timeout = duration(&v)?,
            k if k.starts_with("ssl_") => return Err(format!("{k}: TLS runs over TCP only, not a unix socket")),
            _ => {}
        }
    }
    Ok(ep)
}

/// A timeout as Lettuce writes it: `10s`, `500ms`, `1m`, or bare seconds; 0 waits as long
/// as it takes.
fn duration(v: &str) -> std::result::Result<Option<Duration>, String> {
    let d = match v.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => {
            humantime::parse_duration(v).map_err(|_| format!("timeout={v} is not a duration (write 10s or 500ms)"))?
        }
    };
    Ok((!d.is_zero()).then_some(d))
}

/// A database number; none given is 0.
fn database(s: &str) -> std::result::Result<i64, String> {
    if s.is_empty() {
        return Ok(0);
    }
    s.parse().map_err(|_| format!("the database '{}' is not a number", s.chars().take(12).collect::<String>()))
}

/// Percent-decode a part of a URL (`%40` is `@`); a `%` not followed by two hex digits stays.
fn decode(s: &str, what: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(hi), Some(lo)) = (b.get(i + 1).and_then(|&c| hex(c)), b.get(i + 2).and_then(|&c| hex(c)))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("the {what} is not UTF-8 once percent-decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_redact() {
        let e = Endpoint::parse("redis://bob:s%40cret@127.0.0.1:6390/3").unwrap();
        assert_eq!(e.addr, Addr::Tcp("127.0.0.1".into(), 6390));
        assert_eq!((e.username.as_deref(), e.password.as_deref(), e.db), (Some("bob"), Some("s@cret"), 3));
        assert_eq!(e.redacted(), "redis://bob:***@127.0.0.1:6390/3");
        let e = Endpoint::parse("redis://:pw@localhost").unwrap();
        assert_eq!((e.addr.clone(), e.username.clone(), e.db), (Addr::Tcp("localhost".into(), 6379), None, 0));
        assert_eq!(e.redacted(), "redis://:***@localhost:6379/0");
        let e = Endpoint::parse("redis+unix:///run/redis/redis.sock?db=2&pass=pw").unwrap();
        assert_eq!((e.addr.clone(), e.db), (Addr::Unix("/run/redis/redis.sock".into()), 2));
        assert_eq!(e.redacted(), "redis+unix:///run/redis/redis.sock?db=2&pass=***");
        let err = Endpoint::parse("redis+unix:///s?db=x&pass=hunter2").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
        for bad in ["rediss://:pw@", "postgres://h", "redis://h:xx", "redis://h:1/notadb"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        let err = Endpoint::parse("redis://u:hunter2@h:zz/0").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[test]
    fn urls_read_as_the_redis_crate_read_them() {
        let e = Endpoint::parse("redis://alice@Example.COM:7000/").unwrap();
        assert_eq!(e.addr, Addr::Tcp("example.com".into(), 7000));
        assert_eq!((e.username.as_deref(), e.password.as_deref(), e.db), (Some("alice"), None, 0));
        let e = Endpoint::parse("redis://a%3Ab:p%3A%2F%zz@[::1]:6400/5?protocol=resp2").unwrap();
        assert_eq!(e.addr, Addr::Tcp("::1".into(), 6400));
        assert_eq!((e.username.as_deref(), e.password.as_deref(), e.db), (Some("a:b"), Some("p:/%zz"), 5));
        assert_eq!(e.redacted(), "redis://a:b:***@[::1]:6400/5");
        assert_eq!(e.transport(), "tcp [::1]:6400");
        // The password may hold '@': the host follows the last one.
        let e = Endpoint::parse("redis://:a@b@h").unwrap();
        assert_eq!((e.addr, e.password.as_deref()), (Addr::Tcp("h".into(), 6379), Some("a@b")));
        let e = Endpoint::parse("redis+unix:///tmp/my%20dir/r.sock?user=u&pass=a+b%26c&db=7").unwrap();
        assert_eq!(e.addr, Addr::Unix("/tmp/my dir/r.sock".into()));
        assert_eq!((e.username.as_deref(), e.password.as_deref(), e.db), (Some("u"), Some("a b&c"), 7));
        assert_eq!(Endpoint::parse("redis+unix:///s").unwrap().db, 0);
        for bad in ["redis://", "redis://:pw@", "redis://h:70000", "redis://h:-1", "redis://[::1", "redis+unix://s"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Endpoint::parse("redis://h").unwrap().timeout, Some(CONNECT_TIMEOUT));
        assert_eq!(Endpoint::parse("redis://h/1?timeout=3s").unwrap().timeout, Some(Duration::from_secs(3)));
        assert_eq!(Endpoint::parse("redis://h?timeout=250ms").unwrap().timeout, Some(Duration::from_millis(250)));
        assert_eq!(Endpoint::parse("redis+unix:///s?timeout=0").unwrap().timeout, None);
        assert!(Endpoint::parse("redis://h?timeout=soon").is_err());
        let err = Endpoint::parse("redis://u:%FF%FE@h").unwrap_err().to_string();
        assert!(err.contains("password is not UTF-8"), "{err}");
    }
}
