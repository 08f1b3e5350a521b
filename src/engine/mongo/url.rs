//! `mongodb://` URLs as MongoDB's connection-string spec reads them (one host; user,
//! password and socket paths percent-decoded; `authSource`, `authMechanism`; TLS with
//! `tls`/`ssl`, `tlsCAFile`, `tlsCertificateKeyFile`, `tlsInsecure`,
//! `tlsAllowInvalidCertificates`, `tlsAllowInvalidHostnames`), printed with the password
//! replaced. `mongodb+srv://` needs DNS SRV lookups: refused.

use super::scram::Mechanism;
use super::wire::Addr;
use crate::engine::kit::patient;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use std::time::Duration;

/// Where and as whom to connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The server's address.
    pub addr: Addr,
    /// User name, if any.
    pub user: Option<String>,
    /// Password, if any (never printed).
    pub password: Option<String>,
    /// The database named in the path (the default `authSource`).
    pub database: Option<String>,
    /// The database holding the user (`authSource`; else the path's, else `admin`).
    pub auth_source: String,
    /// The SCRAM mechanism asked for, else the one the server offers for the user.
    pub mechanism: Option<Mechanism>,
    /// How long connecting and the handshake may take (`connectTimeoutMS`, drivers'
    /// default 10 s; 0 waits as long as it takes, still ended by a signal).
    pub connect_timeout: Duration,
    /// TLS and what it checks; None: plain.
    pub tls: Option<Tls>,
}

/// The port a URL without one means.
pub const DEFAULT_PORT: u16 = 27017;

/// Options a driver reads that change nothing for a benchmark client of one connection.
const IGNORED: &[&str] =
    &["appname", "directconnection", "retrywrites", "retryreads", "maxpoolsize", "minpoolsize", "maxidletimems"];

impl Endpoint {
    /// Parse `mongodb://[USER[:PASSWORD]@]HOST[:PORT][/DB][?authSource=…&authMechanism=…]`.
    pub fn parse(url: &str) -> Result<Endpoint> {
        let redacted = crate::redact::redact(url);
        let bad = |why: &str| {
            bad_input!("--url {redacted}: {why}; write mongodb://[USER:PASSWORD@]HOST[:PORT]/[DB][?authSource=DB]")
        };
        if url.starts_with("mongodb+srv://") {
            return Err(bad_input!(
                "--url {redacted}: mongodb+srv:// needs DNS SRV lookups, which dbrace does not do; give the host as mongodb://HOST:PORT/?tls=true"
            ));
        }
        let Some(rest) = url.strip_prefix("mongodb://") else {
            return Err(bad("not a mongodb:// URL"));
        };
        parse(rest).map_err(|why| bad(&why))
    }

    /// A URL safe to print and store: the password replaced by `***`.
    pub fn redacted(&self) -> String {
        let auth = match (&self.user, &self.password) {
            (Some(u), Some(_)) => format!("{}:***@", crate::engine::access::encode(u)),
            (Some(u), None) => format!("{}@", crate::engine::access::encode(u)),
            _ => String::new(),
        };
        let host = match &self.addr {
            Addr::Tcp(h, p) if h.contains(':') => format!("[{h}]:{p}"),
            Addr::Tcp(h, p) => format!("{h}:{p}"),
            Addr::Unix(p) => crate::engine::access::encode(&p.to_string_lossy()),
        };
        let tls = if self.tls.is_some() { "?tls=true" } else { "" };
        format!("mongodb://{auth}{host}/{}{tls}", self.database.as_deref().unwrap_or(""))
    }

    /// How clients reach the server, for the recorded settings.
    pub fn transport(&self) -> String {
        match &self.addr {
            Addr::Tcp(h, p) if h.contains(':') => format!("tcp [{h}]:{p}"),
            Addr::Tcp(h, p) => format!("tcp {h}:{p}"),
            Addr::Unix(p) => format!("socket {}", p.display()),
        }
    }
}

