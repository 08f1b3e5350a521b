//! Reading the backend's messages in place from one reused buffer, up to ReadyForQuery,
//! and what they say: rows, rows changed, server errors as transaction outcomes.

use super::conn::PgClient;
use crate::engine::kit::patient::quote;
use crate::engine::{TxError, TxResult};
use std::io::{Read, Write};

/// The longest message a server may send: PostgreSQL's own allocation limit (1 GiB)
/// and room for the message's other fields. A longer length is a broken or foreign peer.
pub(super) const MAX_MESSAGE: usize = (1 << 30) + (1 << 20);

/// What a statement returned.
pub(super) struct Outcome {
    /// Rows changed, from the command tag.
    pub(super) changed: u64,
    /// Rows received.
    pub(super) rows: u64,
    /// The first column of the first row, as an integer.
    pub(super) first: Option<i64>,
}

/// A server error: SQLSTATE and message.
pub(super) struct ServerError {
    pub(super) code: [u8; 5],
    pub(super) message: String,
}

impl PgClient {
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        self.stream.write_all(&self.wbuf)?;
        self.wbuf.clear();
        // A TLS session may hold back what it could not send yet; a plain socket's is a no-op.
        self.stream.flush()
    }

    /// The next backend message: its tag and the range of its body in `rbuf`. Its length
    /// is checked before anything is allocated for it, and the buffer grows with the bytes
    /// that arrive, not with what the length claims.
    pub(super) fn read_message(&mut self) -> std::io::Result<(u8, std::ops::Range<usize>)> {
        loop {
            let avail = self.rend - self.rpos;
            let mut need = 5;
            if avail >= 5 {
                let h = &self.rbuf[self.rpos..];
                let len = u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
                if !(4..=MAX_MESSAGE).contains(&len) {
                    return Err(invalid(format!("a message of {len} bytes (tag {})", quote(&[h[0]]))));
                }
                if avail > len {
                    let tag = h[0];
                    let start = self.rpos + 5;
                    self.rpos += 1 + len;
                    return Ok((tag, start..self.rpos));
                }
                need = 1 + len;
            }
            self.fill(need)?;
        }
    }

    /// Read more of the server's bytes: the unread ones moved to the front, the buffer
    /// doubled (setup and verify only) when a message of `need` bytes does not fit.
    pub(super) fn fill(&mut self, need: usize) -> std::io::Result<()> {
        if self.rpos > 0 {
            self.rbuf.copy_within(self.rpos..self.rend, 0);
            self.rend -= self.rpos;
            self.rpos = 0;
        }
        if self.rend == self.rbuf.len() {
            let len = self.rbuf.len();
            self.rbuf.resize((len * 2).min(need).max(len + 1), 0);
        }
        let n = self.stream.read(&mut self.rbuf[self.rend..])?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        self.rend += n;
        Ok(())
    }

    pub(super) fn error(&self, body: std::ops::Range<usize>) -> ServerError {
        let mut e = ServerError { code: *b"XX000", message: String::new() };
        for field in self.rbuf[body].split(|b| *b == 0) {
            match field.split_first() {
                Some((b'C', v)) if v.len() == 5 => e.code.copy_from_slice(v),
                Some((b'M', v)) => e.message = String::from_utf8_lossy(v).into_owned(),
                _ => {}
            }
        }
        e
    }

    /// Read up to ReadyForQuery: every row (counted; the first one's first column kept)
    /// and the rows changed.
    pub(super) fn finish(&mut self) -> TxResult<Outcome> {
        let (mut changed, mut rows, mut value, mut err) = (0, 0, None, None);
        self.sqlstate = *b"00000";
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'D' => {
                    rows += 1;
                    if value.is_none() {
                        value = Some(self.first_column(body));
                    }
                }
                b'C' => changed = rows_changed(&self.rbuf[body]),
                b'E' => err = err.or(Some(self.error(body))),
                b'Z' => {
                    self.status = ready(&self.rbuf[body])?;
                    break;
                }
                _ => {}
            }
        }
        match err {
            None => Ok(Outcome { changed, rows, first: value.flatten() }),
            Some(e) => {
                self.sqlstate = e.code;
                Err(tx_error(e))
            }
        }
    }

    fn first_column(&self, body: std::ops::Range<usize>) -> Option<i64> {
        let b = &self.rbuf[body];
        if b.len() < 6 || u16::from_be_bytes([b[0], b[1]]) == 0 {
            return None;
        }
        let len = i32::from_be_bytes([b[2], b[3], b[4], b[5]]);
        let text = std::str::from_utf8(b.get(6..6 + usize::try_from(len).ok()?)?).ok()?;
        text.parse().ok()
    }

    /// Read up to ReadyForQuery, passing each DataRow's fields to `row` by column.
    pub(super) fn finish_each(&mut self, row: &mut dyn FnMut(usize, &str, Option<&str>)) -> TxResult<u64> {
        let (mut rows, mut err, mut malformed) = (0u64, None, None);
        self.sqlstate = *b"00000";
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'T' => {
                    // Field count, then per field: name, table oid, column, type, size, modifier, format.
                    self.columns.clear();
                    self.column_ends.clear();
                    let b = &self.rbuf[body];
                    let mut at = 2;
                    for _ in 0..b.get(..2).map_or(0, |n| u16::from_be_bytes([n[0], n[1]])) {
                        let Some(len) = b.get(at..).and_then(|r| r.iter().position(|x| *x == 0)) else {
                            malformed = malformed.or(Some("RowDescription"));
                            break;
                        };
                        self.columns.push_str(std::str::from_utf8(&b[at..at + len]).unwrap_or("?column?"));
                        self.column_ends.push(self.columns.len());
                        at += len + 1 + 18;
                    }
                }
                b'D' => {
                    rows += 1;
                    let b = &self.rbuf[body];
                    let mut at = 2;
                    for i in 0..b.get(..2).map_or(0, |n| usize::from(u16::from_be_bytes([n[0], n[1]]))) {
                        let Some(l) = b.get(at..at + 4) else {
                            malformed = malformed.or(Some("DataRow"));
                            break;
                        };
                        let len = i32::from_be_bytes([l[0], l[1], l[2], l[3]]);
                        at += 4;
                        // A negative length is NULL.
                        let value = match usize::try_from(len) {
                            Err(_) => None,
                            Ok(n) => match b.get(at..at + n) {
                                Some(v) => {
                                    at += n;
                                    Some(std::str::from_utf8(v).unwrap_or(""))
                                }
                                None => {
                                    malformed = malformed.or(Some("DataRow"));
                                    break;
                                }
                            },
                        };
                        let start = if i == 0 { 0 } else { self.column_ends.get(i - 1).copied().unwrap_or(0) };
                        let end = self.column_ends.get(i).copied().unwrap_or(start);
                        row(i, self.columns.get(start..end).unwrap_or(""), value);
                    }
                }
                b'E' => err = err.or(Some(self.error(body))),
                b'Z' => {
                    self.status = ready(&self.rbuf[body])?;
                    break;
                }
                _ => {}
            }
        }
        if let Some(what) = malformed {
            return Err(TxError::Fail(format!("postgres: the server sent a malformed {what}")));
        }
        match err {
            None => Ok(rows),
            Some(e) => {
                self.sqlstate = e.code;
                Err(tx_error(e))
            }
        }
    }
}

