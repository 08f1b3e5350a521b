//! What every workload may read (`WorkloadOptions`) and what its verify gives back
//! (`Verdict`): both are recorded in results files.

use super::{counters, ycsb};
use serde::{Deserialize, Serialize};

/// Options every workload may read.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkloadOptions {
    /// Data set size in pgbench scale units (100,000 accounts each).
    pub scale: u32,
    /// Tables of the oltp workloads, sbtest1..N (sysbench's --tables).
    pub tables: u32,
    /// Rows per table of the oltp workloads (sysbench's --table-size).
    pub table_size: u64,
    /// Per-statement (per-operation) latency while measured (`--report-per-statement`).
    pub per_statement: bool,
    // ycsb: --records, --distribution.
    /// Records in the ycsb workloads' usertable (YCSB's recordcount).
    pub records: u64,
    /// The ycsb workloads' request distribution; `None`: each workload file's own.
    pub distribution: Option<ycsb::Distribution>,
    /// Options of the counters workloads (`--counters-*`).
    pub counters: counters::CountersOptions,
}

impl Default for WorkloadOptions {
    /// pgbench's and sysbench's own defaults; 10,000 YCSB records (see ycsb::DEFAULT_RECORDS).
    fn default() -> Self {
        WorkloadOptions {
            scale: 1,
            tables: 1,
            table_size: 10_000,
            per_statement: false,
            records: ycsb::DEFAULT_RECORDS,
            distribution: None,
            counters: Default::default(),
        }
    }
}

impl WorkloadOptions {
    /// The options `--sweep` can vary, by their command-line names.
    pub const KEYS: &'static [&'static str] = &["scale", "tables", "table-size", "records"];

    /// Set one option from its command-line name and text, checked as the flag is.
    pub fn set(&mut self, key: &str, value: &str) -> std::result::Result<(), String> {
        use super::parse::{parse_records, parse_scale, parse_table_size, parse_tables};
        match key {
            "scale" => self.scale = parse_scale(value)?,
            "tables" => self.tables = parse_tables(value)?,
            "table-size" => self.table_size = parse_table_size(value)?,
            "records" => self.records = parse_records(value)?,
            _ => return Err(format!("unknown workload option '{key}'; options: {}", Self::KEYS.join(", "))),
        }
        Ok(())
    }
}

/// The outcome of a workload's consistency check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the invariant holds.
    pub ok: bool,
    /// What was compared, in numbers.
    pub detail: String,
}
