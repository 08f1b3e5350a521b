//! `dbrace merge`'s arguments.

use clap::Args;
use std::path::PathBuf;

/// `dbrace merge`.
#[derive(Args, Debug)]
#[command(after_help = "e.g.: dbrace merge shard-0.json shard-1.json shard-2.json > all.json")]
pub struct MergeArgs {
    /// The results files of every shard of one run (`dbrace run --shard I/N --out FILE`)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}
