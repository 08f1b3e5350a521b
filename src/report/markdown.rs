//! A Markdown table, for READMEs and pull requests.

use super::{Column, Row, cells, headers, notes, statement_lines, usual_levels};
use crate::results::Results;

/// Render rows as a Markdown table with notes under it.
pub fn render(results: &Results, rows: &[Row], baseline: &str, extra: &[Column]) -> String {
    let line =
        |v: &[String]| format!("| {} |\n", v.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    let headers: Vec<String> = headers(extra).into_iter().map(String::from).collect();
    let mut out = line(&headers);
    let align: Vec<String> = (0..headers.len()).map(|i| if i < 3 { "---".into() } else { "---:".into() }).collect();
    out.push_str(&line(&align));
    let usual = usual_levels(rows);
    for r in rows {
        out.push_str(&line(&cells(r, usual, extra)));
    }
    out.push('\n');
    for n in notes(results, rows, baseline) {
        out.push_str(&format!("- {n}\n"));
    }
    let statements = statement_lines(rows);
    if !statements.is_empty() {
        out.push_str(&format!("\n```\n{}\n```\n", statements.join("\n")));
    }
    out
}
