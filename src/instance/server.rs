//! What every throwaway server needs around its process, whichever launcher runs it: the
//! loopback addresses it listens on, a port free on all of them, a check of a port the
//! user chose, random passwords and names.
//! (The process itself is the launcher's, in src/launcher/.)

use crate::error::Result;

use std::net::TcpListener;

/// The loopback addresses a throwaway server listens on: 127.0.0.1, and ::1 where the
/// host has an IPv6 loopback, so that a client which resolves `localhost` to ::1 first
/// (Node 17 on, and others on many hosts) finds it as it finds Docker's published ports.
pub fn loopbacks() -> &'static [&'static str] {
    static V6: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    match V6.get_or_init(|| TcpListener::bind("[::1]:0").is_ok()) {
        true => &["127.0.0.1", "::1"],
        false => &["127.0.0.1"],
    }
}

/// A port nobody listens on now on any loopback (the kernel's choice from the ephemeral
/// range, so never a system server's 5432, 3306 or 6379).
pub fn free_port() -> Result<u16> {
    for _ in 0..32 {
        let l = TcpListener::bind("127.0.0.1:0").map_err(|e| failed!("no free TCP port on 127.0.0.1: {e}"))?;
        let port = l.local_addr().map(|a| a.port()).map_err(|e| failed!("no free TCP port: {e}"))?;
        if loopbacks().iter().skip(1).all(|a| TcpListener::bind((*a, port)).is_ok()) {
            return Ok(port);
        }
    }
    Err(failed!("no TCP port free on every loopback address ({})", loopbacks().join(", ")))
}

/// Refuse a port that something already listens on, on any loopback, before a server starts.
pub fn check_port(port: u16) -> Result<()> {
    for a in loopbacks() {
        match TcpListener::bind((*a, port)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => return Err(port_taken(port)),
            Err(e) => return Err(bad_input!("cannot listen on {a} port {port}: {e}; choose another --port")),
        }
    }
    Ok(())
}

/// The error for a port the user chose that something else listens on.
pub fn port_taken(port: u16) -> crate::error::Error {
    bad_input!("port {port} on localhost is taken (something listens there); stop it or choose another --port")
}

/// 24 random letters and digits from the kernel, for a throwaway server's password.
pub fn random_password() -> Result<String> {
    random_token(24)
}

/// `len` random letters and digits from the kernel: a throwaway server's password, or a
/// name nobody else picks.
pub fn random_token(len: usize) -> Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = vec![0u8; len];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| failed!("cannot read /dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect())
}
