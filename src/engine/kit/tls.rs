//! TLS for the server engines' clients, on rustls (no OpenSSL): how strictly a client
//! insists on it and what it checks, in libpq's words (`sslmode`), which the other
//! ecosystems' options map onto; the handshake over a connected socket; and what the
//! results record of a session (version and cipher suite).
//!
//! As libpq: `allow` and `prefer` take TLS when the server offers it and check nothing,
//! `require` insists on it and checks nothing either (unless a root certificate is given,
//! when it checks as `verify-ca`), `verify-ca` checks the chain, `verify-full` the chain
//! and the host name. The handshake's signatures are checked in every mode: a mode that
//! trusts any certificate still talks to the holder of its key. Roots are the file given
//! (`sslrootcert`), else the system's.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, WebPkiServerVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme, StreamOwned};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// How strictly a client insists on TLS, and what it checks (libpq's `sslmode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Plain TCP only.
    #[default]
    Disable,
    /// Plain first; TLS when the server insists (libpq retries with TLS).
    Allow,
    /// TLS when the server offers it, else plain.
    Prefer,
    /// TLS or nothing; the certificate is not checked.
    Require,
    /// TLS with the certificate's chain checked against the roots.
    VerifyCa,
    /// TLS with the chain and the host name checked.
    VerifyFull,
}

impl Mode {
    /// The mode libpq's `sslmode=NAME` names.
    pub fn from_sslmode(name: &str) -> Option<Mode> {
        Some(match name {
            "disable" => Mode::Disable,
            "allow" => Mode::Allow,
            "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            _ => return None,
        })
    }

    /// Its libpq name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Allow => "allow",
            Mode::Prefer => "prefer",
            Mode::Require => "require",
            Mode::VerifyCa => "verify-ca",
            Mode::VerifyFull => "verify-full",
        }
    }

    /// Whether a connection asks for TLS before anything else.
    pub fn asks(self) -> bool {
        !matches!(self, Mode::Disable | Mode::Allow)
    }

    /// Whether a server without TLS is refused.
    pub fn insists(self) -> bool {
        matches!(self, Mode::Require | Mode::VerifyCa | Mode::VerifyFull)
    }
}

/// A client's TLS options, as its URL gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tls {
    /// How strictly, and what is checked.
    pub mode: Mode,
    /// The CA certificates (PEM) to trust, else the system's roots.
    pub root_cert: Option<PathBuf>,
    /// A client certificate (PEM) and its key, for servers that ask for one.
    pub client_cert: Option<(PathBuf, PathBuf)>,
    /// The configuration `config` built, shared by every clone: its files (the system's
    /// roots are some hundred certificates) are read once, not per connection.
    built: Built,
}

/// A configuration built once; no part of what the options are.
#[derive(Clone, Debug, Default)]
struct Built(Arc<OnceLock<Arc<ClientConfig>>>);

impl PartialEq for Built {
    fn eq(&self, _: &Built) -> bool {
        true
    }
}

impl Eq for Built {}

/// A TLS session over TCP.
pub type TlsStream = StreamOwned<ClientConnection, TcpStream>;

impl Tls {
    /// Options of `mode` with the roots and client certificate given.
    pub fn new(mode: Mode, root_cert: Option<PathBuf>, client_cert: Option<(PathBuf, PathBuf)>) -> Tls {
        Tls { mode, root_cert, client_cert, built: Built::default() }
    }

    /// The rustls configuration these options ask for, built by the first call (set the
    /// options before it).
    pub fn config(&self) -> Result<Arc<ClientConfig>, String> {
        if let Some(c) = self.built.0.get() {
            return Ok(c.clone());
        }
        let c = self.build()?;
        Ok(self.built.0.get_or_init(|| c).clone())
    }

