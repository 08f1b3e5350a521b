//! `postgres://user:password@host:port/db?host=/socket/dir&connect_timeout=10&sslmode=verify-full`:
//! parsed, and redacted for anything that is printed or stored.

use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
pub use crate::redact::redact;
use std::path::PathBuf;
use std::time::Duration;

/// Where and as whom to connect.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnInfo {
    /// A host name or address, or a unix socket directory (starts with '/').
    pub host: String,
    /// TCP port, or the socket file's number.
    pub port: u16,
    /// Role name.
    pub user: String,
    /// Password, if any (never printed).
    pub password: Option<String>,
    /// Database name.
    pub database: String,
    /// How long connecting and logging in may take (None: as long as it takes).
    pub connect_timeout: Option<Duration>,
    /// TLS over TCP (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`); libpq's default is
    /// `prefer`. A unix socket is always plain.
    pub tls: Tls,
    /// Whether the host name goes out for SNI (`sslsni`, on by default).
    pub sni: bool,
    /// The address to connect to instead of looking up `host`, whose name is still the
    /// one sent for SNI and checked under verify-full (`hostaddr`).
    pub hostaddr: Option<String>,
}

impl ConnInfo {
    /// Parse a `postgres://` or `postgresql://` URL.
    pub fn parse(url: &str) -> Result<ConnInfo> {
        let bad = |why: &str| {
            bad_input!("--url {}: {why}; write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", redact(url))
        };
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .ok_or_else(|| bad("not a postgres:// URL"))?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (user, password) = match userinfo.map(|u| u.split_once(':').unwrap_or((u, ""))) {
            Some((u, p)) => (decode(u), (!p.is_empty()).then(|| decode(p))),
            None => (std::env::var("USER").unwrap_or_else(|_| "postgres".into()), None),
        };
        let (mut host, mut port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse::<u16>().map_err(|_| bad("the port is not a number"))?),
            None => (hostport.to_string(), 5432),
        };
        let mut connect_timeout = Some(CONNECT_TIMEOUT);
        let mut tls = Tls::new(Mode::Prefer, None, None);
        let (mut sni, mut hostaddr, mut cert, mut key) = (true, None, None, None);
        for kv in query.split('&').filter(|s| !s.is_empty()) {
            match kv.split_once('=') {
                Some(("host", h)) => host = decode(h),
                Some(("hostaddr", a)) => hostaddr = Some(decode(a)),
                Some(("port", p)) => port = p.parse::<u16>().map_err(|_| bad("the port is not a number"))?,
                Some(("sslmode", m)) => {
                    tls.mode = Mode::from_sslmode(&decode(m)).ok_or_else(|| {
                        bad(&format!(
                            "sslmode={m} is not one of disable, allow, prefer, require, verify-ca, verify-full"
                        ))
                    })?
                }
                Some(("sslrootcert", f)) => tls.root_cert = Some(PathBuf::from(decode(f))),
                Some(("sslcert", f)) => cert = Some(PathBuf::from(decode(f))),
                Some(("sslkey", f)) => key = Some(PathBuf::from(decode(f))),
                Some(("sslsni", v)) => {
                    sni = match v {
                        "1" => true,
                        "0" => false,
                        _ => return Err(bad(&format!("sslsni={v} is neither 0 nor 1"))),
                    }
                }
                Some(("connect_timeout", t)) => {
                    connect_timeout = timeout(t)
                        .ok_or_else(|| bad(&format!("connect_timeout={t} is not a whole number of seconds")))?
                }
                _ => {
                    return Err(bad(&format!(
                        "unsupported parameter '{kv}' (known: host, hostaddr, port, connect_timeout, sslmode, \
                         sslrootcert, sslcert, sslkey, sslsni)"
                    )));
                }
            }
        }
        tls.client_cert = match (cert, key) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            _ => return Err(bad("sslcert and sslkey go together (a client certificate and its key)")),
        };
        if host.is_empty() {
            host = hostaddr.clone().unwrap_or_else(|| "/var/run/postgresql".into());
        }
        if host.starts_with('/') {
            if tls.mode.insists() || tls.root_cert.is_some() || tls.client_cert.is_some() || hostaddr.is_some() {
                return Err(bad(&format!(
                    "host {host} is a unix socket, which is always plain: TLS (sslmode={}, sslrootcert, sslcert) \
                     and hostaddr need a TCP host",
                    tls.mode.name()
                )));
            }
            tls.mode = Mode::Disable;
        }
        let database = if database.is_empty() { user.clone() } else { decode(database) };
        Ok(ConnInfo { host, port, user, password, database, connect_timeout, tls, sni, hostaddr })
    }

    /// A connection to a server of dbrace's own: plain, libpq's other defaults.
    pub fn plain(host: String, port: u16, user: String, password: Option<String>, database: String) -> ConnInfo {
        ConnInfo {
            host,
            port,
            user,
            password,
            database,
            connect_timeout: Some(CONNECT_TIMEOUT),
            tls: Tls::default(),
            sni: true,
            hostaddr: None,
        }
    }

    /// The same connection to another database.
    pub fn with_database(&self, database: &str) -> ConnInfo {
        ConnInfo { database: database.to_string(), ..self.clone() }
    }

    /// A URL safe to print and store: the password replaced by `***`.
    pub fn redacted(&self) -> String {
        let pw = if self.password.is_some() { ":***" } else { "" };
        if self.host.starts_with('/') {
            format!("postgres://{}{pw}@/{}?host={}&port={}", self.user, self.database, self.host, self.port)
        } else {
            let mut url = format!("postgres://{}{pw}@{}:{}/{}", self.user, self.host, self.port, self.database);
            // TLS that a plain server would not do.
            if self.tls.mode.insists() {
                url.push_str(&format!("?sslmode={}", self.tls.mode.name()));
            }
            url
        }
    }
}

