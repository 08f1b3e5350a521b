//! SCRAM (RFC 5802, RFC 7677) as MongoDB runs it: SHA-256 on the password as given,
//! SHA-1 on MongoDB's digest of it (hex MD5 of `user:mongo:password`). The client proves
//! it knows the password and checks that the server does too. SASLprep is not applied:
//! a password outside ASCII must already be in its prepared form.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha2::Digest as _;

/// The mechanisms a server may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// SCRAM-SHA-1 (servers before 4.0, users created with it only).
    Sha1,
    /// SCRAM-SHA-256.
    Sha256,
}

/// The most PBKDF2 iterations a server may ask for: a hostile one could otherwise keep a
/// client busy for as long as it liked (mongod asks 10,000 or 15,000).
const MAX_ITERATIONS: u32 = 1_000_000;

impl Mechanism {
    /// The name `saslStart` takes.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Sha1 => "SCRAM-SHA-1",
            Mechanism::Sha256 => "SCRAM-SHA-256",
        }
    }

    fn hash(self, parts: &[&[u8]]) -> Vec<u8> {
        match self {
            Mechanism::Sha1 => {
                let mut h = sha1::Sha1::new();
                parts.iter().for_each(|p| sha1::Digest::update(&mut h, p));
                sha1::Digest::finalize(h).to_vec()
            }
            Mechanism::Sha256 => {
                let mut h = sha2::Sha256::new();
                parts.iter().for_each(|p| h.update(p));
                h.finalize().to_vec()
            }
        }
    }

    /// HMAC (RFC 2104); both hashes have 64-byte blocks.
    fn hmac(self, key: &[u8], msg: &[u8]) -> Vec<u8> {
        let mut k = [0u8; 64];
        if key.len() > 64 {
            let h = self.hash(&[key]);
            k[..h.len()].copy_from_slice(&h);
        } else {
            k[..key.len()].copy_from_slice(key);
        }
        let ipad: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
        let opad: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
        let inner = self.hash(&[&ipad, msg]);
        self.hash(&[&opad, &inner])
    }

    /// PBKDF2 with this HMAC, one block (as long as the hash).
    fn pbkdf2(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        let mut u = self.hmac(password, &[salt, &1u32.to_be_bytes()].concat());
        let mut out = u.clone();
        for _ in 1..iterations {
            u = self.hmac(password, &u);
            out.iter_mut().zip(&u).for_each(|(o, x)| *o ^= x);
        }
        out
    }
}

/// The password SCRAM hashes for `user`: MongoDB's digest for SHA-1, else as given.
pub fn prepared_password(m: Mechanism, user: &str, password: &str) -> String {
    match m {
        Mechanism::Sha1 => {
            use md5::Digest as _;
            let d = md5::Md5::digest(format!("{user}:mongo:{password}").as_bytes());
            d.iter().map(|b| format!("{b:02x}")).collect()
        }
        Mechanism::Sha256 => password.to_string(),
    }
}

/// One conversation, after the client's first message.
pub struct Scram {
    m: Mechanism,
    password: String,
    nonce: String,
    first_bare: String,
    server_signature: Vec<u8>,
}

impl Scram {
    /// Begin as `user` with a prepared password and a fresh `nonce`; the client-first message.
    pub fn start(m: Mechanism, user: &str, password: String, nonce: &str) -> (Scram, String) {
        let user = user.replace('=', "=3D").replace(',', "=2C");
        let first_bare = format!("n={user},r={nonce}");
        let msg = format!("n,,{first_bare}");
        (Scram { m, password, nonce: nonce.to_string(), first_bare, server_signature: Vec::new() }, msg)
    }

