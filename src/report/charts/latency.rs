//! Latency percentile curves: for each cell, the latency at each percentile from p50 to
//! p99.9, from the HdrHistogram of all its measured transactions. The percentile axis is
//! in "nines" (p90, p99, p99.9 equally spaced), the latency axis logarithmic.

use super::axis::{self, Scale};
use super::svg::Svg;
use super::{Group, Key, Panel, Style, WIDTH, cell_label, legend};
use crate::error::Result;
use crate::results::{CellResult, decode_histogram, new_histogram};
use hdrhistogram::Histogram;

/// Marked and labelled percentiles.
const MARKED: [(f64, &str); 7] =
    [(0.5, "p50"), (0.75, "p75"), (0.9, "p90"), (0.95, "p95"), (0.99, "p99"), (0.995, "p99.5"), (0.999, "p99.9")];
const CURVE_POINTS: usize = 60;

/// Position of quantile `q` on the nines axis: p90 → 1, p99 → 2, p99.9 → 3.
fn nines(q: f64) -> f64 {
    -(1.0 - q).log10()
}

/// Draw the latency panel of one group.
pub fn draw(g: &Group, style: &Style) -> Result<Panel> {
    let mut hists = Vec::new();
    for (_, c) in &g.cells {
        let mut h = new_histogram();
        for r in c.repeats.iter().filter(|r| r.status.measured() && !r.histogram.is_empty()) {
            h.add(decode_histogram(&r.histogram)?)
                .map_err(|e| bad_input!("cannot merge latency histograms of {}: {e:?}", c.id))?;
        }
        hists.push((*c, h));
    }
    Ok(panel(&hists, style, (&g.name(), "latency"), &[]))
}

/// The milliseconds every panel of `hists` shares on its axis: p50 to p99.9 of them all.
pub fn span<'a>(hists: impl IntoIterator<Item = &'a Histogram<u64>>) -> [f64; 2] {
    let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1e6;
    let drawn = hists.into_iter().filter(|h| !h.is_empty());
    drawn.fold([f64::MAX, 0.0], |[lo, hi], h| [lo.min(ms(h, 0.5)), hi.max(ms(h, 0.999))])
}

/// A panel of latency percentile curves, one per cell of `hists` that has transactions,
/// titled after `name`, `kind` its chart's name in the page; its axis covers `shared`
/// milliseconds too, so panels side by side read on one scale.
pub fn panel(
    hists: &[(&CellResult, Histogram<u64>)],
    style: &Style,
    (name, kind): (&str, &str),
    shared: &[f64],
) -> Panel {
    // (label, engine, profile, [(quantile, ms)]) for every cell with measured transactions.
    let mut curves = Vec::new();
    for (c, h) in hists {
        if h.is_empty() {
            continue;
        }
        let (lo, hi) = (nines(0.5), nines(0.999));
        let qs = (0..CURVE_POINTS).map(|i| {
            let x = lo + (hi - lo) * i as f64 / (CURVE_POINTS - 1) as f64;
            1.0 - 10f64.powf(-x)
        });
        let points: Vec<(f64, f64)> =
            qs.chain(MARKED.iter().map(|m| m.0)).map(|q| (q, h.value_at_quantile(q) as f64 / 1e6)).collect();
        curves.push((cell_label(c), c.engine.as_str(), c.profile.name.as_str(), points, h.len()));
    }

    let keys: Vec<Key> = curves
        .iter()
        .map(|(label, engine, profile, ..)| Key {
            label: label.clone(),
            color: style.color(profile),
            dash: style.dash(engine),
        })
        .collect();
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(&format!("Latency percentiles — {name}"), "milliseconds, lower is better");
    let top = legend(&mut svg, &keys, 70.0, 50.0, WIDTH - 20.0) + 6.0;
    let bottom = top + 300.0;
    svg.height = bottom + 52.0;
    let (left, right) = (70.0, WIDTH - 24.0);
    if curves.is_empty() {
        svg.empty((top + bottom) / 2.0, "no measured transactions in these cells");
        return Panel { height: svg.height, svg: svg.finish(kind, 0, &format!("Latency, {name}")) };
    }

    let all = curves.iter().flat_map(|c| c.3.iter().map(|p| p.1)).chain(shared.iter().copied()).filter(|v| *v > 0.0);
    let (min, max) = all.fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (ys, yticks) = Scale::log_covering(min, max, bottom, top);
    let xs = Scale { lo: nines(0.5), hi: nines(0.999), from: left, to: right, log: false };
    axis::left(&mut svg, &ys, &axis::labelled(&yticks), left, right, "latency, ms (log scale)");
    let xticks: Vec<(f64, String)> = MARKED.iter().map(|(q, l)| (nines(*q), l.to_string())).collect();
    axis::bottom(&mut svg, &xs, &xticks, bottom, top, "percentile: the share of transactions at or below that latency");

    let mut marks = 0;
    for (label, engine, profile, points, count) in &curves {
        let color = style.color(profile);
        let line: Vec<(f64, f64)> =
            points[..CURVE_POINTS].iter().map(|(q, ms)| (xs.px(nines(*q)), ys.px(*ms))).collect();
        svg.polyline(&line, color, 2.2, &format!(r#" class="series"{}"#, style.dash(engine)));
        marks += 1;
        for ((q, ms), (_, name)) in points[CURVE_POINTS..].iter().zip(MARKED.iter()) {
            let tip = format!("{label} {name}: {} ms ({count} transactions)", ms_text(*ms));
            svg.dot((xs.px(nines(*q)), ys.px(*ms)), 3.0, color, "point", &tip);
        }
    }
    Panel { height: svg.height, svg: svg.finish(kind, marks, &format!("Latency, {name}")) }
}

fn ms_text(ms: f64) -> String {
    match ms {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 1.0 => format!("{m:.2}"),
        m => format!("{m:.4}"),
    }
}
