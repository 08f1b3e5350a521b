//! `compare --fail-if-rises` / `--fail-if-falls`: a gate on a named figure of each cell's
//! summary (`cost.fsyncs`, `latency_ms.p99`, `tpmc`, `tps`), as k6's thresholds gate a metric.

use crate::error::Result;
use crate::results::Results;

/// Which way a figure must not move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Fail when it rises (costs, latency).
    Rises,
    /// Fail when it falls (throughput).
    Falls,
}

/// One gate: a figure, the way it must not move, and by how much it may (a fraction).
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    /// A path in the cell's summary, dots between its keys: `cost.fsyncs`.
    pub figure: String,
    /// The way it must not move.
    pub direction: Direction,
    /// The change allowed, as a fraction of the old value (0: none).
    pub allowed: f64,
}

impl Gate {
    /// `FIGURE` or `FIGURE:PERCENT` (`cost.fsyncs`, `latency_ms.p99:10%`).
    pub fn parse(text: &str, direction: Direction) -> std::result::Result<Gate, String> {
        let (figure, allowed) = match text.split_once(':') {
            Some((f, pct)) => {
                let v: f64 = pct
                    .trim()
                    .trim_end_matches('%')
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{pct}' is not a percentage; write e.g. {f}:10%"))?;
                if !(v >= 0.0 && v.is_finite()) {
                    return Err(format!("'{pct}' must be 0% or more"));
                }
                (f, v / 100.0)
            }
            None => (text, 0.0),
        };
        let shaped = !figure.is_empty() && figure.split('.').all(|k| !k.is_empty());
        if !shaped {
            return Err(format!("'{text}' names no figure; write e.g. cost.fsyncs or latency_ms.p99:10%"));
        }
        Ok(Gate { figure: figure.to_string(), direction, allowed })
    }

    /// The cells of `new` whose figure moved past the gate against the same cell of `old`,
    /// in words; a figure neither file has is bad input.
    pub fn breaches(&self, old: &Results, new: &Results) -> Result<Vec<String>> {
        let mut found = false;
        let mut out = Vec::new();
        for cell in &new.cells {
            let Some(before) = old.cells.iter().find(|c| c.id == cell.id) else { continue };
            let (Some(a), Some(b)) = (figure(before, &self.figure), figure(cell, &self.figure)) else { continue };
            found = true;
            if self.breached(a, b) {
                out.push(format!("{}: {} {} → {}", cell.id, self.figure, num(a), num(b)));
            }
        }
        if !found {
            return Err(bad_input!(
                "no cell of both files has the figure '{}'; figures are the keys of a cell's summary in the results file, e.g. tps, latency_ms.p99, cost.fsyncs, cost.log_bytes, bound.shares.storage, tpmc (docs/results-schema.md)",
                self.figure
            ));
        }
        Ok(out)
    }

    /// Whether moving from `old` to `new` passes what the gate allows.
    fn breached(&self, old: f64, new: f64) -> bool {
        let margin = self.allowed * old.abs();
        match self.direction {
            Direction::Rises => new > old + margin,
            Direction::Falls => new < old - margin,
        }
    }
}

/// A cell's figure at `path` in its summary: a number, or an estimate's median.
fn figure(cell: &crate::results::CellResult, path: &str) -> Option<f64> {
    let mut v = cell.summary.as_ref()?;
    for key in path.split('.') {
        v = v.get(key)?;
    }
    v.as_f64().or_else(|| v.get("median").and_then(serde_json::Value::as_f64))
}

/// A figure in a message: four significant digits.
fn num(v: f64) -> String {
    format!("{}", (v * 1e4).round() / 1e4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_reads_its_figure_and_margin() {
        let g = Gate::parse("cost.fsyncs", Direction::Rises).unwrap();
        assert_eq!((g.figure.as_str(), g.allowed), ("cost.fsyncs", 0.0));
        assert_eq!(Gate::parse("latency_ms.p99:10%", Direction::Rises).unwrap().allowed, 0.1);
        assert!(Gate::parse("tps:-5%", Direction::Falls).is_err());
        assert!(Gate::parse("cost..fsyncs", Direction::Rises).is_err());
        assert!(Gate::parse("tps:five", Direction::Falls).is_err());
    }

    #[test]
    fn a_move_past_the_margin_breaches_and_one_within_does_not() {
        let rises = Gate::parse("cost.fsyncs:10%", Direction::Rises).unwrap();
        assert!(!rises.breached(1.0, 1.05) && rises.breached(1.0, 1.2) && !rises.breached(1.0, 0.1));
        assert!(Gate::parse("cost.fsyncs", Direction::Rises).unwrap().breached(0.0, 0.001));
        let falls = Gate::parse("tps:5%", Direction::Falls).unwrap();
        assert!(falls.breached(100.0, 90.0) && !falls.breached(100.0, 96.0) && !falls.breached(100.0, 200.0));
    }
}
