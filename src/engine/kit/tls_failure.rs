//! A failed TLS session in one line: why (a certificate for another host name, an issuer
//! the client does not trust, a server that does not answer in TLS, a client certificate
//! it wants) and what to change, in the words of the engine's own URL options.

use rustls::{AlertDescription, CertificateError, Error};
use std::io;

/// The URL options that would fix each failure, as an engine's users write them.
pub struct Fixes {
    /// Checks the chain but not the host name (`ssl_check_hostname=false`).
    pub any_host: &'static str,
    /// Names the CA's file to trust (`ssl_ca_certs=FILE`).
    pub roots: &'static str,
    /// Gives a client certificate and its key (`ssl_certfile=FILE&ssl_keyfile=FILE`).
    pub client_cert: &'static str,
    /// Connects without TLS (`redis://`).
    pub plain: &'static str,
}

/// Why TLS with `server` failed and what to change, or None when `e` is no TLS failure.
pub fn explain(e: &io::Error, server: &str, fixes: &Fixes) -> Option<String> {
    let Some(tls) = e.get_ref().and_then(|inner| inner.downcast_ref::<Error>()) else {
        // rustls says so when the peer closes in the middle of the handshake.
        return (e.kind() == io::ErrorKind::UnexpectedEof && e.to_string().contains("handshake")).then(|| {
            format!(
                "{server} closed the connection during the TLS handshake: is TLS on there? (for a server without TLS, {})",
                fixes.plain
            )
        });
    };
    Some(match tls {
        Error::InvalidCertificate(CertificateError::NotValidForName)
        | Error::InvalidCertificate(CertificateError::NotValidForNameContext { .. }) => format!(
            "{server}'s certificate is not for the host name in the URL (TLS: {tls}); connect by a name the certificate holds, or check the chain only with {}",
            fixes.any_host
        ),
        Error::InvalidCertificate(CertificateError::UnknownIssuer) => format!(
            "{server}'s certificate has an issuer this client does not trust (TLS: {tls}); give the CA's file with {}",
            fixes.roots
        ),
        Error::InvalidCertificate(_) => format!("{server}'s certificate was refused (TLS: {tls})"),
        Error::AlertReceived(AlertDescription::CertificateRequired)
        | Error::AlertReceived(AlertDescription::HandshakeFailure)
        | Error::AlertReceived(AlertDescription::BadCertificate) => format!(
            "{server} refused the TLS session (TLS: {tls}); if it wants a client certificate, give one with {}",
            fixes.client_cert
        ),
        Error::InvalidMessage(_) | Error::InappropriateMessage { .. } | Error::InappropriateHandshakeMessage { .. } => {
            format!("{server} does not answer in TLS (TLS: {tls}); for a server without TLS, {}", fixes.plain)
        }
        other => format!("TLS with {server} failed: {other}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXES: Fixes = Fixes { any_host: "HOST", roots: "ROOTS", client_cert: "CERT", plain: "PLAIN" };

    #[test]
    fn each_failure_names_its_fix() {
        let tls = |e: Error| io::Error::new(io::ErrorKind::InvalidData, e);
        let says = |e: Error| explain(&tls(e), "h:1", &FIXES).unwrap();
        assert!(says(Error::InvalidCertificate(CertificateError::NotValidForName)).contains("HOST"));
        assert!(says(Error::InvalidCertificate(CertificateError::UnknownIssuer)).contains("ROOTS"));
        assert!(says(Error::AlertReceived(AlertDescription::CertificateRequired)).contains("CERT"));
        let plain = says(Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType));
        assert!(plain.contains("does not answer in TLS") && plain.contains("PLAIN"), "{plain}");
        let eof = io::Error::new(io::ErrorKind::UnexpectedEof, "tls handshake eof");
        assert!(explain(&eof, "h:1", &FIXES).unwrap().contains("during the TLS handshake"));
        assert!(explain(&io::Error::other("refused"), "h:1", &FIXES).is_none());
    }
}
