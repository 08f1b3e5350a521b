//! `counters`: the metrics-library case, as Trifle::Stats measures its drivers.
//! `track(key, values, at)` adds a map of counters (a nested map flattened to paths such
//! as `duration.sum`) to one bucket per granularity: minute, hour, day, week, month,
//! quarter, year, seven upserts per track (one transaction on SQL engines, one round trip
//! of HINCRBYs on key-value engines, one bulk write of `$inc` upserts on document engines). `values(key, from, to, granularity)` reads a range
//! of buckets. `counters` runs as two workloads, so writes and reads get a row each:
//! `counters-write` (a transaction is a track) and `counters-read` (a transaction is a
//! read, over a data set its prepare loads).

pub use crate::options::buckets;
pub mod clock;
mod doc;
mod kind;
mod kv;
mod load;
mod named;
pub use crate::options::counters as options;
mod pick;
mod reader;
mod sql;
mod store;
mod verify;
mod writer;

use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions};
use crate::engine::{Capability, Connection, Interface};
use crate::error::Result;
use buckets::Granularity;
use kind::Keeps;
pub use options::{CountersArgs, CountersOptions, ReadRange, Schema};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The kinds of store the counters keep their buckets in, in the order the plan lists them.
const KINDS: [&dyn Keeps; 3] =
    [&sql::Sql, &named::Named::<kv::HashBuckets>::KIND, &named::Named::<doc::DocBuckets>::KIND];

/// The name `--workload` takes for both.
pub const FAMILY: &str = "counters";

/// Which half of the workload.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Write,
    Read,
}

/// One half of the counters workload.
pub struct Counters {
    role: Role,
    name: &'static str,
    about: &'static str,
}

/// Tracks: each transaction adds a map of counters to seven buckets.
pub const WRITE: Counters = Counters {
    role: Role::Write,
    name: "counters-write",
    about: "metrics track(): a map of counters added to its minute … year buckets (7 upserts)",
};
/// Reads: each transaction reads a range of buckets of one key.
pub const READ: Counters = Counters {
    role: Role::Read,
    name: "counters-read",
    about: "metrics values(): one key's buckets over --counters-range (default 1d of hours)",
};

/// Counter names a track increments, realistic paths of a flattened nested map; the
/// `values` first, then `extra.vN`.
const NAMES: [&str; 25] = [
    "count",
    "duration.sum",
    "duration.max",
    "duration.min",
    "duration.count",
    "bytes.in",
    "bytes.out",
    "status.2xx",
    "status.3xx",
    "status.4xx",
    "status.5xx",
    "cache.hit",
    "cache.miss",
    "db.queries",
    "db.time",
    "queue.wait",
    "queue.depth",
    "errors.timeout",
    "errors.refused",
    "errors.other",
    "retries",
    "cpu.user",
    "cpu.system",
    "memory.peak",
    "gc.runs",
];

/// The paths of a track of `values` counters.
pub(crate) fn paths(values: u32) -> Vec<String> {
    (0..values as usize).map(|j| NAMES.get(j).map_or_else(|| format!("extra.v{j}"), |n| n.to_string())).collect()
}

/// What a track adds to path `j`: fixed per path (count 1, then 2, 3, …), so a verify knows
/// every sum from the number of tracks.
pub(crate) fn increment(j: usize) -> i64 {
    j as i64 + 1
}

/// The name of key `k`.
pub(crate) fn metric(k: usize) -> String {
    format!("metric-{k:05}")
}

/// The JSON document of a bucket that `tracks` tracks filled (flat, as Trifle::Stats keeps it).
pub(crate) fn document(paths: &[String], tracks: u64) -> String {
    let fields: Vec<String> =
        paths.iter().enumerate().map(|(j, p)| format!("\"{p}\":{}", tracks as i64 * increment(j))).collect();
    format!("{{{}}}", fields.join(","))
}

/// What a verify read back: per granularity, the buckets found and each path's sum.
pub(crate) struct Totals {
    /// Buckets (documents, hashes; rows of the `count` path) per granularity.
    pub buckets: [u64; 7],
    /// Sum of each path over every bucket, per granularity.
    pub sums: [Vec<i64>; 7],
    /// Fields found that no track writes.
    pub strays: u64,
}

