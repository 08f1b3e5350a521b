//! The size of pgbench's tables: what tpcb, select-only, simple-update and the script
//! workloads' `--script-data pgbench` load.

use crate::options::own::{OptionField, OwnOptions};
use crate::options::parse::parse_scale;
use serde::{Deserialize, Serialize};

/// `--scale`, on `dbrace run` and in results files.
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TpcbOptions {
    /// pgbench scale: 100,000 accounts per unit
    #[arg(long, short = 's', value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_scale)]
    pub scale: u32,
}

impl Default for TpcbOptions {
    /// pgbench's own default.
    fn default() -> Self {
        TpcbOptions { scale: 1 }
    }
}

impl OwnOptions for TpcbOptions {
    fn sweep_keys(&self) -> &'static [&'static str] {
        &["scale"]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "scale" => self.scale = parse_scale(value)?,
            _ => return Err(format!("unknown pgbench option '{key}'")),
        }
        Ok(())
    }

    /// Listed whatever ran: script workloads load these tables too.
    fn fields(&self, _ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        vec![OptionField { label: "scale", value: self.scale.to_string(), measures: true }]
    }
}