    /// The client-final message for the server-first one, or why the server's is wrong.
    pub fn finish(&mut self, server_first: &[u8]) -> Result<String, String> {
        let sf = std::str::from_utf8(server_first).map_err(|_| "the server's SCRAM message is not UTF-8")?;
        let attr = |k: &str| sf.split(',').find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')));
        let (Some(r), Some(s), Some(i)) = (attr("r"), attr("s"), attr("i")) else {
            return Err(format!("the server's SCRAM message '{sf}' lacks r, s or i"));
        };
        if !r.starts_with(&self.nonce) || r.len() == self.nonce.len() {
            return Err("the server's SCRAM nonce does not extend ours".into());
        }
        let salt = B64.decode(s).map_err(|_| "the server's SCRAM salt is not base64".to_string())?;
        let iterations: u32 = i.parse().map_err(|_| format!("SCRAM iteration count '{i}'"))?;
        if !(1..=MAX_ITERATIONS).contains(&iterations) {
            return Err(format!("the server asks {iterations} SCRAM iterations (at most {MAX_ITERATIONS})"));
        }
        let m = self.m;
        let salted = m.pbkdf2(self.password.as_bytes(), &salt, iterations);
        let client_key = m.hmac(&salted, b"Client Key");
        let stored_key = m.hash(&[&client_key]);
        let without_proof = format!("c=biws,r={r}");
        let auth = format!("{},{sf},{without_proof}", self.first_bare);
        let signature = m.hmac(&stored_key, auth.as_bytes());
        let proof: Vec<u8> = client_key.iter().zip(&signature).map(|(a, b)| a ^ b).collect();
        let server_key = m.hmac(&salted, b"Server Key");
        self.server_signature = m.hmac(&server_key, auth.as_bytes());
        Ok(format!("{without_proof},p={}", B64.encode(proof)))
    }

    /// Whether the server-final message proves the server knows the password.
    pub fn verify(&self, server_final: &[u8]) -> Result<(), String> {
        let sf = std::str::from_utf8(server_final).unwrap_or("");
        if let Some(e) = sf.strip_prefix("e=") {
            return Err(format!("the server ended SCRAM: {e}"));
        }
        match sf.strip_prefix("v=").map(|v| B64.decode(v)) {
            Some(Ok(v)) if !self.server_signature.is_empty() && v == self.server_signature => Ok(()),
            _ => Err("the server's SCRAM signature is wrong: it does not know the password".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's and RFC 5802's examples, byte for byte.
    #[test]
    fn the_rfc_conversations() {
        let cases = [
            (
                Mechanism::Sha256,
                "rOprNGfwEbeRWgbNEkqO",
                "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
                "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
            ),
            (
                Mechanism::Sha1,
                "fyko+d2lbbFgONRv9qkxdawL",
                "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
                "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
                "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
            ),
        ];
        for (m, nonce, server_first, client_final, server_final) in cases {
            let (mut s, first) = Scram::start(m, "user", "pencil".into(), nonce);
            assert_eq!(first, format!("n,,n=user,r={nonce}"));
            assert_eq!(s.finish(server_first.as_bytes()).unwrap(), client_final);
            s.verify(server_final.as_bytes()).unwrap();
            assert!(s.verify(b"v=AAAA").is_err());
            assert!(s.verify(b"e=invalid-proof").unwrap_err().contains("invalid-proof"));
        }
    }

    #[test]
    fn mongo_digests_sha1_passwords_and_escapes_names() {
        // The digest of user "user", password "pencil", as MongoDB's drivers compute it.
        assert_eq!(prepared_password(Mechanism::Sha1, "user", "pencil"), "1c33006ec1ffd90f9cadcbcc0e118200");
        assert_eq!(prepared_password(Mechanism::Sha256, "user", "pencil"), "pencil");
        let (_, first) = Scram::start(Mechanism::Sha256, "a=b,c", String::new(), "n");
        assert_eq!(first, "n,,n=a=3Db=2Cc,r=n");
    }

    #[test]
    fn a_hostile_server_first_is_refused() {
        let (mut s, _) = Scram::start(Mechanism::Sha256, "u", "p".into(), "abc");
        for bad in [
            &b"r=xyz1,s=AAAA,i=4096"[..],
            b"r=abc,s=AAAA,i=4096",
            b"r=abcd,s=!!,i=4096",
            b"r=abcd,s=AAAA,i=0",
            b"r=abcd,s=AAAA,i=4000000000",
            b"r=abcd,i=1",
            b"\xff",
        ] {
            assert!(s.finish(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert!(s.verify(b"v=").is_err(), "no signature before the final message");
    }
}
