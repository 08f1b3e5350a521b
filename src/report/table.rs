//! The terminal table.

use super::{Layout, Row, by_type_note, headers, lines, notes, statement_lines, usual_levels};
use crate::results::Results;
use comfy_table::{CellAlignment, Table, presets::UTF8_FULL_CONDENSED};

/// Render rows as a terminal table with notes under it.
pub fn render(results: &Results, rows: &[Row], baseline: &str, layout: Layout) -> String {
    let mut t = Table::new();
    let headers = headers(layout);
    t.load_style(UTF8_FULL_CONDENSED).set_header(&headers);
    let usual = usual_levels(rows);
    for r in rows {
        for line in lines(r, usual, layout) {
            t.add_row(line);
        }
    }
    for i in 3..headers.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = t.to_string();
    let by_type = layout.by_type.then(|| by_type_note(rows));
    for n in notes(results, rows, baseline).into_iter().chain(by_type).chain(statement_lines(rows)) {
        out.push('\n');
        out.push_str(&n);
    }
    out.push('\n');
    out
}
