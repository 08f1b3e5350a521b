//! The sums a verify reads back from named buckets: every counter the store walks,
//! added to its granularity's sums (its bucket's name says which), strays counted.

use super::buckets::Granularity;
use super::kind::Data;
use super::options::CountersOptions;
use super::store::CounterStore;
use super::{Totals, paths};
use crate::engine::Connection;
use crate::error::Result;

/// Every path's sum and the buckets, per granularity, over the buckets each key may hold
/// (`reach`).
pub(super) fn totals<S: CounterStore>(conn: &mut Connection, o: &CountersOptions, reach: Data) -> Result<Totals> {
    let starts: Vec<Vec<i64>> = reach.iter().map(|b| b.iter().map(|(s, _)| *s).collect()).collect();
    let fields = paths(o.values);
    let mut t = Totals::new(o.values);
    let mut bad: Option<String> = None;
    let mut counter = |name: &str, path: &str, v: std::result::Result<i64, String>| {
        let g = name.split("::").nth(1).and_then(|code| Granularity::ALL.iter().find(|g| g.code() == code));
        let (Some(g), Some(j)) = (g, fields.iter().position(|p| p == path)) else {
            t.strays += 1;
            return;
        };
        match v {
            Ok(v) => {
                t.sums[g.index()][j] += v;
                t.buckets[g.index()] += u64::from(j == 0);
            }
            Err(why) => bad = Some(format!("{name}: {why}")),
        }
    };
    S::new(o).walk(conn, o.keys, &starts, &mut counter)?;
    match bad {
        Some(m) => Err(failed!("verify: {m}")),
        None => Ok(t),
    }
}
