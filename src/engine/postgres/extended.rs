//! The extended-query protocol: one execution as the messages libpq writes for it, the
//! names of prepared statements, and the fallback to unnamed statements when named ones
//! do not survive between transactions (a transaction pooler such as PgBouncer).

use super::conn::{PgClient, Protocol};
use super::messages::lost;
use super::named::{Named, NamedHere};
use crate::engine::{Param, Stmt, TxError, TxResult};
use bytes::BytesMut;
use postgres_protocol::IsNull;
use postgres_protocol::message::frontend;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// SQLSTATEs of a named statement that is not on the server connection it was prepared on:
/// invalid_sql_statement_name (26000: "does not exist") and duplicate_prepared_statement
/// (42P05: another client's name on the same server connection, had names collided).
fn lost_statement(code: &[u8; 5]) -> bool {
    matches!(code, b"26000" | b"42P05")
}

impl PgClient {
    /// Join an instance's `named`: this connection's statement names are its own, and a
    /// loss any connection found switches this one to unnamed statements too.
    pub fn share_names(&mut self, named: &Arc<Named>) {
        let conn = named.next.fetch_add(1, Ordering::Relaxed);
        self.named = NamedHere { shared: Arc::clone(named), conn };
        if named.lost().is_some() && self.protocol == Protocol::Prepared {
            self.protocol = Protocol::Extended;
        }
    }

    /// Parse `sql` as this connection's statement `s` (`Protocol::Prepared`). A name the
    /// pooler's server connection does not have switches to unnamed statements instead.
    pub(super) fn parse_named(&mut self, s: Stmt, sql: &str) -> TxResult<()> {
        let idle = self.status == b'I';
        let mut name = [0u8; NAME_LEN];
        let name = stmt_name(self.named.conn, s, &mut name);
        frontend::parse(name, sql, std::iter::empty(), &mut self.wbuf).map_err(lost)?;
        frontend::sync(&mut self.wbuf);
        self.flush().map_err(lost)?;
        match self.finish() {
            Ok(_) => Ok(()),
            Err(e) => self.fall_back(idle, e),
        }
    }

    /// Write one execution of `s` in the extended protocol (Parse first for
    /// `Protocol::Extended`), as libpq writes it.
    pub(super) fn send_execution(&mut self, s: Stmt, params: &[Param]) -> TxResult<()> {
        // Another connection of the instance found named statements lost: so would this one.
        if self.protocol == Protocol::Prepared && self.named.shared.lost.get().is_some() {
            self.protocol = Protocol::Extended;
        }
        let mut name = [0u8; NAME_LEN];
        let (name, parse) = match self.protocol {
            Protocol::Extended => ("", Some(self.statements[s.0].1.as_str())),
            _ => (stmt_name(self.named.conn, s, &mut name), None),
        };
        write_execution(&mut self.wbuf, parse, name, params)
    }

    /// After a statement failed with `e`: a named statement the server connection does not
    /// have means a transaction pooler hands each transaction any server connection. This
    /// connection, and every later one of the instance, then parses unnamed statements;
    /// `Ok` says to send the statement again (it ran on its own, nothing else was lost),
    /// `Retry` that the transaction it was in is lost and runs again.
    pub(super) fn fall_back(&mut self, idle: bool, e: TxError) -> TxResult<()> {
        if self.protocol != Protocol::Prepared || !lost_statement(&self.sqlstate) {
            return Err(e);
        }
        self.protocol = Protocol::Extended;
        let _ = self.named.shared.lost.set(e.to_string());
        if idle { Ok(()) } else { Err(TxError::Retry) }
    }
}

/// Room for the longest statement name: "c", a u32, "s", a usize.
const NAME_LEN: usize = 32;

/// "c<connection>s<statement>" in a stack buffer: names without allocation, each
/// connection's its own, so a server connection another client prepared on never runs a
/// statement of the same name that is not this one's.
fn stmt_name(conn: u32, s: Stmt, buf: &mut [u8; NAME_LEN]) -> &str {
    let (mut c, mut n) = (itoa::Buffer::new(), itoa::Buffer::new());
    let parts: [&[u8]; 4] = [b"c", c.format(conn).as_bytes(), b"s", n.format(s.0).as_bytes()];
    let mut len = 0;
    for p in parts {
        buf[len..len + p.len()].copy_from_slice(p);
        len += p.len();
    }
    std::str::from_utf8(&buf[..len]).unwrap_or("c0s0")
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
    fn statement_names_are_the_connections_own() {
        let mut b = [0u8; NAME_LEN];
        assert_eq!(stmt_name(0, Stmt(0), &mut b), "c0s0");
        assert_eq!(stmt_name(12, Stmt(345), &mut b), "c12s345");
        assert_eq!(stmt_name(u32::MAX, Stmt(usize::MAX), &mut b).len(), 1 + 10 + 1 + 20);
    }

    #[test]
    fn only_a_lost_name_falls_back() {
        assert!(lost_statement(b"26000") && lost_statement(b"42P05"));
        assert!(!lost_statement(b"42P01") && !lost_statement(b"00000"));
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
