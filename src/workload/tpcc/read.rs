//! Reading a transaction's rows: each column's text handed to the transaction as it
//! arrives, and numbers parsed from it (a server's reply is untrusted input).

use super::random::units;
use crate::engine::{Param, SqlClient, Stmt, TxError, TxResult};

/// Run `stmt` and hand each column of every row to `col` as (index, text; "" for NULL);
/// the number of rows.
pub fn each(c: &mut dyn SqlClient, stmt: Stmt, params: &[Param], mut col: impl FnMut(usize, &str)) -> TxResult<u64> {
    c.query_each(stmt, params, &mut |i, _, v| col(i, v.unwrap_or("")))
}

/// An integer column's text, or a failure naming `what`.
pub fn int(text: &str, what: &str) -> TxResult<i64> {
    text.trim().parse().map_err(|_| bad(what, text))
}

/// A decimal column's text in its `scale`-th units, or a failure naming `what`.
pub fn decimal(text: &str, scale: u32, what: &str) -> TxResult<i64> {
    units(text.trim(), scale).ok_or_else(|| bad(what, text))
}

/// The failure of a reply that is not what the schema holds.
fn bad(what: &str, text: &str) -> TxError {
    let shown: String = text.chars().take(40).collect();
    TxError::Fail(format!("tpcc: the server sent '{shown}' for {what}"))
}

/// `text` into `out`, reusing its room.
pub fn keep(out: &mut String, text: &str) {
    out.clear();
    out.push_str(text);
}
