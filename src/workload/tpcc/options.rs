//! The tpcc workload's options: `--warehouses`, `--tpcc-mix` and `--tpcc-think`.

use crate::options::own::{OptionField, OwnOptions};
use crate::options::parse::bounded;
use serde::{Deserialize, Serialize};

/// The five transaction types, in the order `--tpcc-mix` weighs them.
pub const TYPES: [&str; 5] = ["new-order", "payment", "order-status", "delivery", "stock-level"];

/// The specification's mix (clause 5.2.3): New-Order takes what the others leave.
const STANDARD_MIX: [u32; 5] = [45, 43, 4, 4, 4];

/// `--warehouses`, `--tpcc-mix` and `--tpcc-think`, on `dbrace run` and in results files.
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TpccOptions {
    /// tpcc: warehouses (W); each holds 10 districts, 30,000 customers and 100,000 stock rows
    #[arg(long, value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_warehouses)]
    #[serde(default = "default_warehouses", skip_serializing_if = "is_one")]
    pub warehouses: u32,
    /// tpcc: percentages of new-order, payment, order-status, delivery, stock-level
    /// (five numbers that add up to 100)
    #[arg(long, value_name = "N,N,N,N,N", default_value = "45,43,4,4,4", value_parser = parse_mix)]
    #[serde(default = "default_mix", skip_serializing_if = "is_standard")]
    pub tpcc_mix: Mix,
    /// tpcc: the specification's keying and think times, each client a terminal of one
    /// warehouse and district (give 10 clients per warehouse for its load)
    #[arg(long)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tpcc_think: bool,
}

/// Percentages of the five transaction types, in `TYPES`' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mix(pub [u32; 5]);

impl Mix {
    /// The type a draw from 1 to 100 falls on.
    pub fn pick(&self, draw: u32) -> usize {
        let mut upto = 0;
        for (i, w) in self.0.iter().enumerate() {
            upto += w;
            if draw <= upto {
                return i;
            }
        }
        0
    }
}

impl std::fmt::Display for Mix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

impl Default for TpccOptions {
    /// One warehouse, the specification's mix.
    fn default() -> Self {
        TpccOptions { warehouses: default_warehouses(), tpcc_mix: default_mix(), tpcc_think: false }
    }
}

impl OwnOptions for TpccOptions {
    fn sweep_keys(&self) -> &'static [&'static str] {
        &["warehouses"]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "warehouses" => self.warehouses = parse_warehouses(value)?,
            _ => return Err(format!("unknown tpcc option '{key}'")),
        }
        Ok(())
    }

    fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        if !ran("tpcc") {
            return Vec::new();
        }
        vec![
            OptionField { label: "tpcc warehouses", value: self.warehouses.to_string(), measures: true },
            OptionField { label: "tpcc mix", value: self.tpcc_mix.to_string(), measures: true },
            OptionField { label: "tpcc think times", value: on_off(self.tpcc_think).into(), measures: true },
        ]
    }
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// `--warehouses`: 1 to 10,000 (about 100 MB each).
pub fn parse_warehouses(s: &str) -> Result<u32, String> {
    bounded(s, "warehouses", 10_000).map(|v| v as u32)
}

/// `--tpcc-mix`: five whole percentages that add up to 100.
pub fn parse_mix(s: &str) -> Result<Mix, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || format!("--tpcc-mix takes five percentages that add up to 100 ({}), not '{s}'", TYPES.join(", "));
    if parts.len() != 5 {
        return Err(bad());
    }
    let mut mix = [0u32; 5];
    for (m, p) in mix.iter_mut().zip(&parts) {
        *m = p.parse().map_err(|_| bad())?;
    }
    if mix.iter().sum::<u32>() != 100 {
        return Err(bad());
    }
    Ok(Mix(mix))
}

// Also what results files from before these options existed are read with; the
// defaults are left out of them, so files of runs without tpcc keep their keys.
fn default_warehouses() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_standard(m: &Mix) -> bool {
    *m == default_mix()
}

fn default_mix() -> Mix {
    Mix(STANDARD_MIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mix_is_five_percentages_and_draws_fall_in_their_bands() {
        let m = parse_mix("45, 43,4,4,4").unwrap();
        assert_eq!(m, Mix(STANDARD_MIX));
        assert_eq!([1, 45, 46, 88, 89, 92, 93, 96, 97, 100].map(|d| m.pick(d)), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(parse_mix("0,0,0,0,100").unwrap().pick(1), 4);
        for bad in ["45,43,4,4", "45,43,4,4,5", "a,b,c,d,e", ""] {
            assert!(parse_mix(bad).unwrap_err().contains("five percentages"), "{bad}");
        }
    }
}
