//! The shares checked against the table: where a run holds a cell whose commits wait for
//! storage and, beside it (same engine, workload, clients and options), cells that do
//! not (nosync, async, ram, unlogged, a composed `+fsync=off`), the storage share predicts
//! how much faster they are, 1 / (1 − share), and the measured ratio says whether it did.
//! The disk-reads share does the same for the cells whose cache holds the data (a larger
//! buffer pool in a `--sweep`).

use serde::Serialize;

/// A share below this explains nothing worth checking.
const WORTH: f64 = 0.1;
/// How near a prediction must be to the measured ratio where the interval is narrower.
const WITHIN: f64 = 0.15;

/// The shares that predict: each one's name, as the bound names it.
pub const PREDICTING: [&str; 2] = ["storage", "disk reads"];

/// A cell's shares that predict, in the order `PREDICTING` names them.
pub fn predicting(s: &super::bound::Shares) -> [f64; 2] {
    [s.storage, s.disk_reads]
}

/// One cell's measured speed-up over the cell whose share predicted it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// The share removed: one of `PREDICTING`.
    pub share: &'static str,
    /// The cell without the share.
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

/// What a prediction needs of a cell.
pub struct Side<'a, K> {
    /// Its id.
    pub id: &'a str,
    /// What makes two cells comparable: engine, workload, clients, workload options.
    pub beside: K,
    /// Its shares, as `PREDICTING` names them, where it has them.
    pub shares: Option<[f64; 2]>,
    /// Its tps, median.
    pub tps: Option<f64>,
    /// Its baseline's id and the interval of its ratio to it.
    pub over: Option<(&'a str, Option<f64>, Option<f64>)>,
}

/// Each cell's predictions: for each share of a cell worth checking, one per cell beside
/// it whose own share of that kind is under a tenth of it.
pub fn predict<K: PartialEq>(cells: &[Side<K>]) -> Vec<Vec<Prediction>> {
    cells.iter().map(|a| (0..PREDICTING.len()).flat_map(|k| of(a, k, cells)).collect()).collect()
}

/// What cell `a`'s share `k` predicts of the cells beside it.
fn of<K: PartialEq>(a: &Side<K>, k: usize, cells: &[Side<K>]) -> Vec<Prediction> {
    let (Some(share), Some(a_tps)) = (a.shares.map(|s| s[k]).filter(|s| *s >= WORTH), a.tps) else {
        return Vec::new();
    };
    let predicted = 1.0 / (1.0 - share.min(0.99));
    let without = |b: &&Side<K>| b.id != a.id && b.beside == a.beside && b.shares.is_some_and(|s| s[k] < share / 10.0);
    cells
        .iter()
        .filter(without)
        .filter_map(|b| {
            let measured = b.tps? / a_tps;
            let (lo, hi) = b.over.filter(|(base, _, _)| *base == a.id).map_or((None, None), |(_, lo, hi)| (lo, hi));
            let inside = lo.zip(hi).is_some_and(|(lo, hi)| (lo..=hi).contains(&predicted));
            let agrees = inside || (predicted / measured - 1.0).abs() <= WITHIN;
            Some(Prediction { share: PREDICTING[k], cell: b.id.to_string(), predicted, measured, lo, hi, agrees })
        })
        .collect()
}

/// Whether some prediction missed: the predicting cell's shares do not explain the table.
pub fn missed(predictions: &[Prediction]) -> bool {
    predictions.iter().any(|p| !p.agrees)
}

/// The lines under a table for cell `id` with shares `shares` (as `PREDICTING` names
/// them): per share, each prediction, with the profile `profile` gives the cell it is of.
pub fn lines(id: &str, shares: [f64; 2], predictions: &[Prediction], profile: impl Fn(&str) -> String) -> Vec<String> {
    let by_share = PREDICTING.iter().zip(shares);
    by_share
        .filter_map(|(name, share)| {
            let of: Vec<&Prediction> = predictions.iter().filter(|p| p.share == *name).collect();
            let predicted = of.first()?.predicted;
            let each: Vec<String> = of.iter().map(|p| said(&profile(&p.cell), p)).collect();
            let pct = share * 100.0;
            Some(format!(
                "predicted: {id} {name} {pct:.0}% predicts ×{predicted:.2} without it; measured {}",
                each.join("; ")
            ))
        })
        .collect()
}

