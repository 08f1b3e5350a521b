//! Logging in: the server's handshake, TLS when it is wanted and offered (the SSL request
//! packet, then the session), the client's answer with mysql_native_password, and an
//! auth switch to the same method; any other method is `Unsupported`.

use super::{Wire, WireError};
use crate::engine::mysql::endpoint::{Endpoint, ssl_mode_name};
use sha1::{Digest, Sha1};
use std::io::Write;

// Capability flags, as the protocol numbers them.
const LONG_PASSWORD: u32 = 1;
const FOUND_ROWS: u32 = 2;
const LONG_FLAG: u32 = 4;
const CONNECT_WITH_DB: u32 = 8;
const LOCAL_FILES: u32 = 0x80;
const PROTOCOL_41: u32 = 0x200;
const SSL: u32 = 0x800;
const TRANSACTIONS: u32 = 0x2000;
const SECURE_CONNECTION: u32 = 0x8000;
const MULTI_STATEMENTS: u32 = 0x1_0000;
const MULTI_RESULTS: u32 = 0x2_0000;
const PS_MULTI_RESULTS: u32 = 0x4_0000;
const PLUGIN_AUTH: u32 = 0x8_0000;
const NATIVE: &str = "mysql_native_password";

impl Wire {
    /// Log in as `at` says, over TLS when it asks and the server offers it: the
    /// connection, now logged in (a TLS session when one was made).
    pub(super) fn login(mut self, at: &Endpoint) -> Result<Wire, Login> {
        let o = &at.opts;
        let Greeting { seed, caps } = self.greeting()?;
        let mut mine = wanted(o.db_name().is_some(), caps)?;
        if let Some(config) = at.tls_config().filter(|_| at.tls.mode.asks()) {
            if caps & SSL != 0 {
                mine |= SSL;
                self = self.start_tls(mine, o.ip_or_hostname(), config)?;
            } else if at.tls.mode.insists() {
                return Err(Login::Tls(format!(
                    "the server does not offer TLS (ssl-mode={}): start it with --ssl-cert, --ssl-key and --ssl-ca, \
                     or use ssl-mode=PREFERRED or DISABLED",
                    ssl_mode_name(at.tls.mode)
                )));
            }
        }
        let pass = o.pass().unwrap_or_default().as_bytes().to_vec();
        let db = o.db_name().filter(|_| mine & CONNECT_WITH_DB != 0);
        self.respond(mine, o.user().unwrap_or_default(), &native(&pass, &seed), db)?;
        self.until_ok(&pass, caps & SSL != 0 && mine & SSL == 0)?;
        Ok(self)
    }

    /// The server's handshake: its scramble's seed and its capabilities, refused when it
    /// is older than MySQL 4.1's login or logs in by another plugin.
    fn greeting(&mut self) -> Result<Greeting, Login> {
        self.seq = 0;
        self.first_words()?;
        self.read()?;
        if self.pkt.first() == Some(&0xff) {
            return Err(Login::Wire(self.error()));
        }
        let p = &self.pkt;
        let bad = || Login::Wire(WireError::Lost("bad handshake".into()));
        if p.first() != Some(&10) {
            return Err(Login::Unsupported(format!("the server's protocol is version {}", p.first().unwrap_or(&0))));
        }
        let mut i = 1 + p[1..].iter().position(|&b| b == 0).ok_or_else(bad)? + 1;
        let fixed = p.get(i..i + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10).ok_or_else(bad)?;
        let mut seed = fixed[4..12].to_vec();
        let caps = u32::from(u16::from_le_bytes([fixed[13], fixed[14]]))
            | (u32::from(u16::from_le_bytes([fixed[18], fixed[19]])) << 16);
        let auth_len = fixed[20] as usize;
        i += fixed.len();
        if caps & PROTOCOL_41 == 0 || caps & SECURE_CONNECTION == 0 {
            return Err(Login::Unsupported("the server predates MySQL 4.1's login".into()));
        }
        let more = 13.max(auth_len.saturating_sub(8));
        let rest = p.get(i..i + more).ok_or_else(bad)?;
        seed.extend_from_slice(&rest[..12.min(rest.len())]);
        i += more;
        let plugin = if caps & PLUGIN_AUTH != 0 { cstr(&p[i.min(p.len())..]) } else { NATIVE.into() };
        if plugin != NATIVE {
            return Err(Login::Unsupported(format!("the server logs in by {plugin}")));
        }
        Ok(Greeting { seed, caps })
    }

