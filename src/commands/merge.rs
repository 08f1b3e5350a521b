//! `dbrace merge`: the shards' results files read, added up, written to stdout.

use crate::cli::MergeArgs;
use crate::error::Result;
use crate::results::{Results, ShardFile, merge};

pub(super) fn merge_cmd(a: MergeArgs) -> Result<i32> {
    let files = a
        .files
        .iter()
        .map(|p| Ok(ShardFile { name: p.display().to_string(), results: Results::load(p)? }))
        .collect::<Result<Vec<_>>>()?;
    let command = std::env::args().map(|a| crate::redact::redact(&a)).collect();
    let mut merged = merge(&files, command)?;
    let baseline = merged.options.baseline.clone();
    crate::report::summarize(&mut merged, &baseline)?;
    let json = serde_json::to_string_pretty(&merged).map_err(|e| failed!("cannot encode the merged results: {e}"))?;
    println!("{json}");
    Ok(0)
}
