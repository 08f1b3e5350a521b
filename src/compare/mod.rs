//! `dbrace compare OLD NEW`: the cells two results files share (same id), new against old:
//! the ratio of tps medians with its distribution-free interval at the level asked, and the
//! verdict that interval gives, which is the Mann–Whitney U test's over the repeats' tps
//! (stats/shift.rs; mann_whitney.rs says why that test).

pub mod gate;

use crate::error::Result;
use crate::results::{CellResult, Results, RunStatus};
use crate::stats::mann_whitney;
use crate::stats::{self, Estimate, Ratio};
use serde::Serialize;
use std::path::Path;

/// What the repeats say about a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Significantly slower: the ratio's interval lies below 1.
    Slower,
    /// Significantly faster.
    Faster,
    /// The repeats cannot tell the files apart.
    NoSignificantDifference,
    /// Too few repeats for an interval at the level asked (the U test could never reject).
    NotEnoughRepeats,
    /// No measured repeat in one of the files.
    NotMeasured,
}

/// One cell in both files.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// engine/profile/workload/cN.
    pub id: String,
    /// tps of the old file's measured repeats.
    pub old: Option<Estimate>,
    /// tps of the new file's measured repeats.
    pub new: Option<Estimate>,
    /// new / old, ratio of medians with its interval and the level it has.
    pub ratio: Option<Ratio>,
    /// Two-sided p-value of the U test.
    pub p: Option<f64>,
    /// The smallest p these repeat counts allow.
    pub min_p: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// Significantly slower by more than `--fail-if-slower`.
    pub regression: bool,
}

/// Everything `compare` found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The old file, as given.
    pub old: String,
    /// The new file, as given.
    pub new: String,
    /// `--fail-if-slower` as a fraction (0.05 for 5%).
    pub fail_if_slower: Option<f64>,
    /// The confidence the intervals aim at (`--confidence`).
    pub confidence: f64,
    /// The shared cells, in the new file's order.
    pub cells: Vec<Comparison>,
    /// Cells only the old file has.
    pub only_old: Vec<String>,
    /// Cells only the new file has.
    pub only_new: Vec<String>,
    /// Differences between the runs that bear on the comparison.
    pub notes: Vec<String>,
}

impl Report {
    /// The cells that fail the `--fail-if-slower` gate.
    pub fn regressions(&self) -> Vec<&Comparison> {
        self.cells.iter().filter(|c| c.regression).collect()
    }
}

/// Read both files, refusing a pair of different schema versions by name.
pub fn load(old: &Path, new: &Path) -> Result<(Results, Results)> {
    let schema = |p: &Path| -> Option<u64> {
        let text = std::fs::read_to_string(p).ok()?;
        serde_json::from_str::<serde_json::Value>(&text).ok()?.get("schema")?.as_u64()
    };
    if let (Some(a), Some(b)) = (schema(old), schema(new))
        && a != b
    {
        return Err(bad_input!(
            "{} has results schema {a} and {} schema {b}; compare files of one schema (re-run the older matrix with this dbrace)",
            old.display(),
            new.display()
        ));
    }
    Ok((Results::load(old)?, Results::load(new)?))
}

fn tps(c: &CellResult) -> Vec<f64> {
    c.repeats.iter().filter(|r| r.status.measured()).map(|r| r.tps).collect()
}

/// What one cell's repeats in two files say at confidence `level`: new / old with its
/// interval, the U test's p, and the verdict (the interval's).
pub fn judge(old: &[f64], new: &[f64], level: f64) -> (Option<Ratio>, Option<f64>, Verdict) {
    let test = mann_whitney::test(new, old);
    let ratio = (!old.is_empty() && !new.is_empty()).then(|| stats::ratio(new, old, level));
    let verdict = match (test, ratio) {
        (None, _) | (_, None) => Verdict::NotMeasured,
        (_, Some(r)) => match r.verdict {
            stats::Verdict::Slower => Verdict::Slower,
            stats::Verdict::Faster => Verdict::Faster,
            stats::Verdict::NoSignificantDifference => Verdict::NoSignificantDifference,
            stats::Verdict::TooFewRepeats => Verdict::NotEnoughRepeats,
        },
    };
    (ratio, test.map(|t| t.p), verdict)
}

