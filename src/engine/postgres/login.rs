//! The startup exchange: the startup message, then the authentication the server asks
//! for (cleartext, MD5 or SCRAM-SHA-256), up to the first ReadyForQuery.

use super::conn::PgClient;
use super::conninfo::ConnInfo;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256};
use postgres_protocol::message::frontend;

impl PgClient {
    pub(super) fn startup(&mut self, info: &ConnInfo) -> Result<(), StartupError> {
        let params = [
            ("user", info.user.as_str()),
            ("database", info.database.as_str()),
            ("application_name", "dbrace"),
            ("client_encoding", "UTF8"),
        ];
        frontend::startup_message(params.iter().copied(), &mut self.wbuf)?;
        self.flush()?;
        self.first_words()?;
        let mut scram: Option<ScramSha256> = None;
        loop {
            let (tag, body) = self.read_message()?;
            match tag {
                b'R' => {
                    let body = self.rbuf[body].to_vec();
                    self.authenticate(&body, info, &mut scram)?;
                    self.flush()?;
                }
                b'S' => {
                    let mut parts = self.rbuf[body].split(|b| *b == 0);
                    if parts.next() == Some(b"server_version") {
                        self.server_version = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
                    }
                }
                b'E' => {
                    let e = self.error(body);
                    return Err(match &e.code {
                        // invalid_authorization_specification: pg_hba.conf said no.
                        b"28000" => StartupError::Denied(e.message),
                        // too_many_connections: max_connections reached.
                        b"53300" => StartupError::Full(e.message),
                        _ => StartupError::Server(e.message),
                    });
                }
                b'Z' => return Ok(()),
                _ => {}
            }
        }
    }

    /// Answer one authentication request (`body` of an 'R' message): cleartext, MD5, or a
    /// step of SCRAM-SHA-256, whose exchange `scram` holds between steps.
    fn authenticate(
        &mut self,
        body: &[u8],
        info: &ConnInfo,
        scram: &mut Option<ScramSha256>,
    ) -> Result<(), StartupError> {
        let password = || {
            info.password.as_deref().ok_or_else(|| {
                StartupError::Server(
                    "the server asks for a password; put it in the URL (postgres://USER:PASSWORD@…)".into(),
                )
            })
        };
        let Some(code) = body.get(..4).and_then(|c| c.try_into().ok()).map(i32::from_be_bytes) else {
            return Err(StartupError::Server("a malformed authentication request".into()));
        };
        match code {
            0 => {}
            3 => frontend::password_message(password()?.as_bytes(), &mut self.wbuf)?,
            5 => {
                let Some(salt) = body.get(4..8).and_then(|c| <[u8; 4]>::try_from(c).ok()) else {
                    return Err(StartupError::Server("an MD5 request without its salt".into()));
                };
                let hash =
                    postgres_protocol::authentication::md5_hash(info.user.as_bytes(), password()?.as_bytes(), salt);
                frontend::password_message(hash.as_bytes(), &mut self.wbuf)?;
            }
            10 => {
                let s = ScramSha256::new(password()?.as_bytes(), ChannelBinding::unsupported());
                frontend::sasl_initial_response("SCRAM-SHA-256", s.message(), &mut self.wbuf)?;
                *scram = Some(s);
            }
            11 | 12 => {
                let s = scram.as_mut().ok_or_else(|| StartupError::Server("unexpected SASL message".into()))?;
                if code == 11 {
                    s.update(&body[4..])?;
                    frontend::sasl_response(s.message(), &mut self.wbuf)?;
                } else {
                    s.finish(&body[4..])?;
                }
            }
            other => return Err(StartupError::Server(format!("unsupported authentication method {other}"))),
        }
        Ok(())
    }
}

/// Why the startup failed: the connection, a server of another protocol (what it sent),
/// the server's refusal (pg_hba.conf's apart), no connection at all, a server without TLS under a mode that
/// insists, or TLS options that make no configuration.
pub(super) enum StartupError {
    Io(std::io::Error),
    Foreign(Vec<u8>),
    Server(String),
    Denied(String),
    Unreachable(String),
    NoTls,
    Setup(String),
    Full(String),
}

/// The messages a server may answer a startup message with: an authentication request,
/// an error, or a notice (before an error). Any other first byte is another protocol.
const FIRST_TAGS: &[u8] = b"REN";
/// A first message longer than this is no PostgreSQL server's (an error is a few hundred bytes).
const FIRST_MAX: usize = 64 << 10;

impl PgClient {
    /// Check that the server's first bytes are a PostgreSQL message, before the reader
    /// trusts any length: another server's answer is kept to be quoted.
    fn first_words(&mut self) -> Result<(), StartupError> {
        while self.rend - self.rpos < 5 {
            if let Err(e) = self.fill(5) {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    return Err(StartupError::Foreign(self.rbuf[self.rpos..self.rend].to_vec()));
                }
                return Err(e.into());
            }
        }
        let h = &self.rbuf[self.rpos..self.rend];
        let len = u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
        if !FIRST_TAGS.contains(&h[0]) || !(4..=FIRST_MAX).contains(&len) {
            return Err(StartupError::Foreign(h.to_vec()));
        }
        Ok(())
    }
}

impl From<std::io::Error> for StartupError {
    fn from(e: std::io::Error) -> Self {
        StartupError::Io(e)
    }
}
