//! The cells of a table's lines, shared by the terminal, Markdown and HTML tables: the
//! tps and ratio texts with their intervals' levels, the latencies, the headers.

use super::{Column, Row, by_type};
use crate::results::Latency;
use crate::stats::{self, Estimate};

/// The columns of a table (terminal, Markdown, HTML) and whether it has type rows.
#[derive(Clone, Copy)]
pub(crate) struct Layout<'a> {
    /// Columns after the table's own.
    pub extra: &'a [Column],
    /// Type rows under each cell, and the p50, errors and retries columns.
    pub by_type: bool,
}

/// The level most intervals of a column have: stated once under the table, while a cell at
/// another level (fewer measured repeats) says its own.
pub fn usual_level(levels: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut seen: Vec<(f64, usize)> = Vec::new();
    for l in levels.into_iter().flatten() {
        match seen.iter_mut().find(|(x, _)| same_level(*x, l)) {
            Some((_, n)) => *n += 1,
            None => seen.push((l, 1)),
        }
    }
    // The first of the most common, so a tie reads the same every time.
    let most = seen.iter().map(|(_, n)| *n).max()?;
    seen.iter().find(|(_, n)| *n == most).map(|(l, _)| *l)
}

/// "93.8% interval" for a caption (a cell at another level says its own where it is shown).
pub(crate) fn interval_words(usual: Option<f64>) -> String {
    usual.map_or_else(|| "interval".into(), |l| format!("{} interval", stats::percent(l)))
}

