//! The lines under a `--precision` run's table: how far its rounds got.

use crate::results::PrecisionOutcome;
use crate::stats::{self, precision_percent as percent};

/// The summary lines under a `--precision` run's table (`run` and `report` alike).
pub fn summary(outcome: &PrecisionOutcome, target: f64) -> Vec<String> {
    let level = stats::percent(outcome.level);
    let reached = outcome.cells.iter().filter(|c| c.reached).count();
    let mut out = vec![format!(
        "precision ±{} at {level}: {reached} of {} cells reached it in {} round{}; {}.",
        percent(target),
        outcome.cells.len(),
        outcome.rounds,
        if outcome.rounds == 1 { "" } else { "s" },
        outcome.reason.label()
    )];
    for c in outcome.cells.iter().filter(|c| !c.reached) {
        let got = match (c.precision, c.confidence) {
            (Some(p), Some(l)) => format!("±{} at {}", percent(p), stats::percent(l)),
            _ => "no interval".into(),
        };
        let why = if c.failed { "; a repeat failed, so it left the rounds" } else { "" };
        out.push(format!(
            "{}: short of ±{}: {got} after {} repeat{}{why}",
            c.id,
            percent(target),
            c.repeats,
            if c.repeats == 1 { "" } else { "s" }
        ));
    }
    out
}
