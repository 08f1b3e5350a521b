//! `--shard I/N` and `--start-at TIME`: one of N load-generating processes of the same
//! run, its share of the clients, and the moment every shard starts measuring.

use std::ops::Range;
use std::time::{Duration, SystemTime};

/// One of `count` processes that together drive what one process would (`--shard I/N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This process, from 0.
    pub index: u32,
    /// How many processes share the run.
    pub count: u32,
}

impl Shard {
    /// This shard's clients of a cell of `clients`, as global client numbers: consecutive,
    /// the first `clients % count` shards one more, so the shards' ranges tile `0..clients`.
    pub fn clients(&self, clients: u32) -> Range<u32> {
        let (each, extra) = (clients / self.count, clients % self.count);
        let start = self.index * each + self.index.min(extra);
        start..start + each + u32::from(self.index < extra)
    }

    /// `I/N` as the command line writes it.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// `--shard I/N`: I from 0 to N − 1, N from 1 to 10,000.
pub fn parse_shard(s: &str) -> Result<Shard, String> {
    let fix = "write I/N with 0 <= I < N, e.g. --shard 0/3 for the first of three";
    let (i, n) = s.trim().split_once('/').ok_or_else(|| format!("shard '{s}' is not I/N; {fix}"))?;
    let num = |v: &str| v.trim().parse::<u32>().map_err(|_| format!("shard '{s}': '{v}' is not a whole number; {fix}"));
    let (index, count) = (num(i)?, num(n)?);
    if count == 0 || count > 10_000 {
        return Err(format!("shard '{s}': N must be from 1 to 10000; {fix}"));
    }
    if index >= count {
        return Err(format!("shard '{s}': I must be below N (shards are numbered from 0); {fix}"));
    }
    Ok(Shard { index, count })
}

/// `--start-at`: an RFC 3339 time (`2026-12-01T20:00:00Z`), or `+SECONDS` from now.
pub fn parse_start_at(s: &str) -> Result<SystemTime, String> {
    let t = s.trim();
    if let Some(secs) = t.strip_prefix('+') {
        return match secs.parse::<f64>() {
            Ok(v) if v.is_finite() && (0.0..=7.0 * 86400.0).contains(&v) => {
                Ok(SystemTime::now() + Duration::from_secs_f64(v))
            }
            _ => Err(format!("start-at '{s}': give +SECONDS from now (0 to a week), e.g. +30")),
        };
    }
    humantime::parse_rfc3339_weak(t)
        .map_err(|e| format!("start-at '{s}' is not an RFC 3339 time ({e}); write e.g. 2026-12-01T20:00:00Z or +30"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_the_clients_in_order() {
        for (clients, count) in [(3, 3), (10, 3), (7, 2), (5, 1), (4, 4), (100, 7)] {
            let mut next = 0;
            for index in 0..count {
                let r = Shard { index, count }.clients(clients);
                assert_eq!(r.start, next, "{clients} over {count}");
                assert!(r.len() as u32 >= clients / count && r.len() as u32 <= clients / count + 1);
                next = r.end;
            }
            assert_eq!(next, clients);
        }
        assert_eq!(Shard { index: 2, count: 3 }.clients(2), 2..2, "too few clients leave a shard none");
    }

    #[test]
    fn bad_shards_name_the_form() {
        assert_eq!(parse_shard("1/3"), Ok(Shard { index: 1, count: 3 }));
        for bad in ["3/3", "0/0", "x", "1", "-1/3", "1/x", "2/1", ""] {
            assert!(parse_shard(bad).unwrap_err().contains("I/N"), "{bad}");
        }
    }

    #[test]
    fn start_at_takes_rfc3339_or_seconds_from_now() {
        let t = parse_start_at("2026-12-01T20:00:00Z").unwrap();
        assert_eq!(t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs(), 1_796_155_200);
        let soon = parse_start_at("+2.5").unwrap().duration_since(SystemTime::now()).unwrap();
        assert!(soon > Duration::from_secs(2) && soon <= Duration::from_millis(2500), "{soon:?}");
        for bad in ["tomorrow", "+x", "+-1", "2026-13-01T00:00:00Z"] {
            assert!(parse_start_at(bad).is_err(), "{bad}");
        }
    }
}