/// Compare the cells `old` and `new` share at confidence `level`; `fail_if_slower` is a
/// fraction.
pub fn compare(
    old: &Results,
    new: &Results,
    names: (&str, &str),
    fail_if_slower: Option<f64>,
    level: f64,
) -> Result<Report> {
    let mut cells = Vec::new();
    for n in &new.cells {
        let Some(o) = old.cells.iter().find(|o| o.id == n.id) else { continue };
        let (a, b) = (tps(o), tps(n));
        let min_p = mann_whitney::min_p(b.len(), a.len());
        let (ratio, p, verdict) = judge(&a, &b, level);
        let regression =
            verdict == Verdict::Slower && fail_if_slower.zip(ratio).is_some_and(|(limit, r)| r.value < 1.0 - limit);
        cells.push(Comparison {
            id: n.id.clone(),
            old: (!a.is_empty()).then(|| stats::estimate(&a, level)),
            new: (!b.is_empty()).then(|| stats::estimate(&b, level)),
            ratio,
            p,
            min_p,
            verdict,
            regression,
        });
    }
    if cells.is_empty() {
        let ids = |r: &Results| {
            let mut v: Vec<&str> = r.cells.iter().map(|c| c.id.as_str()).take(3).collect();
            if r.cells.len() > 3 {
                v.push("…");
            }
            if v.is_empty() { "none".to_string() } else { v.join(", ") }
        };
        return Err(bad_input!(
            "{} and {} have no cell in common ({} vs {}); compare runs of the same matrix",
            names.0,
            names.1,
            ids(old),
            ids(new)
        ));
    }
    let only = |a: &Results, b: &Results| -> Vec<String> {
        a.cells.iter().filter(|c| !b.cells.iter().any(|x| x.id == c.id)).map(|c| c.id.clone()).collect()
    };
    Ok(Report {
        old: names.0.to_string(),
        new: names.1.to_string(),
        fail_if_slower,
        confidence: level,
        only_old: only(old, new),
        only_new: only(new, old),
        notes: differences(old, new, names),
        cells,
    })
}

/// How the two runs differ in what they measured or where: worth knowing before
/// believing a ratio.
fn differences(old: &Results, new: &Results, names: (&str, &str)) -> Vec<String> {
    let mut n = Vec::new();
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            n.push(format!("{what} differs: {x} in old, {y} in new"));
        }
    };
    let fields = crate::workload::options::fields_of(new);
    for was in crate::workload::options::fields_of(old).into_iter().filter(|f| f.measures) {
        if let Some(now) = fields.iter().find(|f| f.label == was.label) {
            differ(was.label, was.value, now.value.clone());
        }
    }
    let host = |r: &Results| format!("{} CPUs {}, kernel {}", r.host.cpus, r.host.cpu_model, r.host.kernel);
    differ("machine", host(old), host(new));
    let versions = |r: &Results| {
        let mut v: Vec<String> = r
            .cells
            .iter()
            .flat_map(|c| {
                c.repeats
                    .iter()
                    .filter(|x| !x.engine_version.is_empty())
                    .map(|x| format!("{} {}", c.engine, x.engine_version))
            })
            .collect();
        v.sort();
        v.dedup();
        v.join(", ")
    };
    differ("engine versions", versions(old), versions(new));
    for (r, name) in [(old, names.0), (new, names.1)] {
        if r.status != RunStatus::Complete {
            let status = format!("{:?}", r.status).to_lowercase();
            n.push(format!("{name}: run {status}; only its finished repeats are compared"));
        }
    }
    n
}

/// Parse `--fail-if-slower`: `5%` or `5` (percent) to a fraction.
pub fn parse_percent(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a percentage; write e.g. 5%"))?;
    if !(v > 0.0 && v < 100.0) {
        return Err(format!("'{s}' must be above 0% and below 100%"));
    }
    Ok(v / 100.0)
}

#[cfg(test)]
mod tests {
    use super::parse_percent;

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("5%").unwrap(), 0.05);
        assert_eq!(parse_percent("12.5").unwrap(), 0.125);
        assert!(parse_percent("0%").is_err() && parse_percent("100").is_err() && parse_percent("five").is_err());
    }
}
