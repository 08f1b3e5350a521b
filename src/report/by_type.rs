//! Each cell's transactions by type, for workloads that mix several (`--by-type`): a row
//! per type under its cell in the tables and the CSV; always in the JSON summary.

use crate::error::Result;
use crate::results::{Latency, RepeatResult, add_types};
use crate::stats::{self, Estimate};
use serde::Serialize;

/// One transaction type of a cell over its measured repeats.
#[derive(Clone, Debug, Serialize)]
pub struct TypeRow {
    /// The type, as its workload names it.
    pub name: String,
    /// Its committed transactions per second over the measured repeats: each repeat's
    /// count of the type over its measured time, median and interval as the cell's tps.
    pub tps: Option<Estimate>,
    /// Its committed transactions, all measured repeats.
    pub transactions: u64,
    /// Its failed transactions while measured, all repeats.
    pub errors: u64,
    /// Retries of its transactions after conflicts, all repeats.
    pub retries: u64,
    /// Latency of its committed transactions (merged histograms), milliseconds.
    pub latency_ms: Latency,
}

/// The types of a cell's `measured` repeats, intervals aiming at `level`; none for a
/// workload of one type (and for files from before types were kept).
pub fn of(measured: &[&RepeatResult], level: f64) -> Result<Vec<TypeRow>> {
    let sums = add_types(measured.iter().map(|r| r.types.as_slice()))?;
    Ok(sums
        .into_iter()
        .map(|(name, t)| {
            let tps: Vec<f64> = measured.iter().map(|r| tps_of(r, &name)).collect();
            TypeRow {
                tps: (!tps.is_empty()).then(|| stats::estimate(&tps, level)),
                transactions: t.transactions,
                errors: t.errors,
                retries: t.retries,
                latency_ms: Latency::of(&t.hist),
                name,
            }
        })
        .collect())
}

/// Transactions of type `name` per second of `r`'s measured time (none counted: 0).
fn tps_of(r: &RepeatResult, name: &str) -> f64 {
    let n = r.types.iter().find(|t| t.name == name).map_or(0, |t| t.transactions);
    if r.duration_s > 0.0 { n as f64 / r.duration_s } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{RepeatStatus, TypeTally};

    /// A measured repeat of `secs` seconds with `reads` reads of 1 ms and `updates` updates of 4 ms.
    fn repeat(secs: f64, reads: u64, updates: u64) -> RepeatResult {
        let mut r = RepeatResult::failed(1, String::new(), String::new(), String::new());
        r.status = RepeatStatus::Ok;
        r.duration_s = secs;
        r.transactions = reads + updates;
        let typed = |name: &str, n: u64, ms: u64| {
            let mut t = TypeTally { transactions: n, errors: 1, retries: 2, ..TypeTally::default() };
            t.hist.record_n(ms * 1_000_000, n).unwrap();
            t.record(name)
        };
        r.types = vec![typed("read", reads, 1), typed("update", updates, 4)];
        r
    }

    #[test]
    fn a_type_has_its_own_tps_median_counts_and_merged_latency() {
        let repeats = [repeat(2.0, 200, 100), repeat(1.0, 300, 100), repeat(1.0, 50, 150)];
        let measured: Vec<&RepeatResult> = repeats.iter().collect();
        let types = of(&measured, 0.75).unwrap();
        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "update"]);
        let read = &types[0];
        // 100, 300 and 50 reads a second: the median is the middle one, the interval min–max.
        let tps = read.tps.unwrap();
        assert_eq!((tps.median, tps.lo, tps.hi, tps.n), (100.0, Some(50.0), Some(300.0), 3));
        assert_eq!((read.transactions, read.errors, read.retries), (550, 3, 6));
        assert!((types[1].latency_ms.p50 - 4.0).abs() < 0.01, "{:?}", types[1].latency_ms);
        // A repeat from before types were kept has none, and neither has the cell.
        let old = RepeatResult::failed(1, String::new(), String::new(), String::new());
        assert!(of(&[&old], 0.95).unwrap().is_empty());
    }
}
