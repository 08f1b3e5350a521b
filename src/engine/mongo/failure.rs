//! Why a mongo command failed: the connection, or the server's error with its code, and
//! what a failed operation is to a workload (a conflict to retry, a duplicate, a failure).

use super::reply::{get_array, get_doc, get_number, get_str};
use crate::engine::TxError;
use bson::{RawBsonRef, RawDocument};

/// Server error codes the client tells apart.
pub mod code {
    /// A unique index (`_id`) already holds the key.
    pub const DUPLICATE_KEY: i32 = 11000;
    /// Another operation wrote the document first: retry.
    pub const WRITE_CONFLICT: i32 = 112;
    /// The collection does not exist (dropping one that never was).
    pub const NAMESPACE_NOT_FOUND: i32 = 26;
    /// Wrong user or password.
    pub const AUTHENTICATION_FAILED: i32 = 18;
    /// The command needs a login or a role.
    pub const UNAUTHORIZED: i32 = 13;
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The connection: refused, closed, timed out, or a reply that is not one.
    Io(String),
    /// The server answered with an error (`ok: 0`, a write error, a write concern error).
    Server {
        /// Its code.
        code: i32,
        /// Its code name and message.
        msg: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(m) => write!(f, "mongo: {m}"),
            Failure::Server { code, msg } => write!(f, "mongo: {msg} (code {code})"),
        }
    }
}

impl Failure {
    /// The code of a server error, if it is one.
    pub fn code(&self) -> Option<i32> {
        match self {
            Failure::Server { code, .. } => Some(*code),
            Failure::Io(_) => None,
        }
    }

    /// As a transaction's error: WriteConflict is a conflict to retry; a duplicate key one
    /// only when `upsert` (two upserts of one new document raced), else `Duplicate`.
    pub(super) fn tx(self, upsert: bool) -> TxError {
        match self.code() {
            Some(code::WRITE_CONFLICT) => TxError::Retry,
            Some(code::DUPLICATE_KEY) if upsert => TxError::Retry,
            Some(code::DUPLICATE_KEY) => TxError::Duplicate(self.to_string()),
            None => TxError::Lost(self.to_string()),
            _ => TxError::Fail(self.to_string()),
        }
    }
}

/// The error a reply carries: `ok: 0`, else its first write error, else its write
/// concern error.
pub(super) fn reply_error(r: &RawDocument) -> Option<Failure> {
    let error = |d: &RawDocument| {
        let code = get_number(d, "code").unwrap_or(0) as i32;
        let name = get_str(d, "codeName").unwrap_or("");
        let msg = get_str(d, "errmsg").unwrap_or("no message");
        let msg = if name.is_empty() { msg.to_string() } else { format!("{name}: {msg}") };
        Failure::Server { code, msg }
    };
    if get_number(r, "ok") != Some(1) {
        return Some(error(r));
    }
    if let Some(errors) = get_array(r, "writeErrors")
        && let Some(Ok(RawBsonRef::Document(first))) = errors.into_iter().next()
    {
        return Some(error(first));
    }
    if let Some(wce) = get_doc(r, "writeConcernError") {
        return Some(error(wce));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn raw(d: bson::Document) -> Vec<u8> {
        bson::to_vec(&d).unwrap()
    }

    #[test]
    fn errors_carry_their_codes() {
        let r = raw(doc! {"ok": 0.0, "errmsg": "bad auth", "code": 18, "codeName": "AuthenticationFailed"});
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert_eq!(e.code(), Some(18));
        assert_eq!(e.to_string(), "mongo: AuthenticationFailed: bad auth (code 18)");
        let r = raw(doc! {"ok": 1, "n": 0, "writeErrors": [{"index": 0, "code": 11000, "errmsg": "E11000 dup"}]});
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert!(matches!(e.tx(false), TxError::Duplicate(_)));
        let e = reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap();
        assert!(matches!(e.tx(true), TxError::Retry));
        let r = raw(doc! {"ok": 1.0, "writeConcernError": {"code": 100, "errmsg": "journal off"}});
        assert_eq!(reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap().code(), Some(100));
        let r = raw(doc! {"ok": 0, "code": 112, "errmsg": "WriteConflict"});
        assert!(matches!(reply_error(RawDocument::from_bytes(&r).unwrap()).unwrap().tx(false), TxError::Retry));
        assert!(reply_error(RawDocument::from_bytes(&raw(doc! {"ok": 1.0, "n": 3})).unwrap()).is_none());
        // A reply without ok is not a success.
        assert!(reply_error(RawDocument::from_bytes(&raw(doc! {"n": 3})).unwrap()).is_some());
    }
}