impl Totals {
    /// Zero for `values` paths.
    pub fn new(values: u32) -> Totals {
        Totals { buckets: [0; 7], sums: std::array::from_fn(|_| vec![0; values as usize]), strays: 0 }
    }
}

/// Whether every path sums to `tracks` × its increment at every granularity (and, for a
/// data set known in advance, each granularity holds the buckets it should).
fn judge(t: &Totals, tracks: u64, paths: &[String], buckets: Option<[u64; 7]>) -> Verdict {
    let mut wrong = Vec::new();
    for g in Granularity::ALL {
        for (j, p) in paths.iter().enumerate() {
            let (got, want) = (t.sums[g.index()][j], tracks as i64 * increment(j));
            if got != want {
                wrong.push(format!("{} {p}: {got}, want {want}", g.name()));
            }
        }
        if let Some(b) = buckets
            && b[g.index()] != t.buckets[g.index()]
        {
            wrong.push(format!("{} buckets: {}, want {}", g.name(), t.buckets[g.index()], b[g.index()]));
        }
    }
    if t.strays > 0 {
        wrong.push(format!("{} fields no track writes", t.strays));
    }
    let found: u64 = t.buckets.iter().sum();
    let summary = format!("{tracks} tracks × {} counters read back in {found} buckets of 7 granularities", paths.len());
    if wrong.is_empty() {
        Verdict { ok: true, detail: format!("{summary}: every sum = tracks × increment") }
    } else {
        let more = if wrong.len() > 3 { format!(" (and {} more)", wrong.len() - 3) } else { String::new() };
        wrong.truncate(3);
        Verdict { ok: false, detail: format!("{summary}: {}{more}", wrong.join("; ")) }
    }
}

impl Workload for Counters {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> &str {
        self.about
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql, Interface::Kv, Interface::Doc]
    }
    fn needs(&self, iface: Interface) -> &'static [Capability] {
        super::store::needs(&KINDS, iface)
    }
    fn check(&self, opts: &WorkloadOptions) -> Result<()> {
        if self.role == Role::Read {
            dataset_fits(&opts.counters)?;
        }
        Ok(())
    }
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        let o = &opts.counters;
        if self.role == Role::Write {
            return 0;
        }
        // A bucket's document is ~16 bytes a counter plus its key; a row per counter
        // ~80 bytes with its index entry. Doubled for the log and headroom.
        let per = match o.schema {
            Schema::Json => 100 + 16 * u64::from(o.values),
            Schema::Rows => 80 * u64::from(o.values),
        };
        2 * dataset_buckets(o) * per
    }
    fn size_options(&self, opts: &WorkloadOptions) -> String {
        let o = &opts.counters;
        format!(
            "--counters-keys {} --counters-values {} --counters-spread {} --counters-range {}",
            o.keys,
            o.values,
            options::show_span(o.spread_s),
            o.range
        )
    }
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let o = &opts.counters;
        let data = match self.role {
            Role::Write => None,
            Role::Read => Some(clock::dataset(o)),
        };
        let conn = load.conn();
        super::store::pick(&KINDS, conn, self.name)?.prepare(conn, o, data.as_deref())?;
        Ok(Box::new(Cell { role: self.role, o: o.clone(), wrong: Arc::default() }))
    }
}

/// A repeat of one half of counters, with the count of its wrong reads.
struct Cell {
    role: Role,
    o: CountersOptions,
    /// Reads that returned other buckets than the data set holds (each is also a failed
    /// transaction), judged by verify.
    wrong: Arc<AtomicU64>,
}

