//! Session settings: against a `--url` server a profile's settings are SET on every
//! connection, since the server's own belong to everyone.

use crate::engine::{SqlClient, TxError};
use crate::error::{Error, Result};

/// SET each of `settings` on `c` with the engine's `statement`; `refused` says what a
/// refusal means.
pub fn apply(
    c: &mut dyn SqlClient,
    settings: &[(String, String)],
    statement: impl Fn(&str, &str) -> String,
    refused: impl Fn(&str, &str, TxError) -> Error,
) -> Result<()> {
    for (k, v) in settings {
        c.batch(&statement(k, v)).map_err(|e| refused(k, v, e))?;
    }
    Ok(())
}
