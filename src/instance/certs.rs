//! A throwaway certificate authority and a server certificate it signed, for a managed
//! server that runs with TLS (`--tls`): made per instance in its 0700 directory, valid
//! for `localhost` and 127.0.0.1, and removed with it.

use crate::error::Result;
use crate::instance::user::RunAs;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use std::path::{Path, PathBuf};

/// The files of a throwaway CA and the server certificate it signed.
#[derive(Clone, Debug)]
pub struct Certs {
    /// The CA's certificate (PEM): what a client trusts (`sslrootcert`, `ssl-ca`).
    pub ca: PathBuf,
    /// The server's certificate (PEM).
    pub cert: PathBuf,
    /// The server's key (PEM), mode 0600, owned by the server's user.
    pub key: PathBuf,
}

/// Make a CA and a server certificate for `localhost` and 127.0.0.1 in `dir`, the files
/// owned by `user` (the server reads its key as that user).
pub fn make(dir: &Path, user: Option<&RunAs>) -> Result<Certs> {
    let (ca, cert, key) = pems().map_err(|e| failed!("cannot make a throwaway certificate: {e}"))?;
    let certs = Certs { ca: dir.join("ca.crt"), cert: dir.join("server.crt"), key: dir.join("server.key") };
    for (path, text) in [(&certs.ca, &ca), (&certs.cert, &cert), (&certs.key, &key)] {
        crate::instance::datadir::write_private(path, text, user)?;
    }
    Ok(certs)
}

/// The CA's certificate, the server's certificate and the server's key, in PEM.
fn pems() -> std::result::Result<(String, String, String), rcgen::Error> {
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.distinguished_name.push(DnType::CommonName, "dbrace throwaway CA");
    let ca_key = KeyPair::generate()?;
    let ca = ca.self_signed(&ca_key)?;
    let mut server = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])?;
    server.distinguished_name.push(DnType::CommonName, "localhost");
    let key = KeyPair::generate()?;
    let cert = server.signed_by(&key, &ca, &ca_key)?;
    Ok((ca.pem(), cert.pem(), key.serialize_pem()))
}