impl CellWorkload for Cell {
    fn client(&mut self, mut conn: Connection, _id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let o = &self.o;
        let wrong = Arc::clone(&self.wrong);
        let kind = super::store::pick(&KINDS, &mut conn, FAMILY)?;
        match self.role {
            Role::Write => kind.writer(conn, o, seed),
            Role::Read => kind.reader(conn, o, seed, wrong),
        }
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let o = &self.o;
        let paths = paths(o.values);
        // The buckets each key may hold: every bucket the clock or the data set reaches.
        let (tracks, reach) = match self.role {
            Role::Write => (committed, clock::bucketize(clock::all_timestamps(o))),
            Role::Read => (u64::from(o.keys) * (clock::window(o).len() as u64 - 1), clock::dataset(o)),
        };
        let totals = super::store::pick(&KINDS, conn, FAMILY)?.totals(conn, o, &reach)?;
        let mut v = match self.role {
            Role::Write => judge(&totals, tracks, &paths, None),
            Role::Read => {
                let per_key: [u64; 7] = std::array::from_fn(|g| u64::from(o.keys) * reach[g].len() as u64);
                judge(&totals, tracks, &paths, Some(per_key))
            }
        };
        if self.role == Role::Read {
            let wrong = self.wrong.load(Ordering::Relaxed);
            v.ok &= wrong == 0;
            v.detail =
                format!("{committed} reads returned their range's buckets, {wrong} did not; data set: {}", v.detail);
        }
        Ok(v)
    }
}

/// Buckets of the read data set, over every key and granularity.
fn dataset_buckets(o: &CountersOptions) -> u64 {
    let per_key: u64 = clock::dataset(o).iter().map(|b| b.len() as u64).sum();
    per_key * u64::from(o.keys)
}

/// The most a read data set may hold: documents or rows (a few GB at most).
const MAX_DATASET_ROWS: u64 = 20_000_000;
/// The most buckets one read may ask for.
const MAX_READ_BUCKETS: u64 = 10_000;

/// Refuse a read data set or a read too large to be meant.
fn dataset_fits(o: &CountersOptions) -> Result<()> {
    let g = o.range.granularity;
    // The fewest seconds a bucket of this granularity lasts.
    let shortest = match g {
        Granularity::Month => 28 * 86_400,
        Granularity::Quarter => 90 * 86_400,
        Granularity::Year => 365 * 86_400,
        fixed => fixed.longest(),
    };
    let per_read = o.range.span_s / shortest + 1;
    if per_read as u64 > MAX_READ_BUCKETS {
        return Err(bad_input!(
            "--counters-range {} reads up to {per_read} buckets at a time (at most {MAX_READ_BUCKETS}); use a shorter span or a coarser granularity",
            o.range
        ));
    }
    let rows = dataset_buckets(o) * if o.schema == Schema::Rows { u64::from(o.values) } else { 1 };
    if rows > MAX_DATASET_ROWS {
        return Err(bad_input!(
            "the counters-read data set would hold {rows} {} (at most {MAX_DATASET_ROWS}); use fewer --counters-keys, a shorter --counters-spread or a coarser --counters-range",
            if o.schema == Schema::Rows { "rows" } else { "buckets" }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_documents_and_the_verdict() {
        assert_eq!(paths(3), ["count", "duration.sum", "duration.max"]);
        assert_eq!(paths(27)[26], "extra.v26");
        assert_eq!(document(&paths(3), 2), r#"{"count":2,"duration.sum":4,"duration.max":6}"#);
        let p = paths(2);
        let mut t = Totals::new(2);
        for g in 0..7 {
            t.sums[g] = vec![5, 10];
            t.buckets[g] = 1;
        }
        assert!(judge(&t, 5, &p, None).ok);
        assert!(judge(&t, 5, &p, Some([1; 7])).ok);
        let v = judge(&t, 5, &p, Some([2; 7]));
        assert!(!v.ok && v.detail.contains("minute buckets: 1, want 2"), "{}", v.detail);
        t.sums[Granularity::Quarter.index()][1] = 8;
        let v = judge(&t, 5, &p, None);
        assert!(!v.ok && v.detail.contains("quarter duration.sum: 8, want 10"), "{}", v.detail);
    }

    #[test]
    fn data_sets_too_large_are_refused() {
        let big = CountersOptions { keys: 1_000_000, ..CountersOptions::default() };
        assert!(dataset_fits(&big).unwrap_err().to_string().contains("fewer --counters-keys"));
        let wide = CountersOptions { range: options::parse_range("30d:minute").unwrap(), ..CountersOptions::default() };
        assert!(dataset_fits(&wide).unwrap_err().to_string().contains("at most 10000"));
        assert!(dataset_fits(&CountersOptions::default()).is_ok());
    }
}
