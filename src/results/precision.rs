//! How a `--precision` run's rounds went: why it stopped and how precise each cell got.

use serde::{Deserialize, Serialize};

/// Where a `--precision` run stopped, and how precise each cell got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionOutcome {
    /// Rounds finished (an interrupted round's repeats are kept in the cells, not counted).
    pub rounds: u32,
    /// Why no further round was started.
    pub reason: StopReason,
    /// The confidence level the intervals aimed at (0.95).
    pub level: f64,
    /// Every cell, in plan order.
    pub cells: Vec<CellPrecision>,
}

/// Why a `--precision` run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Every cell reached the precision asked.
    Reached,
    /// The next round would not have ended within `--max-time`.
    MaxTime,
    /// The cells still short had `--max-repeat` repeats.
    MaxRepeat,
    /// A signal stopped the run.
    Interrupted,
    /// A repeat failed (its cell left the rounds) or the run itself failed.
    Failed,
}

impl StopReason {
    /// As the reports print it.
    pub fn label(self) -> &'static str {
        match self {
            StopReason::Reached => "every cell reached it",
            StopReason::MaxTime => "stopped by --max-time",
            StopReason::MaxRepeat => "stopped at --max-repeat",
            StopReason::Interrupted => "interrupted",
            StopReason::Failed => "stopped by a failure",
        }
    }
}

/// One cell's precision at the end of a `--precision` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellPrecision {
    /// engine/profile/workload/cN.
    pub id: String,
    /// Repeats run, failed ones included.
    pub repeats: u32,
    /// The interval's larger half-width as a fraction of the median (none below two repeats).
    pub precision: Option<f64>,
    /// The level that interval really has (below the target with too few repeats).
    pub confidence: Option<f64>,
    /// Whether it reached the precision asked at the target level.
    pub reached: bool,
    /// Whether a repeat failed or did not verify, which took the cell out of the rounds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RunOptions;

    /// A run without `--precision` writes none of its fields, and older files load.
    #[test]
    fn precision_fields_are_optional_and_round_trip() {
        let old = serde_json::json!({"duration_s": 1.0, "transactions": null, "warmup_s": 0.2, "repeat": 3,
            "scale": 1, "seed": 5, "baseline": "disk"});
        let mut o: RunOptions = serde_json::from_value(old).unwrap();
        assert_eq!((o.precision, o.max_time_s, o.min_repeat, o.max_repeat), (None, None, None, None));
        let text = serde_json::to_string(&o).unwrap();
        assert!(!text.contains("precision") && !text.contains("max_") && !text.contains("min_"), "{text}");
        (o.precision, o.max_time_s, o.min_repeat, o.max_repeat) = (Some(0.03), Some(600.0), Some(6), Some(50));
        let back: RunOptions = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(
            (back.precision, back.max_time_s, back.min_repeat, back.max_repeat),
            (Some(0.03), Some(600.0), Some(6), Some(50))
        );

        let outcome = PrecisionOutcome {
            rounds: 7,
            reason: StopReason::MaxRepeat,
            level: 0.95,
            cells: vec![CellPrecision {
                id: "a".into(),
                repeats: 7,
                precision: Some(0.041),
                confidence: Some(0.984375),
                reached: false,
                failed: false,
            }],
        };
        let v = serde_json::to_value(&outcome).unwrap();
        assert_eq!(v["reason"], "max-repeat");
        assert!(v["cells"][0].get("failed").is_none(), "{v}");
        assert_eq!(serde_json::from_value::<PrecisionOutcome>(v).unwrap(), outcome);
    }
}
