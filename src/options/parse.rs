//! Value parsers of counts, data-set sizes, durations and rates: the CLI's flags and
//! `--sweep` values are checked by the same functions, so both refuse a value alike.

use std::time::Duration;

/// A whole number from 1 to `max`; `what` names the option in the message.
pub fn bounded(s: &str, what: &str, max: u64) -> Result<u64, String> {
    match s.trim().parse::<i64>() {
        Ok(v) if v >= 1 && v as u64 <= max => Ok(v as u64),
        Ok(v) if v >= 1 => Err(format!("{what} must be at most {max} (got {s})")),
        Ok(_) => Err(format!("{what} must be at least 1 (got {s})")),
        Err(_) => Err(format!("{what} must be a whole number of at least 1 (got '{s}')")),
    }
}

/// `--clients`: concurrent clients, 1 to 10,000.
pub fn parse_clients(s: &str) -> Result<u32, String> {
    bounded(s, "clients", 10_000).map(|v| v as u32)
}

/// `--threads`: worker threads, 1 to 1,000.
pub fn parse_threads(s: &str) -> Result<u32, String> {
    bounded(s, "threads", 1_000).map(|v| v as u32)
}

/// `--scale`: pgbench scale units, 1 to 100,000.
pub fn parse_scale(s: &str) -> Result<u32, String> {
    bounded(s, "scale", 100_000).map(|v| v as u32)
}

/// `--tables`: oltp tables, 1 to 10,000.
pub fn parse_tables(s: &str) -> Result<u32, String> {
    bounded(s, "tables", 10_000).map(|v| v as u32)
}

/// Ids are SQL integers (32-bit) and a range reads up to id + 99.
pub fn parse_table_size(s: &str) -> Result<u64, String> {
    bounded(s, "table-size", 2_000_000_000)
}

/// Record numbers are hashed into 64-bit keys; two billion keeps a load within reason.
pub fn parse_records(s: &str) -> Result<u64, String> {
    bounded(s, "records", 2_000_000_000)
}

/// `--rows-per-commit`: rows (keys, documents) each insert-commit transaction inserts,
/// 1 to 10,000 (a MongoDB insert of 10,000 documents is 1.7 MB, well within its 16 MB
/// command; a larger one would be split, no longer one batch).
pub fn parse_rows_per_commit(s: &str) -> Result<u32, String> {
    bounded(s, "rows-per-commit", 10_000).map(|v| v as u32)
}

/// Parse a duration: a number with an optional unit (ms, s, m, h); bare numbers are seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a duration; write e.g. 10s, 500ms or 2m"))?;
    let scale = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        u => return Err(format!("unknown unit '{u}' in '{s}'; use ms, s, m or h")),
    };
    if v < 0.0 {
        return Err(format!("'{s}' must not be negative"));
    }
    const WEEK: f64 = 7.0 * 24.0 * 3600.0;
    match v * scale {
        secs if secs <= WEEK => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("'{s}' is longer than a week; give a shorter time")),
    }
}

/// A duration (as `parse_duration`) greater than zero.
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() { Err(format!("'{s}' must be greater than zero")) } else { Ok(d) }
}

/// `--progress`: a duration (bare numbers are seconds) of at least 0.1 s, the
/// coordinator sampling every 20 ms.
pub fn parse_progress(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d >= Duration::from_millis(100) => Ok(d),
        _ => Err(format!("progress lines need an interval of at least 0.1 s (got {s}); e.g. --progress 1")),
    }
}

/// `--log-interval`: a duration greater than zero (bare numbers are seconds).
pub fn parse_log_interval(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d > Duration::ZERO => Ok(d),
        _ => Err(format!("the log interval must be greater than 0 s (got {s}); e.g. --log-interval 1")),
    }
}

/// A rate in transactions per second: positive and finite (fractions allowed, as pgbench).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1e9 => Ok(v),
        Ok(v) if v > 1e9 => Err(format!("rate must be at most 1e9 transactions per second (got {s})")),
        Ok(_) => Err(format!("rate must be greater than 0 transactions per second (got {s}); e.g. --rate 500")),
        Err(_) => Err(format!("rate must be a number of transactions per second (got '{s}'); e.g. --rate 500")),
    }
}

/// A latency limit: milliseconds when bare (as pgbench's -L), or a duration with a unit.
pub fn parse_latency_limit(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let d = match t.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 => return Ok(Duration::from_secs_f64(ms / 1e3)),
        Ok(_) => Duration::ZERO,
        Err(_) => parse_duration(t)?,
    };
    if d.is_zero() {
        Err(format!("latency limit must be greater than 0 ms (got {s}); e.g. --latency-limit 10"))
    } else {
        Ok(d)
    }
}

/// `--transactions`: transactions per client, at least 1.
pub fn parse_count(s: &str) -> Result<u64, String> {
    bounded(s, "transactions", u64::MAX >> 1)
}

/// `--repeat`: repeats per cell, 1 to 1000.
pub fn parse_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "repeat", 1000).map(|v| v as u32)
}

/// `--min-repeat`: 1 to 1000.
pub fn parse_min_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "min-repeat", 1000).map(|v| v as u32)
}

/// `--max-repeat`: 1 to 1000.
pub fn parse_max_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "max-repeat", 1000).map(|v| v as u32)
}

/// `exec --warmup`: untimed runs per profile, 0 to 100.
pub fn parse_warmup_runs(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if v <= 100 => Ok(v),
        _ => Err(format!("warmup must be a number of runs from 0 to 100 (got '{s}')")),
    }
}

/// `--max-tries`: a count of tries, 0 for unlimited.
pub fn parse_max_tries(s: &str) -> Result<u32, String> {
    s.trim().parse().map_err(|_| format!("'{s}' is not a number of tries; e.g. --max-tries 10, or 0 for unlimited"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_tries_are_counts() {
        assert_eq!(parse_max_tries("10").unwrap(), 10);
        assert_eq!(parse_max_tries("0").unwrap(), 0);
        for bad in ["-1", "ten", "", "1.5"] {
            assert!(parse_max_tries(bad).unwrap_err().contains("--max-tries 10"), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3 parsecs").is_err());
        assert!(parse_positive_duration("0s").is_err());
        assert!(parse_duration("100000000000000000000").unwrap_err().contains("week"));
    }

    #[test]
    fn rates_and_limits() {
        assert_eq!(parse_rate("200").unwrap(), 200.0);
        assert_eq!(parse_rate("0.5").unwrap(), 0.5);
        assert!(parse_rate("0").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("-3").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("NaN").is_err());
        assert!(parse_rate("inf").unwrap_err().contains("at most"));
        assert!(parse_rate("fast").unwrap_err().contains("a number"));
        assert_eq!(parse_latency_limit("10").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_latency_limit("0.5").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_latency_limit("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_latency_limit("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_latency_limit("0").unwrap_err().contains("greater than 0"));
        assert!(parse_latency_limit("-1").unwrap_err().contains("greater than 0"));
        assert!(parse_latency_limit("soon").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_clients("4").unwrap(), 4);
        assert!(parse_clients("0").unwrap_err().contains("at least 1"));
        assert!(parse_clients("-2").is_err());
        assert!(parse_clients("two").is_err());
        assert!(parse_clients("20000").unwrap_err().contains("at most 10000"));
        assert!(parse_repeat("5000").is_err());
        assert!(parse_min_repeat("0").unwrap_err().contains("min-repeat must be at least 1"));
        assert!(parse_max_repeat("1001").unwrap_err().contains("max-repeat must be at most 1000"));
    }
}
