//! The shares checked against the table: where a run holds a cell whose commits wait for
//! storage and, beside it (same engine, workload, clients and options), cells that do
//! not (nosync, async, ram, unlogged, a composed `+fsync=off`), the storage share predicts
//! how much faster they are, 1 / (1 − share), and the measured ratio says whether it did.

use super::Row;
use serde::Serialize;

/// A storage share below this explains nothing worth checking.
const WORTH: f64 = 0.1;
/// How near a prediction must be to the measured ratio where the interval is narrower.
const WITHIN: f64 = 0.15;

/// One cell's measured speed-up over the cell whose storage share predicted it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// The cell without the storage share.
    pub cell: String,
    /// The ratio the share predicts: 1 / (1 − share).
    pub predicted: f64,
    /// Its tps over the predicting cell's, ratio of medians.
    pub measured: f64,
    /// The measured ratio's interval, where the predicting cell is its baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lo: Option<f64>,
    /// Its upper end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hi: Option<f64>,
    /// Within the interval, or within 15% of the measured ratio.
    pub agrees: bool,
}

/// Fill each row's predictions: for every row with a storage share worth checking, one
/// per row `comparable` to it whose own storage share is under a tenth of it.
pub fn fill(rows: &mut [Row], comparable: impl Fn(&Row, &Row) -> bool) {
    let made: Vec<Vec<Prediction>> = rows.iter().map(|a| of(a, rows, &comparable)).collect();
    for (row, p) in rows.iter_mut().zip(made) {
        row.predictions = p;
    }
}

/// What `a`'s storage share predicts of the rows beside it.
fn of(a: &Row, rows: &[Row], comparable: &impl Fn(&Row, &Row) -> bool) -> Vec<Prediction> {
    let (Some(share), Some(a_tps)) = (storage(a).filter(|s| *s >= WORTH), a.tps.map(|t| t.median)) else {
        return Vec::new();
    };
    let beside = |b: &&Row| b.id != a.id && (&a.engine, &a.workload, a.clients) == (&b.engine, &b.workload, b.clients);
    let without = |b: &&Row| storage(b).is_some_and(|s| s < share / 10.0) && comparable(a, b);
    let predicted = 1.0 / (1.0 - share.min(0.99));
    rows.iter()
        .filter(beside)
        .filter(without)
        .filter_map(|b| {
            let measured = b.tps?.median / a_tps;
            let ratio = b.vs_baseline.as_ref().filter(|_| b.baseline.as_deref() == Some(a.id.as_str()));
            let (lo, hi) = (ratio.and_then(|r| r.lo), ratio.and_then(|r| r.hi));
            let inside = lo.zip(hi).is_some_and(|(lo, hi)| (lo..=hi).contains(&predicted));
            let agrees = inside || (predicted / measured - 1.0).abs() <= WITHIN;
            Some(Prediction { cell: b.id.clone(), predicted, measured, lo, hi, agrees })
        })
        .collect()
}

/// A row's storage share, where it has one.
fn storage(r: &Row) -> Option<f64> {
    r.bound.as_ref().map(|b| b.shares.storage)
}

/// Whether some prediction from this row missed: its shares do not explain the table.
pub fn unexplained(r: &Row) -> bool {
    r.predictions.iter().any(|p| !p.agrees)
}

/// The lines under a table: per predicting cell, its share and each prediction.
pub fn lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for a in rows.iter().filter(|r| !r.predictions.is_empty()) {
        let share = storage(a).unwrap_or_default();
        let each: Vec<String> = a.predictions.iter().map(|p| said(a, p)).collect();
        out.push(format!(
            "predicted: {} storage {:.0}% predicts ×{:.2} without it; measured {}",
            a.id,
            share * 100.0,
            a.predictions[0].predicted,
            each.join("; ")
        ));
    }
    out
}

/// One prediction in words: the cell's profile, its measured ratio and whether it agrees.
fn said(a: &Row, p: &Prediction) -> String {
    let name = p.cell.strip_prefix(&format!("{}/", a.engine)).and_then(|r| r.split('/').next()).unwrap_or(&p.cell);
    let interval = match (p.lo, p.hi) {
        (Some(lo), Some(hi)) => format!(" ({lo:.2}–{hi:.2})"),
        _ => String::new(),
    };
    let verdict = if p.agrees { "agrees" } else { "the shares do not explain this ratio" };
    format!("{name} ×{:.2}{interval}: {verdict}", p.measured)
}
