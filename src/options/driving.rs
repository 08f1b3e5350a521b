//! How every cell is driven (`Driving`): one value that the flags parse into, that is
//! resolved once (`resolved`), that the runner reads and the results file keeps as it is,
//! under the keys the file has always had (`duration_s`, `warmup_s`, `latency_limit_ms`…).

use super::parse::{parse_count, parse_duration, parse_latency_limit, parse_log_interval, parse_positive_duration};
use super::parse::{parse_max_tries, parse_rate};
use super::shard::{Shard, parse_shard, parse_start_at};
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

/// How clients are driven in every cell of a run.
#[derive(clap::Args, Clone, Debug, Serialize, Deserialize)]
pub struct Driving {
    /// Measured time per repeat, e.g. 10s, 500ms, 2m (a bare number is seconds)
    #[arg(long, short = 'T', value_name = "TIME", default_value = "0.3s", allow_hyphen_values = true,
          value_parser = parse_positive_duration, conflicts_with = "transactions")]
    #[serde(rename = "duration_s", with = "units::secs_opt")]
    pub duration: Option<Duration>,
    /// Measured transactions per client, instead of a duration
    #[arg(long, short = 't', value_name = "N", allow_hyphen_values = true, value_parser = parse_count)]
    pub transactions: Option<u64>,
    /// Unmeasured warm-up before each measurement
    #[arg(long, value_name = "TIME", default_value = "0.1s", allow_hyphen_values = true, value_parser = parse_duration)]
    #[serde(rename = "warmup_s", with = "units::secs")]
    pub warmup: Duration,
    /// Open loop: schedule TPS transactions per second over the clients as Poisson arrivals
    /// (pgbench's -R); latency counts from each transaction's scheduled start
    #[arg(long, value_name = "TPS", allow_hyphen_values = true, value_parser = parse_rate)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// With --rate: count transactions finishing later than MS milliseconds as late, and skip
    /// those already that late when their turn comes (pgbench's -L)
    #[arg(long, value_name = "MS", allow_hyphen_values = true, value_parser = parse_latency_limit)]
    #[serde(rename = "latency_limit_ms", default, skip_serializing_if = "Option::is_none", with = "units::millis_opt")]
    pub latency_limit: Option<Duration>,
    /// Try a transaction that fails with a serialization failure or deadlock up to N times
    /// in all, from its start with the same random values, then count it as failed
    /// (pgbench's --max-tries); 0: until it succeeds or the measured time ends
    /// [default: tried again until it has conflicted for 10 s]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_max_tries)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tries: Option<u32>,
    /// When a client's connection is lost (server restarted, connection killed), count
    /// the transaction as failed, connect again and go on, and count the reconnections
    /// and the time lost; without it the run fails
    #[arg(long)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reconnect: bool,
    /// Launch and load a fresh instance for every repeat, even where the workload lets a
    /// cell keep its server and data set from one repeat to the next
    #[arg(long)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh: bool,
    /// Keep each repeat's transactions, errors and latency histogram per TIME of its
    /// measured phase in the results file (pgbench's --aggregate-interval)
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_log_interval)]
    #[serde(rename = "log_interval_s", default, skip_serializing_if = "Option::is_none", with = "units::secs_opt")]
    pub log_interval: Option<Duration>,
    /// The confidence every interval aims at, e.g. 95% or 0.9 (docs/statistics.md)
    #[arg(long, value_name = "LEVEL", default_value = "95%", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    #[serde(default = "default_level")]
    pub confidence: f64,
    /// Be one of N load generators of the same run against the same --url server: this
    /// process runs shard I's share of the clients and of --rate (I from 0); merge the
    /// shards' results files with `dbrace merge` (docs/distributed.md)
    #[arg(long, value_name = "I/N", allow_hyphen_values = true, value_parser = parse_shard)]
    #[serde(default, skip_serializing_if = "Option::is_none", with = "units::shard_opt")]
    pub shard: Option<Shard>,
    /// Start the measured phase at TIME, an RFC 3339 time or +SECONDS from now, so the
    /// shards' intervals align (the warm-up runs just before it)
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_start_at)]
    #[serde(default, skip_serializing_if = "Option::is_none", with = "units::rfc3339_opt")]
    pub start_at: Option<SystemTime>,
    /// Seed for the clients' random generators [default: from the clock]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl Driving {
    /// As the run drives its cells: a seed drawn (shards given one start time draw the
    /// same streams, as one process would), no duration when transactions are counted,
    /// and slices for every shard, whose file is only merged well with them.
    pub fn resolved(mut self) -> Driving {
        let since_epoch = |t: SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let clock = self
            .start_at
            .map_or_else(|| since_epoch(SystemTime::now()).as_nanos() as u64, |t| since_epoch(t).as_secs());
        self.seed = Some(self.seed.unwrap_or(clock.max(1)));
        let slice = self.duration.unwrap_or(Duration::from_secs(1)).min(Duration::from_secs(1));
        self.log_interval = self.log_interval.or(self.shard.map(|_| slice));
        if self.transactions.is_some() {
            self.duration = None;
        }
        self
    }

    /// The measured time per repeat the flags give (none once resolved for a run that
    /// counts transactions).
    pub fn per_repeat(&self) -> Duration {
        self.duration.unwrap_or_default()
    }

    /// The base seed of the clients' generators (0 before `resolved`).
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_default()
    }
}

