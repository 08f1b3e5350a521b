//! How a `--budget` run's rounds went.

use super::StopReason;
use serde::{Deserialize, Serialize};

/// Where a budgeted run stopped: `reached` when every comparison was settled, `max-time`
/// when the budget could not hold another round, `max-repeat` at the most rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetOutcome {
    /// Rounds finished.
    pub rounds: u32,
    /// Why no further round was started.
    pub reason: StopReason,
    /// Comparisons (cells against their baseline) the run measured.
    pub comparisons: u32,
    /// Of them, those whose verdict was settled before the rounds stopped.
    pub settled: u32,
}