fn parse(rest: &str) -> std::result::Result<Endpoint, String> {
    let (main, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, path) = main.split_once('/').unwrap_or((main, ""));
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let (user, password) = match userinfo {
        None => (None, None),
        Some(u) => match u.split_once(':') {
            Some((u, p)) => (Some(decode(u, "user")?), Some(decode(p, "password")?)),
            None => (Some(decode(u, "user")?), None),
        },
    };
    if user.as_deref() == Some("") {
        return Err("the user name is empty".into());
    }
    if hosts.is_empty() {
        return Err("no host".into());
    }
    if hosts.contains(',') {
        return Err("several hosts (a replica set's seed list): give the one host to race".into());
    }
    let addr = host(hosts)?;
    let database = match decode(path, "database")? {
        d if d.is_empty() => None,
        d if d.bytes().any(|b| b"/\\. \"$\0".contains(&b)) => {
            return Err(format!("'{d}' is not a MongoDB database name"));
        }
        d => Some(d),
    };
    let mut o = UrlOptions {
        auth_source: None,
        mechanism: None,
        connect_timeout: patient::CONNECT_TIMEOUT,
        tls: TlsOptions::default(),
    };
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("option '{kv}' has no value"))?;
        o.set(k, decode(v, k)?)?;
    }
    let UrlOptions { auth_source, mechanism, connect_timeout, tls } = o;
    let auth_source = auth_source.or_else(|| database.clone()).unwrap_or_else(|| "admin".into());
    let tls = tls.tls()?;
    if tls.is_some() && matches!(addr, Addr::Unix(_)) {
        return Err("TLS runs over TCP only, not a unix socket: drop the tls options".into());
    }
    Ok(Endpoint { addr, user, password, database, auth_source, mechanism, connect_timeout, tls })
}

/// The query options of a URL, as they are read.
struct UrlOptions {
    auth_source: Option<String>,
    mechanism: Option<Mechanism>,
    connect_timeout: Duration,
    tls: TlsOptions,
}

impl UrlOptions {
    /// Take option `k` with its decoded value `v`; refuse one dbrace does not know or that
    /// the profile decides.
    fn set(&mut self, k: &str, v: String) -> std::result::Result<(), String> {
        match k.to_ascii_lowercase().as_str() {
            "authsource" => self.auth_source = Some(v),
            "authmechanism" => {
                self.mechanism = Some(match v.as_str() {
                    "SCRAM-SHA-256" => Mechanism::Sha256,
                    "SCRAM-SHA-1" => Mechanism::Sha1,
                    _ => return Err(format!("authMechanism {v}: dbrace speaks SCRAM-SHA-256 and SCRAM-SHA-1")),
                })
            }
            "connecttimeoutms" => {
                let ms: u64 = v.parse().map_err(|_| format!("connectTimeoutMS={v} is not a number of milliseconds"))?;
                self.connect_timeout = if ms == 0 { patient::FOREVER } else { Duration::from_millis(ms) };
            }
            "tls" | "ssl" => {
                let on = boolean(k, &v)?;
                if self.tls.on.is_some_and(|was| was != on) {
                    return Err("tls and ssl say different things: give one".into());
                }
                self.tls.on = Some(on);
            }
            "tlscafile" => self.tls.ca = Some(file(k, v)?),
            "tlscertificatekeyfile" => self.tls.cert_key = Some(file(k, v)?),
            "tlsinsecure" => self.tls.insecure = Some(boolean(k, &v)?),
            "tlsallowinvalidcertificates" => self.tls.invalid_certs = Some(boolean(k, &v)?),
            "tlsallowinvalidhostnames" => self.tls.invalid_hosts = Some(boolean(k, &v)?),
            "w" | "journal" | "wtimeoutms" => {
                return Err(format!(
                    "option {k}: the profile chooses the write concern (disk: j:true, async: j:false)"
                ));
            }
            k if IGNORED.contains(&k) => {}
            _ => {
                return Err(format!(
                    "unknown option '{k}' (known: authSource, authMechanism, connectTimeoutMS, tls, tlsCAFile, tlsCertificateKeyFile, tlsInsecure, tlsAllowInvalidCertificates, tlsAllowInvalidHostnames)"
                ));
            }
        }
        Ok(())
    }
}

/// The URI spec's `true` or `false`.
fn boolean(k: &str, v: &str) -> std::result::Result<bool, String> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("option {k}={v} is not true or false")),
    }
}

/// A file an option names.
fn file(k: &str, v: String) -> std::result::Result<std::path::PathBuf, String> {
    if v.is_empty() { Err(format!("option {k} names no file")) } else { Ok(v.into()) }
}