/// A server error as a transaction's outcome: conflicts are retried. A unique violation
/// too, as sysbench's pgsql driver: a delete + insert of the same id racing another
/// client's fails on the insert, and a retry succeeds.
fn tx_error(e: ServerError) -> TxError {
    let m = || format!("postgres: {} ({})", e.message, String::from_utf8_lossy(&e.code));
    match &e.code {
        b"40001" | b"40P01" => TxError::Retry,
        b"23505" => TxError::Duplicate(m()),
        // The server ends the session after these (admin or crash shutdown, a terminated
        // backend) or the connection itself failed (class 08).
        b"57P01" | b"57P02" | b"57P03" | [b'0', b'8', ..] => TxError::Lost(m()),
        _ => TxError::Fail(m()),
    }
}

/// ReadyForQuery's one byte: the transaction status.
fn ready(b: &[u8]) -> TxResult<u8> {
    match b {
        [s] => Ok(*s),
        _ => Err(TxError::Fail("postgres: the server sent a malformed ReadyForQuery".into())),
    }
}

/// A reply that breaks the protocol.
pub(super) fn invalid(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("the server broke the protocol: {why}"))
}

pub(super) fn lost(e: std::io::Error) -> TxError {
    TxError::Lost(format!("postgres: connection lost: {e}"))
}

/// "UPDATE 1", "INSERT 0 1", "SELECT 1": the last number.
pub(super) fn rows_changed(tag: &[u8]) -> u64 {
    let tag = tag.strip_suffix(&[0]).unwrap_or(tag);
    let digits = tag.rsplit(|b| *b == b' ').next().unwrap_or_default();
    digits.iter().try_fold(0u64, |n, d| d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0'))).unwrap_or(0)
}
