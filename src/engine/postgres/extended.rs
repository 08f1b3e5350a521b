//! The extended-query protocol: one execution as the messages libpq writes for it, and
//! the names of prepared statements.

use super::client::{PgClient, Protocol};
use super::messages::lost;
use crate::engine::{Param, Stmt, TxError, TxResult};
use bytes::BytesMut;
use postgres_protocol::IsNull;
use postgres_protocol::message::frontend;

impl PgClient {
    /// Write one execution of `s` in the extended protocol (Parse first for
    /// `Protocol::Extended`), as libpq writes it.
    pub(super) fn send_execution(&mut self, s: Stmt, params: &[Param]) -> TxResult<()> {
        let mut name = [0u8; 12];
        let (name, parse) = match self.protocol {
            Protocol::Extended => ("", Some(self.statements[s.0].1.as_str())),
            _ => (stmt_name(s, &mut name), None),
        };
        write_execution(&mut self.wbuf, parse, name, params)
    }
}

/// "s<N>" in a stack buffer: statement names without allocation.
pub(super) fn stmt_name(s: Stmt, buf: &mut [u8; 12]) -> &str {
    let mut n = s.0;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    i -= 1;
    buf[i] = b's';
    std::str::from_utf8(&buf[i..]).unwrap_or("s0")
}

/// One execution in the extended protocol, as libpq's PQsendQueryPrepared (or, with
/// `parse`, PQsendQueryParams) writes it: [Parse,] Bind, Describe portal, Execute, Sync.
/// The Describe is pgbench's too: without it the server skips a RowDescription or NoData
/// per statement, ~1,200 of its ~43,000 instructions per tpcb statement (2.7% of a
/// transaction; callgrind, PostgreSQL 15), and dbrace measured the server doing less
/// than pgbench asks of it.
fn write_execution(wbuf: &mut BytesMut, parse: Option<&str>, name: &str, params: &[Param]) -> TxResult<()> {
    if let Some(sql) = parse {
        frontend::parse("", sql, std::iter::empty(), wbuf).map_err(lost)?;
    }
    frontend::bind(
        "",
        name,
        std::iter::empty(),
        params.iter(),
        |p, buf| {
            use std::fmt::Write as _;
            match p {
                Param::Int(i) => write!(buf, "{i}")?,
                Param::Text(t) => buf.extend_from_slice(t.as_bytes()),
            }
            Ok(IsNull::No)
        },
        std::iter::empty(),
        wbuf,
    )
    .map_err(|_| TxError::Fail("postgres: cannot encode parameters".into()))?;
    frontend::describe(b'P', "", wbuf).map_err(lost)?;
    frontend::execute("", 0, wbuf).map_err(lost)?;
    frontend::sync(wbuf);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message tags of a buffer of frontend messages, in order.
    fn tags(buf: &[u8]) -> Vec<u8> {
        let (mut at, mut out) = (0, Vec::new());
        while at < buf.len() {
            out.push(buf[at]);
            at += 1 + u32::from_be_bytes([buf[at + 1], buf[at + 2], buf[at + 3], buf[at + 4]]) as usize;
        }
        out
    }

    #[test]
    fn an_execution_sends_what_libpq_sends_for_pgbench() {
        // pgbench -M prepared (PQsendQueryPrepared): Bind, Describe portal, Execute, Sync,
        // as strace shows it sending; -M extended (PQsendQueryParams) parses first.
        let mut b = BytesMut::new();
        write_execution(&mut b, None, "s1", &[Param::Int(-7), Param::Text("x")]).unwrap();
        assert_eq!(tags(&b), b"BDES");
        let describe = b.windows(7).position(|w| w == b"D\0\0\0\x06P\0");
        assert!(describe.is_some(), "a Describe of the unnamed portal: {b:?}");
        assert!(b.windows(2).any(|w| w == b"-7"), "parameters as text");
        let mut b = BytesMut::new();
        write_execution(&mut b, Some("SELECT $1"), "", &[Param::Int(1)]).unwrap();
        assert_eq!(tags(&b), b"PBDES");
    }
}
