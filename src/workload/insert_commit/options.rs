//! insert-commit's option: how many rows (keys, documents) each transaction inserts.

use crate::options::own::{OptionField, OwnOptions};
use crate::options::parse::parse_rows_per_commit;
use serde::{Deserialize, Serialize};

/// The sweep key and flag of the one option.
pub const KEY: &str = "rows-per-commit";

/// The workload's name, which reads the option.
pub const WORKLOAD: &str = "insert-commit";

/// `--rows-per-commit`, on `dbrace run` and in results files (recorded only when not 1,
/// so files of runs without it read as they always did).
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InsertCommitOptions {
    /// Rows insert-commit inserts per transaction: N single-row INSERTs between BEGIN and
    /// COMMIT, N SETs in one MULTI/EXEC, one insert of N documents
    #[arg(long, value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_rows_per_commit)]
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub rows_per_commit: u32,
}

impl Default for InsertCommitOptions {
    /// One row per commit: what insert-commit measures, the cost of a commit.
    fn default() -> Self {
        InsertCommitOptions { rows_per_commit: one() }
    }
}

impl OwnOptions for InsertCommitOptions {
    fn sweep_keys(&self) -> &'static [&'static str] {
        &[KEY]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            KEY => self.rows_per_commit = parse_rows_per_commit(value)?,
            _ => return Err(format!("unknown insert-commit option '{key}'")),
        }
        Ok(())
    }

    fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        let value = self.rows_per_commit.to_string();
        ran(WORKLOAD).then_some(OptionField { label: "rows per commit", value, measures: true }).into_iter().collect()
    }
}

// Also what results files from before this option existed are read with.
fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_out_of_range_is_refused() {
        assert!(InsertCommitOptions::default().set(KEY, "0").unwrap_err().contains("at least 1"));
        assert!(InsertCommitOptions::default().set(KEY, "ten").unwrap_err().contains("whole number"));
        assert!(InsertCommitOptions::default().set(KEY, "10001").unwrap_err().contains("at most 10000"));
    }
}