/// Two levels that print alike are one level.
pub(crate) fn same_level(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// ", 75%" when `level` is not the column's usual one, for the cell to say.
pub(crate) fn own_level(level: Option<f64>, usual: Option<f64>) -> String {
    match (level, usual) {
        (Some(l), Some(u)) if same_level(l, u) => String::new(),
        (Some(l), _) => format!(", {}", stats::percent(l)),
        _ => String::new(),
    }
}

/// The usual levels of the tps and ratio columns of `rows`.
pub(crate) fn usual_levels(rows: &[Row]) -> (Option<f64>, Option<f64>) {
    (
        usual_level(rows.iter().map(|r| r.tps.and_then(|t| t.confidence))),
        usual_level(rows.iter().filter(|r| !is_baseline(r)).map(|r| r.vs_baseline.and_then(|x| x.confidence))),
    )
}

pub(crate) fn is_baseline(r: &Row) -> bool {
    r.baseline.as_deref() == Some(r.id.as_str())
}

/// The lines of a table for one cell, shared by the terminal, Markdown and HTML tables:
/// its own, then with `--by-type` one per transaction type.
pub(crate) fn lines(r: &Row, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<Vec<String>> {
    let mut out = vec![cells(r, usual, layout)];
    if layout.by_type {
        out.extend(r.types.iter().map(|t| type_cells(t, usual, layout)));
    }
    out
}

/// The cells of a cell's row: its own, then those of `layout.extra`.
pub(crate) fn cells(r: &Row, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<String> {
    let tps = match r.tps {
        None if r.failed_repeats == 0 => "not run".to_string(),
        None => "failed".to_string(),
        Some(e) => tps_text(e, usual.0),
    };
    let counts = (r.tally.errors, r.tally.retries);
    [r.engine.clone(), r.profile.clone(), r.workload.clone(), r.clients.to_string(), tps]
        .into_iter()
        .chain(latency_cells(r.latency_ms.as_ref(), counts, layout.by_type))
        .chain([ratio_text(r, usual.1)])
        .chain(layout.extra.iter().map(|c| c.value(r)))
        .collect()
}

/// The cells of a type's row under its cell: its name where the workload's is, its own
/// tps and latency, nothing against the baseline.
pub(crate) fn type_cells(t: &by_type::TypeRow, usual: (Option<f64>, Option<f64>), layout: Layout) -> Vec<String> {
    let tps = t.tps.map_or_else(|| "-".to_string(), |e| tps_text(e, usual.0));
    [String::new(), String::new(), format!("↳ {}", t.name), String::new(), tps]
        .into_iter()
        .chain(latency_cells(Some(&t.latency_ms), (t.errors, t.retries), layout.by_type))
        .chain([String::new()])
        .chain(layout.extra.iter().map(|_| String::new()))
        .collect()
}

/// A median tps with its interval, and its level where it is not the column's usual one.
pub(crate) fn tps_text(e: Estimate, usual: Option<f64>) -> String {
    match e {
        Estimate { median, lo: Some(lo), hi: Some(hi), confidence, .. } => {
            format!("{} ({}–{}{})", num(median), sig3(lo), sig3(hi), own_level(confidence, usual))
        }
        e => num(e.median),
    }
}

/// avg, p95 and p99 ms; by type also p50 (after avg), errors and retries (after p99).
pub(crate) fn latency_cells(l: Option<&Latency>, (errors, retries): (u64, u64), by_type: bool) -> Vec<String> {
    let lat = |f: fn(&Latency) -> f64| l.map_or("-".to_string(), |l| format!("{:.3}", f(l)));
    if !by_type {
        return vec![lat(|l| l.avg), lat(|l| l.p95), lat(|l| l.p99)];
    }
    vec![lat(|l| l.avg), lat(|l| l.p50), lat(|l| l.p95), lat(|l| l.p99), errors.to_string(), retries.to_string()]
}

/// The table's own headers.
pub(crate) const HEADERS: [&str; 9] =
    ["engine", "profile", "workload", "clients", "tps", "avg ms", "p95 ms", "p99 ms", "× vs baseline"];

/// The table's own headers with `--by-type`.
pub(crate) const BY_TYPE_HEADERS: [&str; 12] = [
    "engine",
    "profile",
    "workload",
    "clients",
    "tps",
    "avg ms",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "errors",
    "retries",
    "× vs baseline",
];

/// Table headers matching `cells`.
pub(crate) fn headers(layout: Layout) -> Vec<&'static str> {
    let own: &[&str] = if layout.by_type { &BY_TYPE_HEADERS } else { &HEADERS };
    own.iter().copied().chain(layout.extra.iter().map(|c| c.header())).collect()
}

/// The ratio with its interval; an interval clear of 1 needs no word (above 1 is faster,
/// below slower), the other verdicts are said.
pub(crate) fn ratio_text(r: &Row, usual: Option<f64>) -> String {
    match &r.vs_baseline {
        _ if is_baseline(r) => "baseline".into(),
        Some(x) => match (x.lo, x.hi) {
            (Some(lo), Some(hi)) => {
                let verdict = match x.verdict {
                    stats::Verdict::Faster | stats::Verdict::Slower => String::new(),
                    v => format!(" {}", v.label()),
                };
                format!("{} ({}–{}{}){verdict}", sig3(x.value), sig3(lo), sig3(hi), own_level(x.confidence, usual))
            }
            _ => format!("{} {}", sig3(x.value), x.verdict.label()),
        },
        _ => "-".into(),
    }
}

/// Three significant digits, with k and M above a thousand: 178.71 → 179, 14.21 → 14.2,
/// 0.01563 → 0.0156, 122916 → 123k, 2765329 → 2.77M.
pub(crate) fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let (v, suffix) = match v.abs() {
        a if a >= 999_500.0 => (v / 1e6, "M"),
        a if a >= 999.5 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}{suffix}")
}

/// A number with digits that matter: 12345, 1234.5 → 1235, 12.3, 0.123.
pub(crate) fn num(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

#[cfg(test)]
mod tests {
    use super::sig3;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(178.71), "179");
        assert_eq!(sig3(14.21), "14.2");
        assert_eq!(sig3(1.023), "1.02");
        assert_eq!(sig3(0.01563), "0.0156");
        assert_eq!(sig3(2.0), "2.00");
        assert_eq!(sig3(1868.0), "1.87k");
        assert_eq!(sig3(122916.0), "123k");
        assert_eq!(sig3(2765329.0), "2.77M");
    }
}
