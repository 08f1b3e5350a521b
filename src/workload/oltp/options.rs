//! The oltp workloads' options: sysbench's `--tables` and `--table-size`.

use crate::options::own::{OptionField, OwnOptions};
use crate::options::parse::{parse_table_size, parse_tables};
use serde::{Deserialize, Serialize};

/// `--tables` and `--table-size`, on `dbrace run` and in results files.
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OltpOptions {
    /// sysbench's --tables: tables sbtest1..N of the oltp workloads
    #[arg(long, value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_tables)]
    #[serde(default = "default_tables")]
    pub tables: u32,
    /// sysbench's --table-size: rows per table of the oltp workloads
    #[arg(long, value_name = "N", default_value = "10000", allow_hyphen_values = true, value_parser = parse_table_size)]
    #[serde(default = "default_table_size")]
    pub table_size: u64,
}

impl Default for OltpOptions {
    /// sysbench's own defaults.
    fn default() -> Self {
        OltpOptions { tables: default_tables(), table_size: default_table_size() }
    }
}

impl OwnOptions for OltpOptions {
    fn sweep_keys(&self) -> &'static [&'static str] {
        &["tables", "table-size"]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "tables" => self.tables = parse_tables(value)?,
            "table-size" => self.table_size = parse_table_size(value)?,
            _ => return Err(format!("unknown oltp option '{key}'")),
        }
        Ok(())
    }

    fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        let value = format!("{} × {} rows", self.tables, self.table_size);
        ran("oltp").then_some(OptionField { label: "oltp tables", value, measures: true }).into_iter().collect()
    }
}

// Also what results files from before these options existed are read with.
fn default_tables() -> u32 {
    1
}

fn default_table_size() -> u64 {
    10_000
}
