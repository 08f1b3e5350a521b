//! The counters workloads' options (`--counters-*`), their parsing and their checks.

use super::buckets::Granularity;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How counters are stored in a SQL engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Schema {
    /// A JSON document per bucket (jsonb, JSON, json1), upserted field by field.
    #[default]
    Json,
    /// A row per counter per bucket, upserted with `value = value + new`.
    Rows,
}

/// How a track reaches a document engine: the two patterns Trifle::Stats' MongoDB docs name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Writes {
    /// The seven buckets' `$inc` upserts in one bulk write.
    #[default]
    Bulk,
    /// One update per bucket: seven round trips.
    PerBucket,
}

/// What one read asks for: the buckets of `granularity` that start in the `span_s`
/// seconds before a bucket boundary (`1d:hour` is the 24 hours of a day).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ReadRange {
    /// Seconds of time read.
    pub span_s: i64,
    /// The buckets read.
    pub granularity: Granularity,
}

impl std::fmt::Display for ReadRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", show_span(self.span_s), self.granularity.name())
    }
}

impl From<ReadRange> for String {
    fn from(r: ReadRange) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for ReadRange {
    type Error = String;
    fn try_from(s: String) -> Result<ReadRange, String> {
        parse_range(&s)
    }
}

impl std::str::FromStr for ReadRange {
    type Err = String;
    fn from_str(s: &str) -> Result<ReadRange, String> {
        parse_range(s)
    }
}

/// Options of the counters workloads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CountersOptions {
    /// Keys (metrics) tracked; each track picks one uniformly.
    pub keys: u32,
    /// Counters a track increments (flattened paths of a nested map).
    pub values: u32,
    /// Seconds of time the tracks' clock moves over during a run (0: one static timestamp).
    pub spread_s: i64,
    /// What one read asks for.
    pub range: ReadRange,
    /// How SQL engines store the counters.
    pub schema: Schema,
    /// How a track reaches a document engine.
    pub writes: Writes,
    /// How the clock moves (from --transactions or --duration; recorded there already).
    #[serde(skip)]
    pub pace: Pace,
}

/// Default keys, values per track, spread and read range.
const DEFAULT_KEYS: u32 = 100;
const DEFAULT_VALUES: u32 = 10;
const DEFAULT_SPREAD_S: i64 = 30 * 86_400;
/// The most counters per track: PostgreSQL functions take 100 arguments (50 pairs in
/// jsonb_build_object), SQLite's json_set 127 by default.
pub const MAX_VALUES: u32 = 50;
/// The most keys: each is a metric name in every track's buckets.
const MAX_KEYS: u32 = 1_000_000;
/// The longest spread or range: a century.
const MAX_SPAN_S: i64 = 100 * 366 * 86_400;

impl Default for CountersOptions {
    fn default() -> Self {
        CountersOptions {
            keys: DEFAULT_KEYS,
            values: DEFAULT_VALUES,
            spread_s: DEFAULT_SPREAD_S,
            range: ReadRange { span_s: 86_400, granularity: Granularity::Hour },
            schema: Schema::Json,
            writes: Writes::Bulk,
            pace: Pace::default(),
        }
    }
}

/// Positions of a clock paced by time.
const TIME_POSITIONS: u64 = 10_000;

/// How the clock moves over the spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// One position per track, over this many tracks per client (`--transactions`).
    Tracks(u64),
    /// Over this measured time (`--duration`), in `TIME_POSITIONS` steps.
    Time(Duration),
}

impl Default for Pace {
    fn default() -> Self {
        Pace::Tracks(1000)
    }
}

impl Pace {
    /// How many positions the clock has.
    pub fn positions(self) -> u64 {
        match self {
            Pace::Tracks(n) => n.max(1),
            Pace::Time(_) => TIME_POSITIONS,
        }
    }
}

/// Where `dbrace run --help` lists them.
const HEADING: &str = "Counters workload options (--workload counters)";

/// `--counters-*` on `dbrace run`.
#[derive(clap::Args, Debug, Clone)]
pub struct CountersArgs {
    /// Keys (metrics) tracked; a track picks one uniformly
    #[arg(help_heading = HEADING, long = "counters-keys", value_name = "N", default_value = "100", allow_hyphen_values = true,
          value_parser = parse_keys)]
    pub keys: u32,
    /// Counters a track increments (nested map flattened to paths such as duration.sum),
    /// e.g. 1, 10 or 25, at most 50
    #[arg(help_heading = HEADING, long = "counters-values", value_name = "N", default_value = "10", allow_hyphen_values = true,
          value_parser = parse_values)]
    pub values: u32,
    /// Time the tracks' clock moves over during a run, e.g. 30d, 12h, 2w (0: every track at
    /// one static timestamp); the read workload's data set covers it too
    #[arg(help_heading = HEADING, long = "counters-spread", value_name = "TIME", default_value = "30d", allow_hyphen_values = true,
          value_parser = parse_spread)]
    pub spread: i64,
    /// What one read asks for: SPAN[:GRANULARITY], the buckets of GRANULARITY (minute, hour,
    /// day, week, month, quarter, year; default hour) starting in SPAN, e.g. 1d, 7d:day, 52w:month
    #[arg(help_heading = HEADING, long = "counters-range", value_name = "SPAN[:GRAN]", default_value = "1d:hour", allow_hyphen_values = true)]
    pub range: ReadRange,
    /// How SQL engines store counters: a JSON document per bucket, or a row per counter
    #[arg(help_heading = HEADING, long = "counters-schema", value_enum, default_value = "json")]
    pub schema: Schema,
    /// How a track reaches a document engine (mongo): one bulk write of the seven buckets'
    /// $inc upserts, or one update per bucket
    #[arg(help_heading = HEADING, long = "counters-writes", value_enum, default_value = "bulk")]
    pub writes: Writes,
}

