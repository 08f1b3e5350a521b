//! The terminal table.

use super::{HEADERS, Row, cells, notes, statement_lines, usual_levels};
use crate::results::Results;
use comfy_table::{CellAlignment, Table, presets::UTF8_FULL_CONDENSED};

/// Render rows as a terminal table with notes under it.
pub fn render(results: &Results, rows: &[Row], baseline: &str) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED).set_header(HEADERS);
    let usual = usual_levels(rows);
    for r in rows {
        t.add_row(cells(r, usual));
    }
    for i in 3..HEADERS.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = t.to_string();
    for n in notes(results, rows, baseline).into_iter().chain(statement_lines(rows)) {
        out.push('\n');
        out.push_str(&n);
    }
    out.push('\n');
    out
}
