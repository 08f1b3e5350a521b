//! `dbrace compare`'s flags.

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
    /// The confidence of the ratio intervals and verdicts, e.g. 95% or 0.9 [default: the new file's]
    #[arg(long, value_name = "LEVEL", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: Option<f64>,
}