/// One prediction in words: the cell's profile, its measured ratio and whether it agrees.
fn said(profile: &str, p: &Prediction) -> String {
    let interval = match (p.lo, p.hi) {
        (Some(lo), Some(hi)) => format!(" ({lo:.2}–{hi:.2})"),
        _ => String::new(),
    };
    let verdict = if p.agrees { "agrees" } else { "the shares do not explain this ratio" };
    format!("{profile} ×{:.2}{interval}: {verdict}", p.measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(
        id: &'a str,
        storage: f64,
        tps: f64,
        over: Option<(&'a str, Option<f64>, Option<f64>)>,
    ) -> Side<'a, u8> {
        Side { id, beside: 1, shares: Some([storage, 0.0]), tps: Some(tps), over }
    }

    #[test]
    fn a_share_predicts_the_cells_without_it_and_is_checked() {
        // Storage half of disk's time predicts ×2; nosync measured ×2.4 (1.8–3.0) agrees,
        // ram ×3.0 with no interval is 33% off: the shares do not explain it.
        let cells = [
            side("disk", 0.5, 1000.0, None),
            side("nosync", 0.01, 2400.0, Some(("disk", Some(1.8), Some(3.0)))),
            side("ram", 0.0, 3000.0, None),
            Side { beside: 2, ..side("other", 0.0, 5000.0, None) },
        ];
        let made = predict(&cells);
        let disk = &made[0];
        assert_eq!(disk.iter().map(|p| p.cell.as_str()).collect::<Vec<_>>(), ["nosync", "ram"]);
        assert!((disk[0].predicted - 2.0).abs() < 1e-9 && (disk[0].measured - 2.4).abs() < 1e-9);
        assert!(disk[0].agrees && !disk[1].agrees && missed(disk));
        assert!(made[1..].iter().all(Vec::is_empty), "{made:?}");
        let line = &lines("disk", [0.5, 0.0], disk, |id| id.to_uppercase())[0];
        assert!(
            line.contains("storage 50% predicts ×2.00") && line.contains("NOSYNC ×2.40 (1.80–3.00): agrees"),
            "{line}"
        );
        assert!(line.ends_with("RAM ×3.00: the shares do not explain this ratio"), "{line}");
    }

    #[test]
    fn a_disk_reads_share_predicts_the_cell_whose_cache_holds_the_data() {
        let small = Side { shares: Some([0.0, 0.4]), ..side("pool=8M", 0.0, 1000.0, None) };
        let large = Side { shares: Some([0.0, 0.0]), ..side("pool=1G", 0.0, 1600.0, Some(("pool=8M", None, None))) };
        let made = predict(&[small, large]);
        assert_eq!(made[0].len(), 1);
        let p = &made[0][0];
        assert_eq!((p.share, p.cell.as_str(), p.agrees), ("disk reads", "pool=1G", true));
        assert!((p.predicted - 1.0 / 0.6).abs() < 1e-9, "{p:?}");
        let said = lines("pool=8M", [0.0, 0.4], &made[0], str::to_string);
        assert_eq!(
            said,
            ["predicted: pool=8M disk reads 40% predicts ×1.67 without it; measured pool=1G ×1.60: agrees"]
        );
    }

    #[test]
    fn a_small_share_predicts_nothing() {
        let cells = [side("disk", 0.05, 1000.0, None), side("nosync", 0.0, 1100.0, None)];
        assert!(predict(&cells).iter().all(Vec::is_empty));
    }
}
