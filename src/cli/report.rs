//! `dbrace report`'s flags.

use super::ChartArgs;
use crate::report::Format;
use clap::Args;
use std::path::PathBuf;

/// `dbrace report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results file written by `dbrace run --out`
    pub file: PathBuf,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Columns the terminal and Markdown tables add, comma-separated: what bounds each
    /// cell and its costs per transaction, from the counters (docs/explain.md)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "bound", value_name = "COLUMN,...")]
    pub columns: Vec<crate::report::Column>,
    /// Under each cell of the table (and in the CSV), a row per transaction type of a
    /// workload that mixes several (ycsb's operations, a script mix's scripts): its tps,
    /// p50/p95/p99, errors and retries (docs/workloads.md)
    #[arg(long)]
    pub by_type: bool,
    /// Baseline for ratios: PROFILE or ENGINE:PROFILE [default: the run's baseline]
    #[arg(long, value_name = "PROFILE")]
    pub baseline: Option<String>,
    /// The confidence every interval aims at, e.g. 95% or 0.9 [default: the run's]
    #[arg(long, value_name = "LEVEL", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: Option<f64>,
    /// HTML report and charts.
    #[command(flatten)]
    pub charts: ChartArgs,
}
