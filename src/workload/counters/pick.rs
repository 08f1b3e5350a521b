//! What every store's clients draw alike: which metric a transaction is about and its
//! moment (a track's clock tick, or the end of a read's range), kept for a retry of the
//! same transaction; and a read that found other than the data set holds.

use super::buckets::Granularity;
use super::metric;
use super::options::CountersOptions;
use crate::engine::TxError;
use crate::rng::Rng;
use std::sync::atomic::{AtomicU64, Ordering};

/// A client's metrics and its draw of the next transaction's metric and moment.
pub(super) struct Pick<T> {
    metrics: Vec<String>,
    rng: Rng,
    drawn: (usize, T),
}

impl<T: Copy + Default> Pick<T> {
    /// The metrics of `o`, drawn from the generator of `seed`.
    pub(super) fn new(o: &CountersOptions, seed: u64) -> Self {
        Pick { metrics: (0..o.keys as usize).map(metric).collect(), rng: Rng::new(seed), drawn: (0, T::default()) }
    }

    /// The next transaction's metric and moment (`moment` draws it), or on a retry the
    /// last ones again.
    pub(super) fn next(&mut self, retry: bool, moment: impl FnOnce(&mut Rng) -> T) -> (&str, T) {
        if !retry {
            let k = self.rng.range(0, self.metrics.len() as i64 - 1) as usize;
            self.drawn = (k, moment(&mut self.rng));
        }
        let (k, at) = self.drawn;
        (&self.metrics[k], at)
    }
}

/// A read of `metric`'s buckets `from`..`to` of `g` that found what the data set does not
/// hold (`found`, with what it should have): counted in `wrong`, and the transaction's failure.
pub(super) fn wrong_read(
    wrong: &AtomicU64,
    metric: &str,
    (from, to): (i64, i64),
    g: Granularity,
    found: String,
) -> TxError {
    wrong.fetch_add(1, Ordering::Relaxed);
    TxError::Fail(format!("values({metric}, {from}, {to}, {}) {found}", g.name()))
}
