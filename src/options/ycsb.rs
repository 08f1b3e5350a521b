//! The ycsb workloads' options: the request distribution and the default record count.

use serde::{Deserialize, Serialize};

/// Records loaded when `--records` is not given: see docs/workloads.md, YCSB.
pub const DEFAULT_RECORDS: u64 = 10_000;

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