    /// The rustls configuration, built now.
    fn build(&self) -> Result<Arc<ClientConfig>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let algorithms = provider.signature_verification_algorithms;
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?;
        // libpq's require with a root certificate checks as verify-ca.
        let mode = match (self.mode, &self.root_cert) {
            (Mode::Require, Some(_)) => Mode::VerifyCa,
            (m, _) => m,
        };
        let verifier: Arc<dyn ServerCertVerifier> = match mode {
            Mode::VerifyCa | Mode::VerifyFull => {
                let roots = Arc::new(self.roots()?);
                let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .map_err(|e| format!("TLS: {e}"))?;
                Arc::new(Checked { webpki, names: mode == Mode::VerifyFull })
            }
            _ => Arc::new(Unchecked { algorithms }),
        };
        let builder = builder.dangerous().with_custom_certificate_verifier(verifier);
        let config = match &self.client_cert {
            Some((cert, key)) => {
                let chain = certificates(cert)?;
                let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("sslkey {}: {e}", key.display()))?;
                builder.with_client_auth_cert(chain, key).map_err(|e| format!("sslcert {}: {e}", cert.display()))?
            }
            None => builder.with_no_client_auth(),
        };
        Ok(Arc::new(config))
    }

    /// The roots to check a chain against: the file given, else the system's.
    fn roots(&self) -> Result<RootCertStore, String> {
        let mut roots = RootCertStore::empty();
        match &self.root_cert {
            Some(file) => {
                for c in certificates(file)? {
                    roots.add(c).map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(found.certs);
                if added == 0 {
                    return Err(
                        "TLS: no root certificates on this system (install ca-certificates, or give sslrootcert=FILE)"
                            .into(),
                    );
                }
            }
        }
        Ok(roots)
    }
}

/// The certificates of a PEM file.
fn certificates(file: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Result<Vec<_>, _> =
        CertificateDer::pem_file_iter(file).map_err(|e| format!("{}: {e}", file.display()))?.collect();
    let certs = certs.map_err(|e| format!("{}: {e}", file.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate in it", file.display()));
    }
    Ok(certs)
}

/// A TLS session over `tcp` with the server `host` (its name sent for SNI, and checked
/// under verify-full), before its handshake: the first read or write shakes hands.
pub fn session(tcp: TcpStream, host: &str, config: Arc<ClientConfig>) -> std::io::Result<TlsStream> {
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("TLS: host name {host}: {e}")))?;
    let conn = ClientConnection::new(config, name).map_err(std::io::Error::other)?;
    Ok(StreamOwned::new(conn, tcp))
}

/// What the results record of a session: `TLSv1.3 TLS13_AES_256_GCM_SHA384`.
pub fn describe(s: &TlsStream) -> String {
    let version = s.conn.protocol_version().map_or("TLS".to_string(), |v| format!("{v:?}").replace('_', "."));
    let suite = s.conn.negotiated_cipher_suite().map_or("unknown".to_string(), |c| format!("{:?}", c.suite()));
    format!("{version} {suite}")
}

