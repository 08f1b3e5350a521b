//! `dbrace compare`'s flags.

use crate::compare::gate::{Direction, Gate};
use crate::report::Format;
use clap::Args;
use std::path::PathBuf;

/// `dbrace compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference results file (e.g. from the main branch)
    pub old: PathBuf,
    /// The results file to judge against it
    pub new: PathBuf,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Exit 1 when a cell is significantly slower by more than this, e.g. 5%
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true, value_parser = crate::compare::parse_percent)]
    pub fail_if_slower: Option<f64>,
    /// Exit 1 when a cell's figure rises past the old file's, e.g. cost.fsyncs or latency_ms.p99:10%
    /// (a key of a cell's summary in the results file; repeat for several)
    #[arg(long, value_name = "FIGURE[:PERCENT]", value_parser = |s: &str| Gate::parse(s, Direction::Rises))]
    pub fail_if_rises: Vec<Gate>,
    /// Exit 1 when a cell's figure falls below the old file's, e.g. tpmc:5%
    #[arg(long, value_name = "FIGURE[:PERCENT]", value_parser = |s: &str| Gate::parse(s, Direction::Falls))]
    pub fail_if_falls: Vec<Gate>,
    /// The confidence of the ratio intervals and verdicts, e.g. 95% or 0.9 [default: the new file's]
    #[arg(long, value_name = "LEVEL", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: Option<f64>,
}
