//! Reports: one file per format, all rendered from the results file alone, so
//! `dbrace report r.json` reproduces what `dbrace run` printed.

pub mod bound;
pub mod by_type;
mod cells;
pub mod charts;
pub mod columns;
pub mod compare;
pub mod cost;
mod csv;
mod disturbed;
mod environment;
mod flame;
pub mod html;
mod json;
mod markdown;
mod notes;
pub mod precision;
pub mod predictions;
mod row;
pub mod step_summary;
mod table;

use crate::error::Result;
use crate::results::Results;

pub(crate) use cells::*;
pub use columns::Column;
use notes::*;
pub use row::{Row, Schedule, rows};

/// Output formats for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A terminal table.
    Table,
    /// A Markdown table.
    Markdown,
    /// CSV, one row per cell.
    Csv,
    /// JSON, one object per cell.
    Json,
}

/// What the tables and the CSV show beyond their own columns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// `--columns`: the tables' columns after their own.
    pub columns: &'a [Column],
    /// `--by-type`: a row per transaction type under each cell, with p50, errors and
    /// retries columns in the tables.
    pub by_type: bool,
}

/// Each cell's summary written into `results`, as the report shows it against `baseline`:
/// what scripts and `compare --fail-if` read from the results file.
pub fn summarize(results: &mut Results, baseline: &str) -> Result<()> {
    let rows = rows(results, baseline)?;
    for (cell, row) in results.cells.iter_mut().zip(rows) {
        let measured = cell.repeats.iter().any(|r| r.status.measured());
        cell.summary = measured
            .then(|| serde_json::to_value(&row))
            .transpose()
            .map_err(|e| failed!("cannot encode a summary: {e}"))?;
    }
    Ok(())
}

/// Render the summary of `results` in `format`, with what `shown` asks.
pub fn render(results: &Results, baseline: &str, format: Format, shown: Shown) -> Result<String> {
    let rows = rows(results, baseline)?;
    let columns = columns::chosen(shown.columns, &rows);
    let layout = Layout { extra: &columns, by_type: shown.by_type };
    Ok(match format {
        Format::Table => table::render(results, &rows, baseline, layout),
        Format::Markdown => markdown::render(results, &rows, baseline, layout),
        Format::Csv => csv::render(&rows, shown.by_type)?,
        Format::Json => json::render(&rows)?,
    })
}