    /// Send the handshake response: our capabilities `mine`, the user, the scramble, the
    /// database when one is named.
    fn respond(&mut self, mine: u32, user: &str, scramble: &[u8], db: Option<&str>) -> Result<(), Login> {
        let out = &mut self.out;
        out.clear();
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&mine.to_le_bytes());
        out.extend_from_slice(&(16u32 << 20).to_le_bytes());
        out.push(45); // utf8mb4_general_ci
        out.extend_from_slice(&[0; 23]);
        out.extend_from_slice(user.as_bytes());
        out.push(0);
        out.push(scramble.len() as u8);
        out.extend_from_slice(scramble);
        if let Some(db) = db {
            out.extend_from_slice(db.as_bytes());
            out.push(0);
        }
        if mine & PLUGIN_AUTH != 0 {
            out.extend_from_slice(NATIVE.as_bytes());
            out.push(0);
        }
        Ok(self.send()?)
    }

    /// Read the server's answers to the login until its OK: an auth switch to the same
    /// method with a new seed is answered; a refusal says whether TLS might help
    /// (`tls_untried`: the server offers it and we did not ask).
    fn until_ok(&mut self, pass: &[u8], tls_untried: bool) -> Result<(), Login> {
        loop {
            self.read()?;
            match self.pkt.first() {
                Some(0) => return Ok(()),
                Some(0xff) => {
                    return Err(Login::Wire(match self.error() {
                        // MariaDB's require_secure_transport says only "Access denied".
                        WireError::Server(c, m) if tls_untried => WireError::Server(
                            c,
                            format!("{m}; the server offers TLS and may insist on it: try ssl-mode=PREFERRED"),
                        ),
                        e => e,
                    }));
                }
                Some(0xfe) if self.pkt.len() > 1 => {
                    let name = cstr(&self.pkt[1..]);
                    if name != NATIVE {
                        return Err(Login::Unsupported(format!("the account logs in by {name}")));
                    }
                    let data = self.pkt.get(1 + name.len() + 1..).unwrap_or_default();
                    let scramble = native(pass, &data[..20.min(data.len())]);
                    self.packet();
                    self.out.extend_from_slice(&scramble);
                    self.send()?;
                }
                _ => return Err(Login::Unsupported("the server asked for more than mysql_native_password".into())),
            }
        }
    }

    /// Ask for TLS with the capabilities `caps` (the SSL request packet: the handshake
    /// response's fixed part alone), and go on over a TLS session with `host`, its
    /// handshake done.
    fn start_tls(mut self, caps: u32, host: &str, config: std::sync::Arc<rustls::ClientConfig>) -> Result<Wire, Login> {
        // Anything past the greeting would be plain text read as if it came over TLS.
        if !self.io.buffer().is_empty() {
            return Err(Login::Wire(WireError::Lost("the server sent more than its greeting before TLS".into())));
        }
        self.packet();
        self.out.extend_from_slice(&caps.to_le_bytes());
        self.out.extend_from_slice(&(16u32 << 20).to_le_bytes());
        self.out.push(45); // utf8mb4_general_ci
        self.out.extend_from_slice(&[0; 23]);
        self.send()?;
        let Wire { io, pkt, out, seq, stmts, cols, text, .. } = self;
        let stream = io.into_inner().map(|s| s.into_tls(host, config)).map_err(|e| Login::Tls(e.to_string()))?;
        let mut w = Wire { pkt, out, seq, stmts, cols, text, ..Wire::over(stream) };
        w.io.get_mut().flush().map_err(|e| Login::Tls(e.to_string()))?;
        w.tls = w.io.get_ref().get_ref().tls();
        Ok(w)
    }
}

