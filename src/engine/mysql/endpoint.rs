//! Where a MySQL client connects: a `mysql://user:password@host:port/db` URL (or
//! `?socket=PATH`), or a throwaway server's socket or port, and how it uses TLS (the mysql
//! client's `ssl-mode`, `ssl-ca`, `ssl-cert`, `ssl-key`); redacted for anything that is
//! printed or stored.

use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use crate::redact::redact;
use mysql_async::{Opts, OptsBuilder};
use rustls::ClientConfig;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// One server and account to connect to.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The driver's options (host or socket, user, password, database).
    pub opts: Opts,
    /// How long connecting and logging in may take (`?connect-timeout=SECONDS`, as the
    /// mysql client's option; None: as long as it takes).
    pub connect_timeout: Option<Duration>,
    /// TLS as the URL asks (`PREFERRED` unless it says otherwise, as the mysql client;
    /// off on a socket); a throwaway server's endpoints set their own.
    pub tls: Tls,
}

/// The URL options that ask for TLS, as the mysql client names them.
const SSL_MODES: &str = "DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY";

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
        let (parsed, ours) = take_options(&parsed).map_err(bad)?;
        let opts = Opts::from_url(&parsed).map_err(|e| bad(e.to_string()))?;
        let socket = opts.socket().is_some();
        let connect_timeout = ours.connect_timeout;
        let tls = ours.tls(socket).map_err(bad)?;
        let e = Endpoint { connect_timeout, ..Endpoint::new(OptsBuilder::from_opts(opts)) };
        e.with_tls(tls).map_err(|why| bad_input!("--url {}: {why}", redact(url)))
    }

    /// The same endpoint with TLS as `tls` says (checked: its files read now).
    pub fn with_tls(self, tls: Tls) -> Result<Endpoint> {
        if tls.mode != Mode::Disable {
            tls.config().map_err(|e| bad_input!("{e}"))?;
        }
        Ok(Endpoint { tls, ..self })
    }

    /// The rustls configuration (built when the endpoint was made), when TLS may be used.
    pub fn tls_config(&self) -> Option<Arc<ClientConfig>> {
        (self.tls.mode != Mode::Disable).then(|| self.tls.config().ok()).flatten()
    }

    /// dbrace's options on top of `b`: TCP stays TCP, statements are held for the
    /// connection's life (no cache that would close them), and UPDATE counts matched rows,
    /// as PostgreSQL does.
    pub fn new(b: OptsBuilder) -> Endpoint {
        let b = b.prefer_socket(false).stmt_cache_size(0).client_found_rows(true).tcp_nodelay(true);
        Endpoint { opts: b.into(), connect_timeout: Some(CONNECT_TIMEOUT), tls: Tls::default() }
    }

    /// The same server and account, another database.
    pub fn with_database(&self, db: &str) -> Endpoint {
        let opts = OptsBuilder::from_opts(self.opts.clone()).db_name(Some(db)).into();
        Endpoint { opts, ..self.clone() }
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

/// What the URL says that the driver does not read: the timeout and TLS.
#[derive(Debug, Default)]
struct Options {
    connect_timeout: Option<Duration>,
    /// `ssl-mode`, as given.
    mode: Option<Mode>,
    ca: Option<PathBuf>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
}

impl Options {
    /// TLS as the options ask: `PREFERRED` by default, `VERIFY_CA` when only `ssl-ca` is
    /// given (as the mysql client); on a unix socket none, and asking for it is a mistake.
    fn tls(self, socket: bool) -> std::result::Result<Tls, String> {
        let client_cert = match (self.cert, self.key) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            _ => return Err("ssl-cert and ssl-key go together".into()),
        };
        let files = self.ca.is_some() || client_cert.is_some();
        if socket {
            if files || self.mode.is_some_and(|m| m != Mode::Disable) {
                return Err(
                    "TLS runs over TCP only, not a unix socket: drop the ssl- options or connect by host".into()
                );
            }
            return Ok(Tls::default());
        }
        let mode = self.mode.unwrap_or(if self.ca.is_some() { Mode::VerifyCa } else { Mode::Prefer });
        if mode == Mode::Disable && files {
            return Err("ssl-mode=DISABLED with ssl-ca, ssl-cert or ssl-key: drop one or the other".into());
        }
        Ok(Tls::new(mode, self.ca, client_cert))
    }
}

/// The mode `ssl-mode=NAME` names (any case).
fn ssl_mode(name: &str) -> Option<Mode> {
    Some(match name.to_ascii_uppercase().as_str() {
        "DISABLED" => Mode::Disable,
        "PREFERRED" => Mode::Prefer,
        "REQUIRED" => Mode::Require,
        "VERIFY_CA" => Mode::VerifyCa,
        "VERIFY_IDENTITY" => Mode::VerifyFull,
        _ => return None,
    })
}

/// The mysql client's name for a mode.
pub fn ssl_mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Disable => "DISABLED",
        Mode::Allow | Mode::Prefer => "PREFERRED",
        Mode::Require => "REQUIRED",
        Mode::VerifyCa => "VERIFY_CA",
        Mode::VerifyFull => "VERIFY_IDENTITY",
    }
}