impl CountersArgs {
    /// The options, with the clock paced by the run's `--transactions` or `--duration`.
    pub fn options(&self, pace: Pace) -> CountersOptions {
        CountersOptions {
            keys: self.keys,
            values: self.values,
            spread_s: self.spread,
            range: self.range,
            schema: self.schema,
            writes: self.writes,
            pace,
        }
    }
}

fn whole(s: &str, what: &str, max: u32) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(v) if (1..=i64::from(max)).contains(&v) => Ok(v as u32),
        Ok(v) if v >= 1 => Err(format!("{what} must be at most {max} (got {s})")),
        Ok(_) => Err(format!("{what} must be at least 1 (got {s})")),
        Err(_) => Err(format!("{what} must be a whole number of at least 1 (got '{s}')")),
    }
}

fn parse_keys(s: &str) -> Result<u32, String> {
    whole(s, "counters-keys", MAX_KEYS)
}

fn parse_values(s: &str) -> Result<u32, String> {
    whole(s, "counters-values", MAX_VALUES)
}

fn parse_spread(s: &str) -> Result<i64, String> {
    parse_span(s, "counters-spread")
}

/// A span of time: a whole number and a unit (s, m, h, d, w); a bare number is seconds.
pub fn parse_span(s: &str, what: &str) -> Result<i64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        u if num.is_empty() || u.starts_with(['-', '.']) => {
            return Err(format!("{what} '{s}' is not a span of time; write a whole number and a unit, e.g. 30d"));
        }
        u => return Err(format!("unknown unit '{u}' in {what} '{s}'; use s, m, h, d or w")),
    };
    let n: i64 = num.parse().map_err(|_| format!("{what} '{s}' is not a span of time; write e.g. 30d or 12h"))?;
    match n.checked_mul(scale) {
        Some(v) if v <= MAX_SPAN_S => Ok(v),
        _ => Err(format!("{what} '{s}' is longer than a century; give a shorter span")),
    }
}

/// The span as its largest whole unit (86400 → 1d).
pub fn show_span(s: i64) -> String {
    for (unit, secs) in [("w", 7 * 86_400), ("d", 86_400), ("h", 3600), ("m", 60)] {
        if s != 0 && s % secs == 0 {
            return format!("{}{unit}", s / secs);
        }
    }
    format!("{s}s")
}

/// `SPAN[:GRANULARITY]`, the granularity hour when not given.
pub fn parse_range(s: &str) -> Result<ReadRange, String> {
    let (span, gran) = s.split_once(':').unwrap_or((s, "hour"));
    let span_s = parse_span(span, "counters-range")?;
    let granularity = Granularity::ALL.into_iter().find(|g| g.name() == gran.trim()).ok_or_else(|| {
        let names: Vec<_> = Granularity::ALL.iter().map(|g| g.name()).collect();
        format!("counters-range '{s}': unknown granularity '{gran}'; use one of {}", names.join(", "))
    })?;
    if span_s < granularity.longest() {
        return Err(format!(
            "counters-range '{s}' is shorter than one {} bucket ({}); give a longer span, e.g. {}:{}",
            granularity.name(),
            show_span(granularity.longest()),
            show_span(granularity.longest()),
            granularity.name()
        ));
    }
    Ok(ReadRange { span_s, granularity })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_ranges() {
        assert_eq!(parse_span("30d", "x").unwrap(), 30 * 86_400);
        assert_eq!(parse_span("0", "x").unwrap(), 0);
        assert_eq!(parse_span("90m", "x").unwrap(), 5400);
        assert_eq!(parse_span("2w", "x").unwrap(), 14 * 86_400);
        for bad in ["", "d", "-1d", "1.5d", "3 parsecs", "1y", "99999999999w"] {
            assert!(parse_span(bad, "x").is_err(), "{bad}");
        }
        let r = parse_range("1d").unwrap();
        assert_eq!((r.span_s, r.granularity), (86_400, Granularity::Hour));
        assert_eq!(r.to_string(), "1d:hour");
        assert_eq!(parse_range("53w:month").unwrap().to_string(), "53w:month");
        assert_eq!(parse_range("90m:minute").unwrap().to_string(), "90m:minute");
        assert!(parse_range("1h:day").unwrap_err().contains("shorter than one day bucket (1d)"));
        assert!(parse_range("28d:month").is_err(), "February is shorter than some months");
        assert!(parse_range("1d:fortnight").unwrap_err().contains("minute, hour, day"));
        let json = serde_json::to_string(&CountersOptions::default()).unwrap();
        assert!(json.contains(r#""range":"1d:hour""#) && json.contains(r#""schema":"json""#), "{json}");
        let back: CountersOptions = serde_json::from_str(&json).unwrap();
        assert_eq!(back, CountersOptions::default());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_values("25").unwrap(), 25);
        assert!(parse_values("51").unwrap_err().contains("at most 50"));
        assert!(parse_values("0").unwrap_err().contains("at least 1"));
        assert!(parse_keys("many").is_err());
    }
}
