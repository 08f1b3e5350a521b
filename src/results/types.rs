//! Latency per transaction type, for a workload that mixes several (`Workload::types`):
//! each type's counts and its whole histogram, so clients, shards and repeats add up
//! exactly, as the repeat's own figures do.

use super::histogram::{Latency, decode_histogram, encode_histogram, new_histogram};
use crate::error::Result;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// One transaction type of a repeat, as the results file keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeLatency {
    /// The type, as its workload names it (`read`, `new-order`, a script's file).
    pub name: String,
    /// Transactions of this type committed while measured.
    pub transactions: u64,
    /// Transactions of this type that failed while measured, whatever failed them.
    #[serde(default)]
    pub errors: u64,
    /// Retries of this type's transactions after a conflict.
    #[serde(default)]
    pub retries: u64,
    /// Latency summary of its committed transactions, milliseconds.
    pub latency_ms: Latency,
    /// Their HdrHistogram, encoded as the repeat's `histogram`.
    pub histogram: String,
}

/// One type's counts and latency histogram while they are counted and added up.
#[derive(Clone, Debug)]
pub struct TypeTally {
    /// Committed while measured.
    pub transactions: u64,
    /// Failed while measured.
    pub errors: u64,
    /// Retries after conflicts while measured.
    pub retries: u64,
    /// Latency of the committed ones, nanoseconds.
    pub hist: Histogram<u64>,
}

impl Default for TypeTally {
    fn default() -> Self {
        TypeTally { transactions: 0, errors: 0, retries: 0, hist: new_histogram() }
    }
}

impl TypeTally {
    /// Add `o`'s counts and histogram to these.
    pub fn add(&mut self, o: &TypeTally) -> Result<()> {
        self.transactions += o.transactions;
        self.errors += o.errors;
        self.retries += o.retries;
        self.hist.add(&o.hist).map_err(|e| failed!("cannot add latency histograms of a transaction type: {e:?}"))
    }

    /// The figures of a type read back from a results file.
    pub fn of(t: &TypeLatency) -> Result<TypeTally> {
        let hist = if t.histogram.is_empty() { new_histogram() } else { decode_histogram(&t.histogram)? };
        Ok(TypeTally { transactions: t.transactions, errors: t.errors, retries: t.retries, hist })
    }

    /// As the results file keeps it, under `name`.
    pub fn record(&self, name: &str) -> TypeLatency {
        TypeLatency {
            name: name.to_string(),
            transactions: self.transactions,
            errors: self.errors,
            retries: self.retries,
            latency_ms: Latency::of(&self.hist),
            histogram: encode_histogram(&self.hist),
        }
    }
}

/// Lists of types (of shards, of repeats) added up type by type, matched by name, in the
/// order they are first seen.
pub fn add_types<'a>(lists: impl IntoIterator<Item = &'a [TypeLatency]>) -> Result<Vec<(String, TypeTally)>> {
    let mut out: Vec<(String, TypeTally)> = Vec::new();
    for t in lists.into_iter().flatten() {
        let more = TypeTally::of(t)?;
        match out.iter_mut().find(|(n, _)| *n == t.name) {
            Some((_, sum)) => sum.add(&more)?,
            None => out.push((t.name.clone(), more)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type of `n` transactions at each of `ms`.
    fn typed(name: &str, ms: &[u64], errors: u64, retries: u64) -> TypeLatency {
        let mut t = TypeTally { errors, retries, ..TypeTally::default() };
        for m in ms {
            t.hist.record(m * 1_000_000).unwrap();
            t.transactions += 1;
        }
        t.record(name)
    }

    #[test]
    fn types_add_up_by_name_with_their_histograms() {
        let a = [typed("read", &[1, 2], 0, 1), typed("update", &[10], 1, 3)];
        // Another shard lists them in another order, and one more.
        let b = [typed("update", &[20, 30], 2, 0), typed("read", &[3], 0, 0), typed("scan", &[], 0, 0)];
        let sum = add_types([&a[..], &b[..]]).unwrap();
        let names: Vec<&str> = sum.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["read", "update", "scan"]);
        let (_, update) = &sum[1];
        assert_eq!((update.transactions, update.errors, update.retries), (3, 3, 3));
        assert_eq!(update.hist.len(), 3);
        let merged = update.record("update");
        assert_eq!(merged.latency_ms.max, update.hist.max() as f64 / 1e6);
        // The median of 10, 20 and 30 ms is the merged histogram's, not an average of medians.
        assert!((merged.latency_ms.p50 - 20.0).abs() < 0.05, "{:?}", merged.latency_ms);
        assert_eq!(sum[2].1.transactions, 0);
    }

    #[test]
    fn a_type_round_trips_and_old_fields_default() {
        let t = typed("read", &[1, 5], 1, 2);
        let back: TypeLatency = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(back, t);
        let bare =
            serde_json::json!({"name": "x", "transactions": 0, "latency_ms": Latency::default(), "histogram": ""});
        let t: TypeLatency = serde_json::from_value(bare).unwrap();
        assert_eq!((t.errors, t.retries), (0, 0));
        assert!(TypeTally::of(&t).unwrap().hist.is_empty());
    }
}