/// Files from before `confidence` was recorded aimed at 95%.
fn default_level() -> f64 {
    crate::stats::LEVEL
}

/// The file's units: durations in seconds or milliseconds, times in RFC 3339, a shard as
/// `I/N`.
mod units {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::time::{Duration, SystemTime};

    /// A duration as seconds.
    pub mod secs {
        use super::*;
        pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
            d.as_secs_f64().serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
            super::duration(f64::deserialize(d)?, 1.0)
        }
    }

    /// A duration, if any, as seconds.
    pub mod secs_opt {
        use super::*;
        pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
            d.map(|d| d.as_secs_f64()).serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            Option::<f64>::deserialize(d)?.map(|v| super::duration(v, 1.0)).transpose()
        }
    }

    /// A duration, if any, as milliseconds.
    pub mod millis_opt {
        use super::*;
        pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
            d.map(|d| d.as_secs_f64() * 1e3).serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            Option::<f64>::deserialize(d)?.map(|v| super::duration(v, 1e-3)).transpose()
        }
    }

    /// A time, if any, in RFC 3339 with milliseconds.
    pub mod rfc3339_opt {
        use super::*;
        pub fn serialize<S: Serializer>(t: &Option<SystemTime>, s: S) -> Result<S::Ok, S::Error> {
            t.map(|t| humantime::format_rfc3339_millis(t).to_string()).serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SystemTime>, D::Error> {
            let text = Option::<String>::deserialize(d)?;
            text.map(|t| humantime::parse_rfc3339_weak(&t).map_err(serde::de::Error::custom)).transpose()
        }
    }

    /// A shard, if any, as `I/N`.
    pub mod shard_opt {
        use super::*;
        use crate::options::shard::{Shard, parse_shard};
        pub fn serialize<S: Serializer>(t: &Option<Shard>, s: S) -> Result<S::Ok, S::Error> {
            t.map(|t| t.label()).serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Shard>, D::Error> {
            let text = Option::<String>::deserialize(d)?;
            text.map(|t| parse_shard(&t).map_err(serde::de::Error::custom)).transpose()
        }
    }

    /// `value` times `unit` seconds, refused when it is no duration.
    fn duration<E: serde::de::Error>(value: f64, unit: f64) -> Result<Duration, E> {
        Duration::try_from_secs_f64(value * unit).map_err(|e| E::custom(format!("{value}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        driving: Driving,
    }

    fn parsed(args: &[&str]) -> Driving {
        Flags::parse_from(std::iter::once("dbrace").chain(args.iter().copied())).driving.resolved()
    }

    /// What the flags give is what the file keeps, under its keys and in its units, and
    /// read back the same.
    #[test]
    fn the_flags_are_kept_under_the_files_keys() {
        let d = parsed(&["-T", "2s", "--rate", "500", "--latency-limit", "20", "--shard", "1/3", "--seed", "7"]);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["duration_s"], 2.0);
        assert_eq!(v["warmup_s"], 0.1);
        assert_eq!(v["latency_limit_ms"], 20.0);
        assert_eq!(v["shard"], "1/3");
        assert_eq!(v["log_interval_s"], 1.0, "a shard keeps slices");
        assert_eq!((v["seed"].as_u64(), v["confidence"].as_f64()), (Some(7), Some(0.95)));
        assert!(v.get("reconnect").is_none() && v.get("start_at").is_none(), "{v}");
        let back: Driving = serde_json::from_value(v).unwrap();
        assert_eq!((back.duration, back.latency_limit), (d.duration, d.latency_limit));
        assert_eq!(back.shard, d.shard);
    }

    /// Counting transactions leaves no duration; no seed given draws one.
    #[test]
    fn resolving_fills_what_the_run_decides() {
        let d = parsed(&["-t", "100"]);
        assert_eq!((d.duration, d.transactions), (None, Some(100)));
        assert!(d.seed.is_some_and(|s| s > 0));
        let v = serde_json::to_value(&d).unwrap();
        assert!(v["duration_s"].is_null(), "{v}");
    }
}
