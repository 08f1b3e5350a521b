//! What every throwaway server needs around its process, whichever launcher runs it: a
//! free port on 127.0.0.1, a check of a port the user chose, random passwords and names.
//! (The process itself is the launcher's, in src/launcher/.)

use crate::error::Result;

/// A port nobody listens on now (the kernel's choice from the ephemeral range, so never a
/// system server's 5432, 3306 or 6379).
pub fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| failed!("no free TCP port on 127.0.0.1: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| failed!("no free TCP port: {e}"))
}

/// Refuse a port on 127.0.0.1 that something already listens on, before a server starts.
pub fn check_port(port: u16) -> Result<()> {
    match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(port_taken(port)),
        Err(e) => Err(bad_input!("cannot listen on 127.0.0.1:{port}: {e}; choose another --port")),
    }
}

/// The error for a port the user chose that something else listens on.
pub fn port_taken(port: u16) -> crate::error::Error {
    bad_input!("port {port} on 127.0.0.1 is taken (something listens there); stop it or choose another --port")
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
