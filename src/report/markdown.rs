//! A Markdown table, for READMEs and pull requests.

use super::{Layout, Row, by_type_note, headers, lines, notes, statement_lines, usual_levels};
use crate::results::Results;

/// Render rows as a Markdown table with notes under it.
pub fn render(results: &Results, rows: &[Row], baseline: &str, layout: Layout) -> String {
    let line =
        |v: &[String]| format!("| {} |\n", v.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    let headers: Vec<String> = headers(layout).into_iter().map(String::from).collect();
    let mut out = line(&headers);
    let align: Vec<String> = (0..headers.len()).map(|i| if i < 3 { "---".into() } else { "---:".into() }).collect();
    out.push_str(&line(&align));
    let usual = usual_levels(rows);
    for r in rows {
        for cells in lines(r, usual, layout) {
            out.push_str(&line(&cells));
        }
    }
    out.push('\n');
    let by_type = layout.by_type.then(|| by_type_note(rows));
    for n in notes(results, rows, baseline).into_iter().chain(by_type) {
        out.push_str(&format!("- {n}\n"));
    }
    let statements = statement_lines(rows);
    if !statements.is_empty() {
        out.push_str(&format!("\n```\n{}\n```\n", statements.join("\n")));
    }
    out
}
