//! The baseline ratios are taken against: `PROFILE`, or `ENGINE:PROFILE` to compare engines.

use crate::error::Result;

/// A parsed baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    engine: Option<String>,
    profile: String,
}

impl Baseline {
    /// Parse `PROFILE` or `ENGINE:PROFILE`.
    pub fn parse(s: &str) -> Baseline {
        match s.split_once(':') {
            Some((e, p)) => Baseline { engine: Some(e.to_string()), profile: p.to_string() },
            None => Baseline { engine: None, profile: s.to_string() },
        }
    }

    /// Whether a cell of `engine` with `profile` is a baseline cell; `disk` also names the
    /// sweep variants `disk+KEY=VALUE` (the first of them is the baseline of the others).
    pub fn matches(&self, engine: &str, profile: &str) -> bool {
        let same = profile == self.profile
            || (!self.profile.contains('+') && profile.strip_prefix(&self.profile).is_some_and(|r| r.starts_with('+')));
        same && self.engine.as_deref().is_none_or(|e| e == engine)
    }

    /// Refuse a baseline no cell has, listing the ones that exist.
    pub fn validate<'a>(&self, cells: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Result<()> {
        if cells.clone().any(|(e, p)| self.matches(e, p)) {
            return Ok(());
        }
        let mut have: Vec<String> = cells.map(|(e, p)| format!("{e}:{p}")).collect();
        have.sort();
        have.dedup();
        Err(bad_input!("baseline '{self}' is not a cell of this run; choose one of: {}", have.join(", ")))
    }
}

/// What decides a cell's baseline: its engine, profile, workload and clients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key<'a> {
    /// The engine's name.
    pub engine: &'a str,
    /// The profile's name.
    pub profile: &'a str,
    /// The workload's name.
    pub workload: &'a str,
    /// Concurrent clients.
    pub clients: u32,
}

impl Baseline {
    /// The baseline cell of each cell: same workload and clients, the baseline profile on
    /// the same engine when it has one, else on the first engine that does; only cells
    /// for which `measured` holds can be one.
    pub fn of_each(&self, cells: &[Key], measured: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
        let is_base = |c: &Key, j: usize, same_engine: bool| {
            let x = &cells[j];
            x.workload == c.workload
                && x.clients == c.clients
                && self.matches(x.engine, x.profile)
                && (!same_engine || x.engine == c.engine)
                && measured(j)
        };
        cells
            .iter()
            .map(|c| {
                (0..cells.len())
                    .find(|&j| is_base(c, j, true))
                    .or_else(|| (0..cells.len()).find(|&j| is_base(c, j, false)))
            })
            .collect()
    }
}

impl std::fmt::Display for Baseline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.engine {
            Some(e) => write!(f, "{e}:{}", self.profile),
            None => f.write_str(&self.profile),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_match_and_validate() {
        let cells = [("sqlite", "disk"), ("sqlite", "ram"), ("memory", "unlogged")];
        let b = Baseline::parse("ram");
        assert!(b.matches("sqlite", "ram") && !b.matches("sqlite", "disk"));
        assert!(b.validate(cells.iter().copied()).is_ok());
        let b = Baseline::parse("memory:unlogged");
        assert!(b.matches("memory", "unlogged") && !b.matches("sqlite", "unlogged"));
        // A profile names its sweep variants too.
        assert!(Baseline::parse("ram").matches("postgres", "ram+shared_buffers=1GB"));
        assert!(!Baseline::parse("ram").matches("postgres", "ram-nosync"));
        let e = Baseline::parse("sqlite:nosync").validate(cells.iter().copied()).unwrap_err().to_string();
        assert!(e.contains("memory:unlogged, sqlite:disk, sqlite:ram"), "{e}");
    }
}