/// `url` without the options the driver does not know (`connect-timeout`, `ssl-mode`,
/// `ssl-ca`, `ssl-cert`, `ssl-key`, each also with `_`), and what they say. The timeout is
/// whole seconds as the mysql client's `--connect-timeout`, 0 for as long as it takes;
/// 10 s when it is not given.
fn take_options(url: &str) -> std::result::Result<(String, Options), String> {
    let mut o = Options { connect_timeout: Some(CONNECT_TIMEOUT), ..Options::default() };
    let Some((head, query)) = url.split_once('?') else { return Ok((url.to_string(), o)) };
    let mut kept = Vec::new();
    let file = |v: &str, kv: &str| -> std::result::Result<Option<PathBuf>, String> {
        let path = decode(v);
        if path.is_empty() {
            return Err(format!("{kv}: no file named"));
        }
        Ok(Some(PathBuf::from(path)))
    };
    for kv in query.split('&') {
        let Some((k, v)) = kv.split_once('=') else {
            kept.push(kv);
            continue;
        };
        match k.replace('_', "-").as_str() {
            "connect-timeout" => {
                let n: u64 = v.parse().map_err(|_| format!("{kv}: the timeout is whole seconds"))?;
                o.connect_timeout = (n > 0).then(|| Duration::from_secs(n));
            }
            "ssl-mode" => {
                o.mode = Some(ssl_mode(v).ok_or_else(|| format!("{kv}: ssl-mode is one of {SSL_MODES}"))?);
            }
            "ssl-ca" => o.ca = file(v, kv)?,
            "ssl-cert" => o.cert = file(v, kv)?,
            "ssl-key" => o.key = file(v, kv)?,
            _ => kept.push(kv),
        }
    }
    let url = if kept.iter().all(|kv| kv.is_empty()) { head.to_string() } else { format!("{head}?{}", kept.join("&")) };
    Ok((url, o))
}

/// `%XX` escapes decoded (a path may be given encoded: `%2Fetc%2Fca.pem`).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex =
            b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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

    #[test]
    fn ssl_options_map_to_tls_as_the_mysql_client_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let ca = crate::instance::certs::make(dir.path(), None).unwrap().ca;
        let ca = ca.display().to_string();
        let tls = |q: &str| Endpoint::parse(&format!("mysql://u@h/d{q}")).map(|e| e.tls);
        assert_eq!(tls("").unwrap().mode, Mode::Prefer);
        assert_eq!(tls("?ssl-mode=disabled").unwrap().mode, Mode::Disable);
        assert_eq!(tls("?ssl_mode=Required").unwrap().mode, Mode::Require);
        assert_eq!(tls("?ssl-mode=VERIFY_IDENTITY").unwrap().mode, Mode::VerifyFull);
        // ssl-ca alone checks the chain, as the mysql client does; encoded paths decode.
        let t = tls(&format!("?ssl-ca={}", ca.replace('/', "%2F"))).unwrap();
        assert_eq!((t.mode, t.root_cert.unwrap().display().to_string()), (Mode::VerifyCa, ca.clone()));
        let t = tls(&format!("?ssl-mode=VERIFY_CA&ssl_ca={ca}&connect-timeout=3")).unwrap();
        assert_eq!(t.mode, Mode::VerifyCa);
        let e = Endpoint::parse("mysql://u@h/d?ssl-mode=required&connect-timeout=3").unwrap();
        assert!(e.tls_config().is_some() && e.connect_timeout == Some(Duration::from_secs(3)));
        assert!(Endpoint::parse("mysql://u@h/d?ssl-mode=DISABLED").unwrap().tls_config().is_none());
        let err = |q: &str| Endpoint::parse(&format!("mysql://u:hunter2@h/d{q}")).unwrap_err().to_string();
        let e = err("?ssl-mode=sometimes");
        assert!(
            e.contains("DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY") && !e.contains("hunter2"),
            "{e}"
        );
        assert!(err("?ssl-cert=/x.pem").contains("go together"));
        assert!(err("?ssl-mode=DISABLED&ssl-ca=/x.pem").contains("drop one"));
        let e = err("?ssl-ca=/no/such/ca.pem");
        assert!(e.contains("/no/such/ca.pem") && !e.contains("hunter2"), "{e}");
        // A socket: no TLS by default, and asking for it is a mistake.
        let e = Endpoint::parse("mysql://root@/?socket=%2Fx.sock").unwrap();
        assert!(e.tls.mode == Mode::Disable && e.tls_config().is_none());
        assert!(err("?socket=%2Fx.sock&ssl-mode=REQUIRED").contains("TCP only"));
        assert!(Endpoint::parse("mysql://root@/?socket=%2Fx.sock&ssl-mode=DISABLED").is_ok());
        assert_eq!(ssl_mode_name(Mode::VerifyFull), "VERIFY_IDENTITY");
    }
}
