//! One PostgreSQL connection's state: its socket, its reused buffers and what it knows of
//! its statements. The other files of this folder add what it does (messages.rs reads,
//! login.rs and tls.rs start it, extended.rs and copy.rs run statements on it).

use super::named::NamedHere;
use crate::engine::kit::patient::Patient;
use crate::engine::kit::stream::Stream;
pub use crate::options::protocol::Protocol;
use bytes::BytesMut;

/// One connection.
pub struct PgClient {
    pub(super) stream: Patient<Stream>,
    pub(super) wbuf: BytesMut,
    pub(super) rbuf: Vec<u8>,
    pub(super) rpos: usize,
    pub(super) rend: usize,
    /// Transaction status from the last ReadyForQuery: b'I', b'T' or b'E'.
    pub(super) status: u8,
    /// Each prepared statement's SQL: with `?` (simple) and with `$n` (extended).
    pub(super) statements: Vec<(String, String)>,
    pub(super) protocol: Protocol,
    /// Its instance's statement names and whether they were lost (a transaction pooler).
    pub(super) named: NamedHere,
    /// The SQLSTATE of the error the last statement ended with ("00000" after none).
    pub(super) sqlstate: [u8; 5],
    /// The simple protocol's query text, rebuilt in place for every statement.
    pub(super) query: String,
    /// Column names of the last RowDescription, end to end, and where each ends.
    pub(super) columns: String,
    pub(super) column_ends: Vec<usize>,
    pub(super) unlogged: bool,
    /// Tables created for a load, with their deferred primary keys.
    pub(super) loaded: Vec<(String, Option<String>)>,
    /// The server's version, from its ParameterStatus at startup.
    pub server_version: String,
}

impl PgClient {
    /// A connection over `stream`, before the startup.
    pub(super) fn over(stream: Patient<Stream>, unlogged: bool) -> PgClient {
        PgClient {
            stream,
            wbuf: BytesMut::with_capacity(8192),
            rbuf: vec![0; 64 * 1024],
            rpos: 0,
            rend: 0,
            status: b'I',
            statements: Vec::new(),
            protocol: Protocol::default(),
            named: NamedHere::default(),
            sqlstate: *b"00000",
            query: String::with_capacity(256),
            columns: String::new(),
            column_ends: Vec::new(),
            unlogged,
            loaded: Vec::new(),
            server_version: String::new(),
        }
    }
}
