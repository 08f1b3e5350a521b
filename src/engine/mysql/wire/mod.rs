//! A small synchronous MySQL wire client for the measured path: one blocking socket,
//! reused buffers, statements prepared once, result rows counted as packets without
//! decoding (what sysbench's C client costs, not a driver's per-row `Row`). It speaks
//! mysql_native_password only (MariaDB's managed servers and most `--url` accounts),
//! over TCP, TLS or a unix socket; anything else is `Unsupported` and the caller falls
//! back to mysql_async.

mod binary;
#[cfg(test)]
mod fuzz;
mod handshake;
mod packet;
mod query;
mod statement;

use super::endpoint::Endpoint;
use crate::engine::TxError;
use crate::engine::kit::patient::{self, Patient};
use crate::engine::kit::stream::Stream;
use handshake::Login;
use statement::Prepared;
use std::io::BufReader;
use std::time::Instant;

/// Why the wire client could not connect.
#[derive(Debug)]
pub enum WireConnect {
    /// The account wants an authentication this client does not speak (which, in
    /// words): use mysql_async.
    Unsupported(String),
    /// The server is not there.
    Unreachable(String),
    /// The server said no.
    Refused(String),
    /// The server takes no more connections (ER_CON_COUNT_ERROR).
    Full(String),
    /// TLS failed, or the server has none and the URL insists: the reason and the fix.
    Tls(String),
}

/// A failed command.
#[derive(Debug)]
pub enum WireError {
    /// The server's error packet: code and message.
    Server(u16, String),
    /// The connection broke or spoke nonsense.
    Lost(String),
}

impl From<std::io::Error> for WireError {
    fn from(e: std::io::Error) -> WireError {
        WireError::Lost(e.to_string())
    }
}

/// The same mapping as the mysql_async path: deadlock, lock wait timeout and "record has
/// changed" are retried; a duplicate key only where the workload asks.
pub fn tx_err(e: WireError) -> TxError {
    match e {
        WireError::Server(1213 | 1205 | 1020, _) => TxError::Retry,
        WireError::Server(1062, m) => TxError::Duplicate(format!("mysql: {m} (1062)")),
        // The server is shutting down, or killed this connection.
        WireError::Server(c @ (1053 | 1927), m) => TxError::Lost(format!("mysql: {m} ({c})")),
        WireError::Server(c, m) => TxError::Fail(format!("mysql: {m} ({c})")),
        WireError::Lost(m) => TxError::Lost(format!("mysql: connection lost: {m}")),
    }
}

type WResult<T> = Result<T, WireError>;

/// One connection.
pub struct Wire {
    io: BufReader<Patient<Stream>>,
    /// The last packet read (payload only).
    pkt: Vec<u8>,
    out: Vec<u8>,
    seq: u8,
    stmts: Vec<Prepared>,
    /// Column (type, flags) of the current result, for `First` and `Each`.
    cols: Vec<(u8, u16, String)>,
    /// A value as text, for `First` and `Each`.
    text: String,
    /// The TLS session in words, when there is one.
    tls: Option<String>,
}

impl Wire {
    /// One wait for the server lasts `idle` at most.
    pub fn set_idle(&mut self, idle: std::time::Duration) {
        self.io.get_mut().set_idle(Some(idle));
    }

    /// Connect and log in within the endpoint's connect timeout; a server that answers in
    /// another protocol is named with what it said.
    pub fn connect(at: &Endpoint) -> Result<Wire, WireConnect> {
        let o = &at.opts;
        let where_ = at.redacted();
        let started = Instant::now();
        let unreachable = |e: std::io::Error| WireConnect::Unreachable(format!("cannot connect to {where_}: {e}"));
        let limit = at.connect_timeout.unwrap_or(patient::FOREVER);
        let stream = match o.socket() {
            Some(path) => Stream::Unix(patient::connect_unix(path.as_ref(), limit).map_err(unreachable)?),
            None => Stream::Tcp(patient::connect_tcp(o.ip_or_hostname(), o.tcp_port(), limit).map_err(unreachable)?),
        };
        let server = match o.socket() {
            Some(path) => path.to_string(),
            None => format!("{}:{}", o.ip_or_hostname(), o.tcp_port()),
        };
        let mut stream = Patient::new(stream).map_err(unreachable)?;
        stream.set_deadline(started, at.connect_timeout);
        let mut w = Wire::over(stream).login(at).map_err(|e| match e {
            Login::Unsupported(why) => WireConnect::Unsupported(why),
            Login::Foreign(said) => WireConnect::Unreachable(patient::foreign(&server, "MySQL", &said)),
            Login::Tls(why) => WireConnect::Tls(tls_failure(&server, at, &why)),
            Login::Wire(WireError::Server(1040, m)) => WireConnect::Full(format!("{where_}: {m} (1040)")),
            Login::Wire(WireError::Server(c, m)) => WireConnect::Refused(format!("{where_}: {m} ({c})")),
            Login::Wire(WireError::Lost(m)) if m.starts_with("no answer within") => WireConnect::Unreachable(format!(
                "{server} sent no MySQL greeting in time ({m}, connect-timeout): is it a MySQL or MariaDB server?"
            )),
            Login::Wire(WireError::Lost(m)) => WireConnect::Unreachable(format!("cannot connect to {where_}: {m}")),
        })?;
        let s = w.io.get_mut();
        s.clear_deadline();
        s.set_idle(Some(patient::IDLE_TIMEOUT));
        Ok(w)
    }

    /// The TLS session in words (`TLSv1.3 TLS13_AES_256_GCM_SHA384`), or None.
    pub fn tls(&self) -> Option<&str> {
        self.tls.as_deref()
    }

    /// A connection over `stream`, before the login.
    fn over(stream: Patient<Stream>) -> Wire {
        Wire {
            io: BufReader::with_capacity(64 << 10, stream),
            pkt: Vec::with_capacity(1024),
            out: Vec::with_capacity(1024),
            seq: 0,
            stmts: Vec::new(),
            cols: Vec::new(),
            text: String::new(),
            tls: None,
        }
    }

    /// Say goodbye (COM_QUIT), so the server does not log an aborted connection.
    pub fn quit(&mut self) {
        self.command(0x01);
        let _ = self.send();
    }
}

/// A failed TLS session with `server` in one line: the reason, and the URL option that
/// fixes it.
fn tls_failure(server: &str, at: &Endpoint, why: &str) -> String {
    let host = at.opts.ip_or_hostname();
    let fix = if why.contains("not valid for name") || why.contains("NotValidForName") {
        format!(
            "the server's certificate is not valid for the host name {host} (ssl-mode=VERIFY_IDENTITY checks it): \
             connect by a name the certificate holds, or use ssl-mode=VERIFY_CA"
        )
    } else if why.contains("UnknownIssuer") || why.contains("unknown issuer") {
        "the server's certificate is signed by a CA this client does not trust: give its certificate with \
         ssl-ca=FILE, or use ssl-mode=REQUIRED not to check it"
            .to_string()
    } else if why.starts_with("the server does not offer TLS") {
        return format!("{server}: {why}");
    } else if why.contains("invalid dns name") {
        format!("{host} is neither a DNS name nor an IP address a certificate can name: connect by one")
    } else {
        "check ssl-ca, ssl-cert and ssl-key, or the server's TLS settings".to_string()
    };
    format!("{server}: TLS failed: {why}; {fix}")
}
