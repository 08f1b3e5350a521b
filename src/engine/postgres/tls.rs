//! TLS as PostgreSQL negotiates it: the SSLRequest before the startup message, the
//! server's one-byte answer ('S' yes, 'N' no), then the handshake on the same socket; and
//! what a failed handshake means, in one line with its fix.

use super::conn::PgClient;
use super::conninfo::ConnInfo;
use super::login::StartupError;
use crate::engine::kit::patient::Patient;
use crate::engine::kit::stream::Stream;
use crate::engine::kit::tls::Mode;
use rustls::CertificateError;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// The SSLRequest message: its length (8) and the code 80877103 (1234 << 16 | 5679).
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];
/// How long a server that answered SSLRequest with something else gets to say the rest,
/// to be quoted.
const QUOTE_WAIT: Duration = Duration::from_secs(1);

/// Ask the server for TLS and switch `stream` to it when it agrees; a server that
/// declines leaves the connection plain, unless the mode insists on TLS.
pub(super) fn negotiate(mut stream: Patient<Stream>, info: &ConnInfo) -> Result<Patient<Stream>, StartupError> {
    stream.write_all(&SSL_REQUEST)?;
    stream.flush()?;
    let mut answer = [0u8; 1];
    // One byte and no more: what follows an 'S' is the handshake's (bytes a server
    // slipped in before it are refused by rustls, never read as PostgreSQL's).
    if let Err(e) = stream.read_exact(&mut answer) {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            return Err(StartupError::Foreign(Vec::new()));
        }
        return Err(e.into());
    }
    match answer[0] {
        b'S' => {
            let mut config = info.tls.config().map_err(StartupError::Setup)?;
            if !info.sni {
                let mut c = (*config).clone();
                c.enable_sni = false;
                config = std::sync::Arc::new(c);
            }
            Ok(stream.map(|s| s.into_tls(&info.host, config))?)
        }
        b'N' if info.tls.mode.insists() => Err(StartupError::NoTls),
        b'N' => Ok(stream),
        other => {
            let mut said = vec![other; 1];
            let mut rest = [0u8; 64];
            stream.set_deadline(Instant::now(), Some(QUOTE_WAIT));
            if let Ok(n) = stream.read(&mut rest) {
                said.extend_from_slice(&rest[..n]);
            }
            Err(StartupError::Foreign(said))
        }
    }
}

/// A failed handshake or TLS session in words, with what to change: None when `e` is no
/// TLS error.
pub(super) fn failure(info: &ConnInfo, e: &std::io::Error) -> Option<String> {
    let tls = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>())?;
    let mode = info.tls.mode;
    let fix = match tls {
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => format!(
            "sslmode={} checks that the certificate names the host {}: connect by a name it holds, or use sslmode=verify-ca",
            mode.name(),
            info.host
        ),
        rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer | CertificateError::BadSignature | CertificateError::BadEncoding,
        ) => match &info.tls.root_cert {
            Some(f) => {
                format!("{} did not sign the server's certificate: give its CA with sslrootcert=FILE", f.display())
            }
            None => "the system's roots did not sign the server's certificate: give its CA with sslrootcert=FILE \
                     (or sslmode=require, which checks nothing)"
                .to_string(),
        },
        rustls::Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. } | CertificateError::NotValidYet,
        ) => "the server's certificate is out of its validity period (check the clocks, or renew it)".to_string(),
        _ => "check sslmode and the certificate files in the URL".to_string(),
    };
    let at = info.hostaddr.as_ref().map_or(String::new(), |a| format!(" at {a}"));
    Some(format!("TLS with {}:{}{at} (sslmode={}) failed: {tls}; {fix}", info.host, info.port, mode.name()))
}

/// What a server that declined TLS means under a mode that insists on it.
pub(super) fn declined(info: &ConnInfo) -> String {
    format!(
        "server at {}:{} does not accept TLS (sslmode={}): turn ssl on in its configuration, or use sslmode=prefer",
        info.host,
        info.port,
        info.tls.mode.name()
    )
}

/// Whether an `allow` connection's plain startup was refused in a way that TLS may fix
/// (pg_hba's hostssl lines: "no pg_hba.conf entry … no encryption", 28000); libpq then
/// tries again with TLS.
pub(super) fn retry_with_tls(info: &ConnInfo, e: &StartupError) -> bool {
    info.tls.mode == Mode::Allow && matches!(e, StartupError::Denied(_))
}

impl PgClient {
    /// The connection's TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or
    /// None when it is plain.
    pub fn tls(&self) -> Option<String> {
        self.stream.get_ref().tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kit::patient::Replay;

    /// The answer to an SSLRequest from a server that says `said`, under `url`.
    fn answer(url: &str, said: &[u8]) -> Result<Patient<Stream>, StartupError> {
        let info = ConnInfo::parse(url).unwrap();
        negotiate(Patient::new(Stream::Replay(Replay::new(said.to_vec()))).unwrap(), &info)
    }

    #[test]
    fn a_server_that_declines_is_plain_unless_the_mode_insists() {
        let mut plain = answer("postgres://u@h/d?sslmode=prefer", b"NR").ok().unwrap();
        // Only the answer's byte is read: the next is the startup's.
        let mut next = [0u8; 1];
        plain.read_exact(&mut next).unwrap();
        assert_eq!(&next, b"R");
        assert!(plain.get_ref().tls().is_none());
        for mode in ["require", "verify-ca", "verify-full"] {
            let e = answer(&format!("postgres://u@h/d?sslmode={mode}"), b"N").err().unwrap();
            assert!(matches!(e, StartupError::NoTls), "{mode}");
        }
        let info = ConnInfo::parse("postgres://u@db:6000/d?sslmode=require").unwrap();
        assert!(declined(&info).starts_with("server at db:6000 does not accept TLS (sslmode=require)"));
    }

    #[test]
    fn another_protocols_answer_is_quoted_and_silence_is_no_answer() {
        let e = answer("postgres://u@h/d", b"HTTP/1.1 400 Bad Request\r\n").err().unwrap();
        assert!(matches!(e, StartupError::Foreign(ref s) if s.starts_with(b"HTTP/1.1 400")));
        let e = answer("postgres://u@h/d", b"").err().unwrap();
        assert!(matches!(e, StartupError::Foreign(ref s) if s.is_empty()));
    }

    #[test]
    fn only_a_refusal_by_pg_hba_under_allow_is_tried_again_with_tls() {
        let allow = ConnInfo::parse("postgres://u@h/d?sslmode=allow").unwrap();
        let prefer = ConnInfo::parse("postgres://u@h/d").unwrap();
        assert!(retry_with_tls(&allow, &StartupError::Denied("no encryption".into())));
        assert!(!retry_with_tls(&allow, &StartupError::Server("password authentication failed".into())));
        assert!(!retry_with_tls(&prefer, &StartupError::Denied("no encryption".into())));
    }
}