/// libpq's `connect_timeout`: whole seconds; 0 or less waits as long as it takes, and 1
/// means 2 (libpq's minimum). None for anything else.
fn timeout(t: &str) -> Option<Option<Duration>> {
    let n: i64 = t.trim().parse().ok()?;
    Some((n > 0).then(|| Duration::from_secs(n.max(2) as u64)))
}

/// Percent-decoding for URL parts.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            // `get`, not indexing: a '%' before a multi-byte character is no escape, not a panic.
            && let Some(Ok(v)) = s.get(i + 1..i + 3).map(|h| u8::from_str_radix(h, 16))
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn percent_escapes_decode_and_a_stray_percent_is_kept() {
        assert_eq!(super::decode("s%40cret%2f"), "s@cret/");
        assert_eq!(super::decode("%aé%"), "%aé%");
        assert_eq!(super::decode("%é"), "%é");
    }

    use super::*;

    #[test]
    fn parses_tcp_and_socket_urls() {
        let c = ConnInfo::parse("postgres://bob:s%40cret@127.0.0.1:6543/shop").unwrap();
        assert_eq!((c.host.as_str(), c.port, c.user.as_str(), c.database.as_str()), ("127.0.0.1", 6543, "bob", "shop"));
        assert_eq!(c.password.as_deref(), Some("s@cret"));
        assert_eq!(c.redacted(), "postgres://bob:***@127.0.0.1:6543/shop");
        let c = ConnInfo::parse("postgresql://postgres@/test?host=/var/run/postgresql").unwrap();
        assert_eq!((c.host.as_str(), c.port, c.password.clone()), ("/var/run/postgresql", 5432, None));
        let c = ConnInfo::parse("postgres://u@/db?host=/tmp/s&port=6000").unwrap();
        assert_eq!((c.host.as_str(), c.port), ("/tmp/s", 6000));
        assert!(ConnInfo::parse("mysql://x").is_err());
        assert!(ConnInfo::parse("postgres://a@h:xx/d").is_err());
        assert!(ConnInfo::parse("postgres://a@h/d?sslmode=required").is_err());
        assert_eq!(c.connect_timeout, Some(CONNECT_TIMEOUT));
        let t = |q: &str| ConnInfo::parse(&format!("postgres://a@h/d?connect_timeout={q}")).map(|c| c.connect_timeout);
        assert_eq!(t("3").unwrap(), Some(Duration::from_secs(3)));
        assert_eq!(t("1").unwrap(), Some(Duration::from_secs(2)));
        assert_eq!(t("0").unwrap(), None);
        assert!(t("2.5").is_err() && t("soon").is_err());
    }

    #[test]
    fn tls_options_are_libpqs() {
        let c = ConnInfo::parse("postgres://a@h/d").unwrap();
        assert_eq!((c.tls.mode, c.sni, c.hostaddr.clone()), (Mode::Prefer, true, None));
        assert_eq!(c.redacted(), "postgres://a@h:5432/d");
        let c = ConnInfo::parse(
            "postgres://a@db.example.com/d?sslmode=verify-full&sslrootcert=/ca%20dir/ca.crt&sslsni=0&hostaddr=127.0.0.1",
        )
        .unwrap();
        assert_eq!((c.tls.mode, c.tls.root_cert.clone()), (Mode::VerifyFull, Some(PathBuf::from("/ca dir/ca.crt"))));
        assert_eq!((c.sni, c.hostaddr.as_deref(), c.host.as_str()), (false, Some("127.0.0.1"), "db.example.com"));
        assert_eq!(c.redacted(), "postgres://a@db.example.com:5432/d?sslmode=verify-full");
        let c = ConnInfo::parse("postgres://a@h/d?sslmode=require&sslcert=/c.crt&sslkey=/c.key").unwrap();
        assert_eq!(c.tls.client_cert, Some((PathBuf::from("/c.crt"), PathBuf::from("/c.key"))));
        let e = |url: &str| ConnInfo::parse(url).unwrap_err().to_string();
        assert!(e("postgres://a@h/d?sslmode=verify_full").contains("verify-ca, verify-full"));
        assert!(e("postgres://a@h/d?sslcert=/c.crt").contains("sslcert and sslkey go together"));
        assert!(e("postgres://a@h/d?sslsni=yes").contains("sslsni=yes"));
        assert!(e("postgres://a@/d?host=/tmp&sslmode=require").contains("unix socket, which is always plain"));
        assert!(e("postgres://a@/d?sslrootcert=/ca.crt").contains("unix socket"));
        // A socket is plain, as libpq has it, under the modes that take plain.
        let c = ConnInfo::parse("postgres://a@/d?host=/tmp&sslmode=prefer").unwrap();
        assert_eq!(c.tls.mode, Mode::Disable);
        let c = ConnInfo::parse("postgres://a@/d?hostaddr=127.0.0.1&sslmode=require").unwrap();
        assert_eq!(c.host, "127.0.0.1");
    }

    #[test]
    fn a_bad_url_is_refused_without_its_password() {
        let e = ConnInfo::parse("postgres://bob:hunter2@h:zz/d").unwrap_err().to_string();
        assert!(!e.contains("hunter2"), "{e}");
    }
}
