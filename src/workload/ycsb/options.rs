//! The ycsb workloads' options: the record count and the request distribution.

use crate::options::own::{OptionField, OwnOptions};
use crate::options::parse::parse_records;
use serde::{Deserialize, Serialize};

/// Records loaded when `--records` is not given: see docs/workloads.md, YCSB.
pub const DEFAULT_RECORDS: u64 = 10_000;

/// `--records` and `--distribution`, on `dbrace run` and in results files.
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct YcsbOptions {
    /// YCSB's recordcount: records loaded into usertable by the ycsb workloads
    #[arg(long, value_name = "N", default_value = "10000", allow_hyphen_values = true, value_parser = parse_records)]
    #[serde(default = "default_records")]
    pub records: u64,
    /// YCSB's requestdistribution for the ycsb workloads: zipfian, uniform or latest
    /// [default: latest for ycsb-d, zipfian for the others, as YCSB's workload files]
    #[arg(long, value_name = "DIST")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
}

impl Default for YcsbOptions {
    /// 10,000 records; each workload file's own distribution.
    fn default() -> Self {
        YcsbOptions { records: DEFAULT_RECORDS, distribution: None }
    }
}

impl OwnOptions for YcsbOptions {
    fn sweep_keys(&self) -> &'static [&'static str] {
        &["records"]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "records" => self.records = parse_records(value)?,
            _ => return Err(format!("unknown ycsb option '{key}'")),
        }
        Ok(())
    }

    fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        if !ran("ycsb") {
            return Vec::new();
        }
        let d = self.distribution.map_or("each workload's own", |d| d.name());
        vec![
            OptionField { label: "ycsb records", value: self.records.to_string(), measures: true },
            OptionField { label: "ycsb distribution", value: d.to_string(), measures: true },
        ]
    }
}

// Also what results files from before `--records` existed are read with.
fn default_records() -> u64 {
    DEFAULT_RECORDS
}

/// Which records operations touch (YCSB's requestdistribution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// Scrambled zipfian, θ = 0.99: a few popular records scattered over the key space.
    Zipfian,
    /// Every loaded record alike.
    Uniform,
    /// The newest records most.
    Latest,
}

impl Distribution {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Zipfian => "zipfian",
            Distribution::Uniform => "uniform",
            Distribution::Latest => "latest",
        }
    }
}

impl std::str::FromStr for Distribution {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "zipfian" => Ok(Distribution::Zipfian),
            "uniform" => Ok(Distribution::Uniform),
            "latest" => Ok(Distribution::Latest),
            _ => Err(format!("unknown distribution '{s}'; use zipfian, uniform or latest")),
        }
    }
}
