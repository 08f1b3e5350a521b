//! What a repeat or one of its slices counted besides committed transactions' latencies:
//! failures, retries and reconnections.

use serde::{Deserialize, Serialize};
use std::ops::AddAssign;

/// Failed, retried and reconnected counts of a repeat or a slice (flattened into both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Failed transactions while measured (whatever the cause: out of tries, a lost
    /// connection, an error of the workload's).
    pub errors: u64,
    /// Retries after a conflict (serialization failure, deadlock, SQLITE_BUSY): each try
    /// after a transaction's first.
    #[serde(default)]
    pub retries: u64,
    /// Transactions tried more than once, committed in the end or not (pgbench's
    /// "transactions retried"); absent in files from before it was counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retried: u64,
    /// Transactions that conflicted on every try they had (`--max-tries`), among `errors`
    /// (pgbench's "failed transactions").
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed: u64,
    /// New connections made after a lost one (`--reconnect`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reconnects: u64,
    /// Seconds from those losses to the clients running again, summed over clients.
    #[serde(default, skip_serializing_if = "is_nothing")]
    pub reconnect_s: f64,
}

impl Tally {
    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == Tally::default()
    }
}

impl AddAssign<&Tally> for Tally {
    fn add_assign(&mut self, o: &Tally) {
        self.errors += o.errors;
        self.retries += o.retries;
        self.retried += o.retried;
        self.failed += o.failed;
        self.reconnects += o.reconnects;
        self.reconnect_s += o.reconnect_s;
    }
}

impl<'a> std::iter::Sum<&'a Tally> for Tally {
    fn sum<I: Iterator<Item = &'a Tally>>(it: I) -> Tally {
        it.fold(Tally::default(), |mut sum, t| {
            sum += t;
            sum
        })
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_nothing(s: &f64) -> bool {
    *s == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_counts_other_than_errors_and_retries_are_left_out_and_read_back() {
        let t = Tally { errors: 2, reconnects: 1, reconnect_s: 0.5, ..Tally::default() };
        let json = serde_json::to_value(t).unwrap();
        assert_eq!(json, serde_json::json!({"errors": 2, "retries": 0, "reconnects": 1, "reconnect_s": 0.5}));
        assert_eq!(serde_json::from_value::<Tally>(json).unwrap(), t);
        assert_eq!([t, t].iter().sum::<Tally>().reconnect_s, 1.0);
    }
}