/// Why the login failed: a method this client does not speak (which), a server of
/// another protocol (what it sent), TLS (why), or the connection.
pub(super) enum Login {
    Unsupported(String),
    Foreign(Vec<u8>),
    Tls(String),
    Wire(WireError),
}

/// A server's greeting is this long at most (about 100 bytes; an error a few hundred).
const GREETING_MAX: usize = 64 << 10;

impl Wire {
    /// Check that the server's first bytes are a MySQL greeting (a first packet, protocol
    /// version 10) or error, before the reader trusts any length; another server's answer
    /// is kept to be quoted.
    fn first_words(&mut self) -> Result<(), Login> {
        use std::io::BufRead;
        let b = match self.io.fill_buf() {
            Ok(b) => b,
            Err(e) => return Err(Login::Wire(e.into())),
        };
        let len = b.get(..3).map(|l| u32::from_le_bytes([l[0], l[1], l[2], 0]) as usize);
        let fits = len.is_none_or(|n| (1..=GREETING_MAX).contains(&n));
        let first = b.get(3..5).is_none_or(|h| h[0] == 0 && matches!(h[1], 9 | 10 | 0xff));
        if b.is_empty() || !fits || !first {
            return Err(Login::Foreign(b.to_vec()));
        }
        Ok(())
    }
}

impl From<WireError> for Login {
    fn from(e: WireError) -> Login {
        Login::Wire(e)
    }
}

/// mysql_native_password: SHA1(pw) XOR SHA1(seed + SHA1(SHA1(pw))); empty for no password.
fn native(pass: &[u8], seed: &[u8]) -> Vec<u8> {
    if pass.is_empty() {
        return Vec::new();
    }
    let h1 = Sha1::digest(pass);
    let h2 = Sha1::digest(h1);
    let mut h = Sha1::new();
    h.update(seed);
    h.update(h2);
    let h3 = h.finalize();
    h1.iter().zip(h3.iter()).map(|(a, b)| a ^ b).collect()
}

/// A NUL-terminated string at the start of `b`.
fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// What the server's handshake says: the seed of the scramble, its capabilities.
struct Greeting {
    seed: Vec<u8>,
    caps: u32,
}

/// The capabilities we ask for of those the server has `caps`; naming a database at login
/// (`with_db`) needs the server to allow it.
fn wanted(with_db: bool, caps: u32) -> Result<u32, Login> {
    let want = LONG_PASSWORD
        | FOUND_ROWS
        | LONG_FLAG
        | LOCAL_FILES
        | PROTOCOL_41
        | TRANSACTIONS
        | SECURE_CONNECTION
        | MULTI_STATEMENTS
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | if with_db { CONNECT_WITH_DB } else { 0 };
    let mine = want & caps;
    if with_db && mine & CONNECT_WITH_DB == 0 {
        return Err(Login::Unsupported("the server cannot name a database at login".into()));
    }
    Ok(mine)
}

#[cfg(test)]
mod tests {
    use super::super::packet::{lenenc, put_lenenc};
    use super::*;

    #[test]
    fn lengths_round_trip_and_passwords_scramble() {
        for n in [0u64, 250, 251, 65535, 65536, 1 << 24, u64::MAX] {
            let mut b = Vec::new();
            put_lenenc(&mut b, n);
            let mut i = 0;
            assert_eq!((lenenc(&b, &mut i), i), (n, b.len()));
        }
        assert!(native(b"", b"x").is_empty());
        // Known answer: password "secret", seed 20 × 'a', checked against
        // SHA1(pw) XOR SHA1(seed + SHA1(SHA1(pw))) computed by hand below.
        let seed = [b'a'; 20];
        let h1 = Sha1::digest(b"secret");
        let h3 = Sha1::digest([&seed[..], &Sha1::digest(h1)[..]].concat());
        let back: Vec<u8> = native(b"secret", &seed).iter().zip(h3.iter()).map(|(a, b)| a ^ b).collect();
        assert_eq!(back, h1.to_vec());
    }
}