/// Trusts any certificate (allow, prefer, require), but still checks that the server
/// holds its key.
#[derive(Debug)]
struct Unchecked {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// Checks the chain against the roots, and the host name when `names` (verify-full).
#[derive(Debug)]
struct Checked {
    webpki: Arc<WebPkiServerVerifier>,
    names: bool,
}

impl ServerCertVerifier for Checked {
    fn verify_server_cert(
        &self,
        end: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(end, intermediates, name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForNameContext { .. }))
                if !self.names =>
            {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kit::patient::Patient;
    use crate::engine::kit::stream::Stream;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    /// A TLS server on 127.0.0.1 with a throwaway CA's certificate, answering one
    /// connection's byte with the next byte; the CA's file and the port.
    fn server(dir: &Path) -> (PathBuf, u16, std::thread::JoinHandle<()>) {
        let certs = crate::instance::certs::make(dir, None).unwrap();
        let chain = certificates(&certs.cert).unwrap();
        let key = PrivateKeyDer::from_pem_file(&certs.key).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let config = Arc::new(config);
        let serve = std::thread::spawn(move || {
            for tcp in listener.incoming().take(8) {
                let Ok(tcp) = tcp else { continue };
                let conn = rustls::ServerConnection::new(config.clone()).unwrap();
                let mut s = StreamOwned::new(conn, tcp);
                let mut b = [0u8; 1];
                if s.read_exact(&mut b).is_ok() {
                    let _ = s.write_all(&[b[0] + 1]);
                    let _ = s.flush();
                }
            }
        });
        (certs.ca, port, serve)
    }

    /// A client's connection to 127.0.0.1:`port` with `tls` as `host`, its handshake
    /// still to come, every wait ending within `within`.
    fn connect(tls: &Tls, port: u16, host: &str, within: Duration) -> Result<Patient<Stream>, String> {
        let tcp = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let s = Stream::Tcp(tcp).into_tls(host, tls.config()?).map_err(|e| e.to_string())?;
        let mut p = Patient::new(s).unwrap();
        p.set_deadline(Instant::now(), Some(within));
        Ok(p)
    }

    /// Connect with `tls` to the server as `host`, and trade a byte: the session's
    /// description, or why it failed.
    fn trade(tls: &Tls, port: u16, host: &str) -> Result<String, String> {
        let mut s = connect(tls, port, host, Duration::from_secs(10))?;
        s.write_all(&[41]).and_then(|_| s.flush()).map_err(|e| e.to_string())?;
        let mut b = [0u8; 1];
        s.read_exact(&mut b).map_err(|e| e.to_string())?;
        assert_eq!(b[0], 42);
        Ok(s.get_ref().tls().unwrap())
    }

    #[test]
    fn a_handshake_with_a_silent_server_ends_at_the_deadline() {
        let silent = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let tls = Tls { mode: Mode::Require, ..Tls::default() };
        let mut s = connect(&tls, port, "localhost", Duration::from_millis(600)).unwrap();
        let t = Instant::now();
        let e = s.write_all(&[1]).and_then(|_| s.flush()).and_then(|_| s.read(&mut [0; 1])).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    }

    #[test]
    fn each_mode_checks_what_libpq_checks() {
        let dir = tempfile::tempdir().unwrap();
        let (ca, port, _server) = server(dir.path());
        let with_ca = |mode| Tls::new(mode, Some(ca.clone()), None);
        let full = trade(&with_ca(Mode::VerifyFull), port, "localhost").unwrap();
        assert!(full.starts_with("TLSv1.3 TLS13_"), "{full}");
        trade(&with_ca(Mode::VerifyFull), port, "127.0.0.1").unwrap();
        let wrong = trade(&with_ca(Mode::VerifyFull), port, "db.example.com").unwrap_err();
        assert!(wrong.contains("not valid for name"), "{wrong}");
        trade(&with_ca(Mode::VerifyCa), port, "db.example.com").unwrap();
        // Unknown to the system's roots: only the modes that check nothing go on.
        let system = |mode| Tls { mode, ..Tls::default() };
        let unknown = trade(&system(Mode::VerifyCa), port, "localhost").unwrap_err();
        assert!(unknown.contains("UnknownIssuer") || unknown.contains("unknown issuer"), "{unknown}");
        trade(&system(Mode::Require), port, "db.example.com").unwrap();
        trade(&system(Mode::Prefer), port, "localhost").unwrap();
    }

    #[test]
    fn sslmode_names_round_trip_and_say_what_they_ask() {
        for m in [Mode::Disable, Mode::Allow, Mode::Prefer, Mode::Require, Mode::VerifyCa, Mode::VerifyFull] {
            assert_eq!(Mode::from_sslmode(m.name()), Some(m));
        }
        assert_eq!(Mode::from_sslmode("verify_full"), None);
        assert!(!Mode::Allow.asks() && Mode::Prefer.asks() && !Mode::Prefer.insists() && Mode::Require.insists());
    }

    #[test]
    fn a_configuration_is_built_once_for_every_clone() {
        let dir = tempfile::tempdir().unwrap();
        let certs = crate::instance::certs::make(dir.path(), None).unwrap();
        let tls = Tls::new(Mode::VerifyFull, Some(certs.ca.clone()), None);
        let first = tls.clone().config().unwrap();
        // The file is not read again: the clones share what the first call built.
        std::fs::remove_file(&certs.ca).unwrap();
        assert!(Arc::ptr_eq(&first, &tls.config().unwrap()));
        assert_eq!(tls, Tls::new(Mode::VerifyFull, Some(certs.ca), None), "what was built is no option");
    }

    #[test]
    fn a_root_file_without_certificates_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "nothing here\n").unwrap();
        let tls = Tls::new(Mode::VerifyFull, Some(empty.clone()), None);
        let e = tls.config().unwrap_err();
        assert!(e.contains("empty.pem") && e.contains("no certificate"), "{e}");
    }
}