/// The TLS options of a URL, as the connection-string spec reads them.
#[derive(Default)]
struct TlsOptions {
    on: Option<bool>,
    ca: Option<std::path::PathBuf>,
    cert_key: Option<std::path::PathBuf>,
    insecure: Option<bool>,
    invalid_certs: Option<bool>,
    invalid_hosts: Option<bool>,
}

impl TlsOptions {
    /// The client's TLS: verify-full unless the options say less; None without TLS. A
    /// TLS option without `tls` turns it on, as pymongo does.
    fn tls(self) -> std::result::Result<Option<Tls>, String> {
        let given = self.ca.is_some()
            || self.cert_key.is_some()
            || self.insecure.is_some()
            || self.invalid_certs.is_some()
            || self.invalid_hosts.is_some();
        match self.on {
            Some(false) if given => return Err("tls=false with other tls options: drop one or the other".into()),
            Some(false) => return Ok(None),
            None if !given => return Ok(None),
            _ => {}
        }
        if self.insecure.is_some() && (self.invalid_certs.is_some() || self.invalid_hosts.is_some()) {
            return Err(
                "tlsInsecure already sets tlsAllowInvalidCertificates and tlsAllowInvalidHostnames: give one".into()
            );
        }
        let mode = if self.insecure == Some(true) || self.invalid_certs == Some(true) {
            Mode::Require
        } else if self.invalid_hosts == Some(true) {
            Mode::VerifyCa
        } else {
            Mode::VerifyFull
        };
        // One PEM file holds the client's certificate and its key.
        let client_cert = self.cert_key.map(|f| (f.clone(), f));
        Ok(Some(Tls::new(mode, self.ca, client_cert)))
    }
}

/// `HOST[:PORT]`, `[V6]:PORT`, or a percent-encoded socket path ending in `.sock`.
fn host(h: &str) -> std::result::Result<Addr, String> {
    let decoded = decode(h, "host")?;
    if decoded.starts_with('/') {
        if !decoded.ends_with(".sock") {
            return Err("a socket path must end in .sock".into());
        }
        return Ok(Addr::Unix(decoded.into()));
    }
    let (name, port) = if let Some(v6) = h.strip_prefix('[') {
        let (name, after) = v6.split_once(']').ok_or("an IPv6 address without its ']'")?;
        (name, after.strip_prefix(':'))
    } else {
        match h.rsplit_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (h, None),
        }
    };
    if name.is_empty() {
        return Err("no host".into());
    }
    let port = match port {
        None => DEFAULT_PORT,
        // Not quoted: after an unescaped '/' in a password, the "port" is part of it.
        Some(p) => p.parse::<u16>().ok().filter(|&p| p > 0).ok_or("the port is not a port number (1 to 65535)")?,
    };
    Ok(Addr::Tcp(name.to_string(), port))
}

