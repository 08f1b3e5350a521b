//! JSON summary: one object per cell (the full results are in the `--out` file).

use super::Row;
use crate::error::Result;

/// Render rows as a JSON array.
pub fn render(rows: &[Row]) -> Result<String> {
    let mut s = serde_json::to_string_pretty(rows).map_err(|e| failed!("cannot write JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}
