//! Costs per transaction as small multiples: for each figure some cell of the group has
//! (fsyncs, flushes, log and disk bytes, cache reads, server and client CPU), a column of
//! bars, one per cell, on the figure's own scale from zero, its value at the bar's end.

use super::svg::{Anchor, INK, MUTED, Svg, esc, n};
use super::{Group, Panel, Style, WIDTH, cell_rows, font};
use crate::report::cost::Cost;
use crate::report::{Row, sig3};

const ROW: f64 = 22.0;
const BAR: f64 = 13.0;
/// The most figures side by side; more wrap into another block of the same rows.
const ACROSS: usize = 4;

/// A figure: its heading, its words in a tooltip, and where a cost has it.
pub struct Figure {
    /// The column's heading.
    pub name: &'static str,
    /// What one unit is, for a tooltip ("fsyncs").
    pub unit: &'static str,
    /// Its value per transaction.
    pub get: fn(&Cost) -> Option<f64>,
}

/// The figures, in the order they are drawn.
pub const FIGURES: [Figure; 7] = [
    Figure { name: "fsyncs/tx", unit: "fsyncs by the server", get: |c| c.fsyncs },
    Figure { name: "disk flushes/tx", unit: "flushes of the data location's disk", get: |c| c.flushes },
    Figure { name: "log bytes/tx", unit: "bytes of WAL, redo or append-only log", get: |c| c.log_bytes },
    Figure { name: "disk bytes/tx", unit: "bytes written to the data location's disk", get: |c| c.disk_write_bytes },
    Figure { name: "cache reads/tx", unit: "pages read into the server's cache", get: |c| c.cache_misses },
    Figure { name: "server CPU µs/tx", unit: "µs of the server's CPU", get: |c| c.server_cpu_us },
    Figure { name: "client CPU µs/tx", unit: "µs of the clients' CPU", get: |c| Some(c.client_cpu_us) },
];

/// The panel of one group, if any of its cells has costs.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Option<Panel> {
    let rows: Vec<&Row> = g.cells.iter().map(|(i, _)| &rows[*i]).collect();
    let figures: Vec<&Figure> =
        FIGURES.iter().filter(|f| rows.iter().any(|r| r.cost.as_ref().and_then(f.get).is_some())).collect();
    if figures.is_empty() {
        return None;
    }
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(
        &format!("Costs per transaction — {}", g.name()),
        "over each cell's measured repeats, each figure on its own scale from zero",
    );
    let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.engine.as_str(), r.profile.as_str())).collect();
    let blocks = figures.len().div_ceil(ACROSS);
    let across = figures.len().div_ceil(blocks);
    let mut top = 44.0;
    let mut marks = 0;
    for block in figures.chunks(across) {
        let layout = cell_rows(&mut svg, &names, top + 22.0, ROW, WIDTH - 16.0);
        let width = (WIDTH - 16.0 - layout.left) / across as f64;
        for (k, f) in block.iter().enumerate() {
            let x = layout.left + k as f64 * width;
            marks += column(&mut svg, f, &rows, &layout.mids, (x, x + width - 14.0), (top, layout.bottom), style);
        }
        top = layout.bottom + 18.0;
    }
    svg.height = top + 4.0;
    Some(Panel { height: svg.height, svg: svg.finish("costs", marks, &format!("Costs per transaction, {}", g.name())) })
}

/// One figure's column between `x0` and `x1`: its heading at `top`, a bar per row to
/// `bottom`; returns the bars drawn.
fn column(
    svg: &mut Svg,
    f: &Figure,
    rows: &[&Row],
    mids: &[f64],
    (x0, x1): (f64, f64),
    (top, bottom): (f64, f64),
    style: &Style,
) -> usize {
    let values: Vec<Option<f64>> = rows.iter().map(|r| r.cost.as_ref().and_then(f.get)).collect();
    let texts: Vec<String> = values.iter().map(|v| v.map_or("–".into(), value_text)).collect();
    svg.text((x0, top + 14.0), f.name, 12.0, Anchor::Start, INK, r#" font-weight="bold""#);
    let text_w = texts.iter().map(|t| font::text_width(t, 11.0)).fold(0.0, f64::max);
    let end = (x1 - text_w - 6.0).max(x0 + 20.0);
    let max = values.iter().flatten().fold(0.0, |a: f64, b| a.max(*b));
    svg.line((x0, top + 20.0), (x0, bottom), "#8c959f", 1.0, "");
    let mut drawn = 0;
    for ((r, v), (text, mid)) in rows.iter().zip(&values).zip(texts.iter().zip(mids)) {
        let Some(v) = v else {
            svg.text((x0 + 4.0, mid + 4.0), text, 11.0, Anchor::Start, MUTED, r#" class="missing""#);
            continue;
        };
        let w = if max > 0.0 { (v / max * (end - x0)).max(1.0) } else { 1.0 };
        let tip = format!("{} {}: {} {} per transaction", r.engine, r.profile, sig3(*v), f.unit);
        svg.raw(&format!(
            r#"<rect class="bar" x="{}" y="{}" width="{}" height="{}" rx="2" fill="{}" fill-opacity="0.88"><title>{}</title></rect>"#,
            n(x0),
            n(mid - BAR / 2.0),
            n(w),
            n(BAR),
            style.color(&r.profile),
            esc(&tip)
        ));
        svg.text((x0 + w + 5.0, mid + 4.0), text, 11.0, Anchor::Start, MUTED, "");
        drawn += 1;
    }
    drawn
}

/// A value at a bar's end: three significant digits, a plain 0 for none.
fn value_text(v: f64) -> String {
    if v == 0.0 { "0".into() } else { sig3(v) }
}