/// Percent-decode one part of the URL.
fn decode(s: &str, what: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let v = hex
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad %-escape in the {what}"))?;
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).map_err(|_| format!("the {what} is not UTF-8 once percent-decoded"))?;
    if s.contains('\0') {
        return Err(format!("the {what} holds a NUL byte"));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_redact() {
        let e = Endpoint::parse("mongodb://bob:p%40ss@db.example:27018/shop?authSource=admin").unwrap();
        assert_eq!(e.addr, Addr::Tcp("db.example".into(), 27018));
        assert_eq!((e.user.as_deref(), e.password.as_deref()), (Some("bob"), Some("p@ss")));
        assert_eq!((e.database.as_deref(), e.auth_source.as_str()), (Some("shop"), "admin"));
        assert_eq!(e.redacted(), "mongodb://bob:***@db.example:27018/shop");
        let e = Endpoint::parse("mongodb://u:p@h/app").unwrap();
        assert_eq!((e.addr, e.auth_source.as_str()), (Addr::Tcp("h".into(), DEFAULT_PORT), "app"));
        let e = Endpoint::parse("mongodb://127.0.0.1").unwrap();
        assert_eq!((e.user, e.database, e.auth_source.as_str()), (None, None, "admin"));
        let e = Endpoint::parse("mongodb://[::1]:27019/?authMechanism=SCRAM-SHA-1&appName=x").unwrap();
        assert_eq!((e.addr, e.mechanism), (Addr::Tcp("::1".into(), 27019), Some(Mechanism::Sha1)));
        let e = Endpoint::parse("mongodb://%2Ftmp%2Fmongodb-27017.sock/").unwrap();
        assert_eq!(e.addr, Addr::Unix("/tmp/mongodb-27017.sock".into()));
        assert_eq!(e.redacted(), "mongodb://%2Ftmp%2Fmongodb-27017.sock/");
        assert_eq!(e.connect_timeout, patient::CONNECT_TIMEOUT);
        let e = Endpoint::parse("mongodb://h/?connectTimeoutMS=1500").unwrap();
        assert_eq!(e.connect_timeout, Duration::from_millis(1500));
        let e = Endpoint::parse("mongodb://h/?connecttimeoutms=0").unwrap();
        assert_eq!(e.connect_timeout, patient::FOREVER);
        assert_eq!(e.tls, None);
    }

    #[test]
    fn tls_options_map_to_what_is_checked() {
        let tls = |q: &str| Endpoint::parse(&format!("mongodb://h/{q}")).unwrap().tls;
        let mode = |q: &str| tls(q).unwrap().mode;
        assert_eq!(mode("?tls=true"), Mode::VerifyFull);
        assert_eq!(mode("?ssl=true"), Mode::VerifyFull);
        assert_eq!(mode("?tls=true&tlsInsecure=true"), Mode::Require);
        assert_eq!(mode("?tls=true&tlsAllowInvalidCertificates=true"), Mode::Require);
        assert_eq!(mode("?tls=true&tlsAllowInvalidHostnames=true"), Mode::VerifyCa);
        assert_eq!(mode("?tls=true&tlsAllowInvalidHostnames=false"), Mode::VerifyFull);
        let t = tls("?tlsCAFile=%2Fetc%2Fca.pem&tlsCertificateKeyFile=/me.pem").unwrap();
        assert_eq!((t.mode, t.root_cert), (Mode::VerifyFull, Some("/etc/ca.pem".into())));
        assert_eq!(t.client_cert, Some(("/me.pem".into(), "/me.pem".into())));
        assert_eq!(tls("?tls=false"), None);
        assert_eq!(tls("?tls=true&ssl=true").unwrap().mode, Mode::VerifyFull);
        let e = Endpoint::parse("mongodb://u:pw@h:1/db?tls=true").unwrap();
        assert_eq!(e.redacted(), "mongodb://u:***@h:1/db?tls=true");
    }

    #[test]
    fn mistakes_are_one_line_and_never_show_the_password() {
        for (url, says) in [
            ("mongodb+srv://u:secret@cluster.example/db", "mongodb+srv:// needs DNS SRV"),
            ("postgres://h/db", "not a mongodb:// URL"),
            ("mongodb://u:secret@a:1,b:2/db", "several hosts"),
            ("mongodb://u:secret@h:99999/db", "not a port"),
            ("mongodb://u:secret@h/db?tls=yes", "not true or false"),
            ("mongodb://u:secret@h/db?tls=false&tlsCAFile=/ca.pem", "tls=false with other"),
            ("mongodb://u:secret@h/db?tls=true&ssl=false", "say different things"),
            ("mongodb://u:secret@h/db?tlsInsecure=true&tlsAllowInvalidHostnames=true", "give one"),
            ("mongodb://u:secret@%2Ftmp%2Fm.sock/db?tls=true", "TCP only"),
            ("mongodb://u:secret@h/db?w=majority", "profile chooses"),
            ("mongodb://u:secret@h/db?authMechanism=PLAIN", "SCRAM"),
            ("mongodb://u:secret@h/db?bogus=1", "unknown option"),
            ("mongodb://u:secret@h/db?connectTimeoutMS=soon", "not a number of milliseconds"),
            ("mongodb://u:secret@h/a.b", "not a MongoDB database"),
            ("mongodb://u:secret@/db", "no host"),
            ("mongodb://u:sec%zzret@h/db", "bad %-escape"),
        ] {
            let e = Endpoint::parse(url).unwrap_err();
            let m = e.to_string();
            assert_eq!(e.exit_code(), 2, "{url}");
            assert!(m.contains(says), "{url}: {m}");
            assert!(!m.contains("secret") && !m.contains('\n'), "{m}");
        }
    }
}
