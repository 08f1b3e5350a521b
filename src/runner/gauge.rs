//! Live counters behind `--progress`: per client, its committed transactions, errors,
//! summed latency and a fixed array of log-linear latency buckets. Each is written by its
//! own client only, as a plain relaxed load and store (no read-modify-write, no lock, no
//! allocation); the coordinator sums them into a snapshot and diffs two snapshots into a
//! window's tps, latency average and p95.

use std::sync::atomic::{AtomicU64, Ordering};

/// Sub-buckets per power of two: a bucket is at most 1/16 of its value wide, so a p95
/// read at its middle is within ~3%.
const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// The largest octave kept: 2^39 ns is about 9 minutes; slower transactions land in the last
/// bucket.
const TOP_OCTAVE: usize = 39;
/// Buckets per client.
pub const BUCKETS: usize = (TOP_OCTAVE - SUB_BITS as usize + 2) * SUB;

/// The bucket of a latency in nanoseconds: exact below 2·SUB, then SUB per octave.
pub fn bucket(ns: u64) -> usize {
    if ns < 2 * SUB as u64 {
        return ns as usize;
    }
    let octave = 63 - ns.leading_zeros(); // ≥ SUB_BITS + 1
    let top = (ns >> (octave - SUB_BITS)) as usize; // SUB..2·SUB
    ((octave - SUB_BITS) as usize * SUB + top).min(BUCKETS - 1)
}

/// The middle of a bucket, nanoseconds.
pub fn middle(b: usize) -> f64 {
    if b < 2 * SUB {
        return b as f64;
    }
    let shift = (b / SUB - 1) as u32;
    let low = ((b % SUB + SUB) as u64) << shift;
    low as f64 + (1u64 << shift) as f64 / 2.0
}

/// One client's live counters, on cache lines of their own.
#[repr(align(64))]
pub struct Gauge {
    committed: AtomicU64,
    errors: AtomicU64,
    latency_ns: AtomicU64,
    buckets: [AtomicU64; BUCKETS],
}

impl Default for Gauge {
    fn default() -> Gauge {
        Gauge {
            committed: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            latency_ns: AtomicU64::new(0),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// Add to a counter that only the calling client writes: a load and a store, which
/// x86 does without the lock prefix a fetch_add costs.
#[inline]
fn bump(a: &AtomicU64, by: u64) {
    a.store(a.load(Ordering::Relaxed).wrapping_add(by), Ordering::Relaxed);
}

impl Gauge {
    /// A committed transaction of `ns` nanoseconds (warm-up or measured). Owner only.
    #[inline]
    pub fn commit(&self, ns: u64) {
        bump(&self.committed, 1);
        bump(&self.latency_ns, ns);
        bump(&self.buckets[bucket(ns)], 1);
    }

    /// A failed transaction. Owner only.
    #[inline]
    pub fn error(&self) {
        bump(&self.errors, 1);
    }
}

/// The clients' counters summed at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    committed: u64,
    errors: u64,
    latency_ns: u64,
    buckets: Vec<u64>,
}

impl Default for Snapshot {
    fn default() -> Snapshot {
        Snapshot { committed: 0, errors: 0, latency_ns: 0, buckets: vec![0; BUCKETS] }
    }
}

/// What happened between two snapshots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Committed transactions.
    pub committed: u64,
    /// Failed transactions.
    pub errors: u64,
    /// Mean latency, ms (0 without transactions).
    pub avg_ms: f64,
    /// 95th percentile latency, ms (0 without transactions).
    pub p95_ms: f64,
}

impl Snapshot {
    /// Overwrite with the sums over `gauges` now (no allocation).
    pub fn take(&mut self, gauges: &[Gauge]) {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        self.committed = gauges.iter().map(|g| load(&g.committed)).sum();
        self.errors = gauges.iter().map(|g| load(&g.errors)).sum();
        self.latency_ns = gauges.iter().map(|g| load(&g.latency_ns)).sum();
        for (i, b) in self.buckets.iter_mut().enumerate() {
            *b = gauges.iter().map(|g| load(&g.buckets[i])).sum();
        }
    }

    /// The window from `earlier` to `self`.
    pub fn since(&self, earlier: &Snapshot) -> Window {
        let committed = self.committed.saturating_sub(earlier.committed);
        let errors = self.errors.saturating_sub(earlier.errors);
        if committed == 0 {
            return Window { committed, errors, avg_ms: 0.0, p95_ms: 0.0 };
        }
        let avg_ms = self.latency_ns.saturating_sub(earlier.latency_ns) as f64 / committed as f64 / 1e6;
        let counts = || self.buckets.iter().zip(&earlier.buckets).map(|(n, e)| n.saturating_sub(*e));
        // The counters are read one by one while clients run, so the buckets' sum may differ
        // a little from `committed`: rank within the buckets themselves.
        let total: u64 = counts().sum();
        let rank = (total as f64 * 0.95).ceil().max(1.0) as u64;
        let mut seen = 0;
        let mut p95_ms = 0.0;
        for (b, n) in counts().enumerate() {
            seen += n;
            if seen >= rank {
                p95_ms = middle(b) / 1e6;
                break;
            }
        }
        Window { committed, errors, avg_ms, p95_ms }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_narrow() {
        assert_eq!((0..32).map(bucket).collect::<Vec<_>>(), (0..32).collect::<Vec<_>>());
        let mut last = 0;
        for ns in (1..40_000_000u64).step_by(997).chain([1 << 38, (1 << 39) + 5]) {
            let b = bucket(ns);
            assert!(b >= last && b < BUCKETS, "{ns} -> {b}");
            last = b;
            // The middle is within 1/32 of the value (half a bucket of 1/16).
            let m = middle(b);
            assert!((m - ns as f64).abs() <= ns as f64 / 32.0 + 0.5, "{ns}: middle {m}");
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn a_window_has_the_tps_mean_and_p95_of_what_happened_in_it() {
        let g = [Gauge::default(), Gauge::default()];
        let mut before = Snapshot::default();
        g[0].commit(5_000_000);
        before.take(&g);
        // 100 transactions: 94 of 1 ms, 6 of 10 ms; the 95th is 10 ms.
        for i in 0..100 {
            g[i % 2].commit(if i < 94 { 1_000_000 } else { 10_000_000 });
        }
        g[1].error();
        let mut now = Snapshot::default();
        now.take(&g);
        let w = now.since(&before);
        assert_eq!((w.committed, w.errors), (100, 1));
        assert!((w.avg_ms - 1.54).abs() < 1e-9, "{w:?}");
        assert!((w.p95_ms - 10.0).abs() < 10.0 / 32.0, "{w:?}");
        assert_eq!(now.since(&now), Window { committed: 0, errors: 0, avg_ms: 0.0, p95_ms: 0.0 });
    }
}
