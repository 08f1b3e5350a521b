//! The startup exchange: the startup message, then the authentication the server asks
//! for (cleartext, MD5 or SCRAM-SHA-256), up to the first ReadyForQuery.

use super::client::PgClient;
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
        let password = || {
            info.password.as_deref().ok_or_else(|| {
                StartupError::Server(
                    "the server asks for a password; put it in the URL (postgres://USER:PASSWORD@…)".into(),
                )
            })
        };
        let mut scram: Option<ScramSha256> = None;
        loop {
            let (tag, body) = self.read_message()?;
            match tag {
                b'R' => {
                    let body = self.rbuf[body].to_vec();
                    let code = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                    match code {
                        0 => {}
                        3 => frontend::password_message(password()?.as_bytes(), &mut self.wbuf)?,
                        5 => {
                            let salt = [body[4], body[5], body[6], body[7]];
                            let hash = postgres_protocol::authentication::md5_hash(
                                info.user.as_bytes(),
                                password()?.as_bytes(),
                                salt,
                            );
                            frontend::password_message(hash.as_bytes(), &mut self.wbuf)?;
                        }
                        10 => {
                            let s = ScramSha256::new(password()?.as_bytes(), ChannelBinding::unsupported());
                            frontend::sasl_initial_response("SCRAM-SHA-256", s.message(), &mut self.wbuf)?;
                            scram = Some(s);
                        }
                        11 | 12 => {
                            let s =
                                scram.as_mut().ok_or_else(|| StartupError::Server("unexpected SASL message".into()))?;
                            if code == 11 {
                                s.update(&body[4..])?;
                                frontend::sasl_response(s.message(), &mut self.wbuf)?;
                            } else {
                                s.finish(&body[4..])?;
                            }
                        }
                        other => {
                            return Err(StartupError::Server(format!("unsupported authentication method {other}")));
                        }
                    }
                    self.flush()?;
                }
                b'S' => {
                    let mut parts = self.rbuf[body].split(|b| *b == 0);
                    if parts.next() == Some(b"server_version") {
                        self.server_version = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
                    }
                }
                b'E' => return Err(StartupError::Server(self.error(body).message)),
                b'Z' => return Ok(()),
                _ => {}
            }
        }
    }
}

/// Why the startup failed: the connection, or the server's refusal.
pub(super) enum StartupError {
    Io(std::io::Error),
    Server(String),
}

impl From<std::io::Error> for StartupError {
    fn from(e: std::io::Error) -> Self {
        StartupError::Io(e)
    }
}
