//! tps per cell: a bar to the median, a whisker over its interval, a dot per repeat,
//! grouped by engine, coloured by profile.

use super::axis::{self, Scale};
use super::svg::{ALERT, Anchor, INK, MUTED, Svg};
use super::{Group, Panel, Style, WIDTH, font};
use crate::report::{Row, interval_words, sig3, usual_level};

const ROW: f64 = 26.0;
const GAP: f64 = 10.0;
const TOP: f64 = 44.0;

/// Draw the tps panel of one group.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Panel {
    let rows: Vec<&Row> = g.cells.iter().map(|(i, _)| &rows[*i]).collect();
    let repeats =
        |i: usize| -> Vec<f64> { g.cells[i].1.repeats.iter().filter(|r| r.status.measured()).map(|r| r.tps).collect() };
    let engine_w = rows.iter().map(|r| font::text_width(&r.engine, 12.0) * 1.04).fold(0.0, f64::max);
    let profile_w = rows.iter().map(|r| font::text_width(&r.profile, 12.0)).fold(0.0, f64::max);
    let values: Vec<String> = rows.iter().map(|r| value_text(r)).collect();
    let value_w = values.iter().map(|v| font::text_width(v, 11.0)).fold(0.0, f64::max);
    let left = 16.0 + engine_w + 14.0 + profile_w + 10.0;
    let right = WIDTH - 16.0 - value_w - 8.0;
    let engine_breaks = rows.windows(2).filter(|w| w[0].engine != w[1].engine).count();
    let bottom = TOP + rows.len() as f64 * ROW + engine_breaks as f64 * GAP;
    let usual = usual_level(rows.iter().map(|r| r.tps.and_then(|t| t.confidence)));
    let mut svg = Svg::new(WIDTH, bottom + 50.0);
    svg.title(&format!("Throughput — {}", g.name()), "transactions per second, higher is better");

    let max =
        (0..rows.len()).flat_map(|i| repeats(i).into_iter().chain(rows[i].tps.and_then(|t| t.hi))).fold(0.0, f64::max);
    let (scale, ticks) = Scale::zero_based(max, left, right);
    axis::bottom(
        &mut svg,
        &scale,
        &axis::labelled(&ticks),
        bottom,
        TOP - 6.0,
        &format!("bar: median over repeats · whisker: its {} · dots: each repeat", interval_words(usual)),
    );

    let mut y = TOP;
    let mut marks = 0;
    for (i, r) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].engine != r.engine {
            y += GAP;
            svg.line((16.0, y - GAP / 2.0), (right, y - GAP / 2.0), "#d0d7de", 1.0, "");
        }
        let mid = y + ROW / 2.0;
        if i == 0 || rows[i - 1].engine != r.engine {
            svg.text((16.0, mid + 4.0), &r.engine, 12.0, Anchor::Start, INK, r#" font-weight="bold""#);
        }
        svg.text((left - 10.0, mid + 4.0), &r.profile, 12.0, Anchor::End, INK, "");
        let color = style.color(&r.profile);
        match r.tps {
            Some(t) => {
                let x0 = scale.px(0.0);
                let tip = format!("{} {}: {}", r.engine, r.profile, tip_text(r));
                svg.raw(&format!(
                    r#"<rect class="bar" x="{}" y="{}" width="{}" height="16" rx="2" fill="{color}" fill-opacity="0.88"><title>{}</title></rect>"#,
                    super::svg::n(x0),
                    super::svg::n(mid - 8.0),
                    super::svg::n((scale.px(t.median) - x0).max(1.0)),
                    super::svg::esc(&tip)
                ));
                marks += 1;
                let mut end = scale.px(t.median);
                if let (Some(lo), Some(hi)) = (t.lo, t.hi) {
                    let (a, b) = (scale.px(lo), scale.px(hi));
                    svg.line((a, mid), (b, mid), INK, 1.5, r#" class="whisker""#);
                    svg.line((a, mid - 5.0), (a, mid + 5.0), INK, 1.5, "");
                    svg.line((b, mid - 5.0), (b, mid + 5.0), INK, 1.5, "");
                    end = end.max(b);
                }
                for (k, v) in repeats(i).iter().enumerate() {
                    svg.dot((scale.px(*v), mid), 2.6, INK, "repeat", &format!("repeat {}: {} tps", k + 1, sig3(*v)));
                    end = end.max(scale.px(*v));
                }
                svg.text((end + 8.0, mid + 4.0), &values[i], 11.0, Anchor::Start, MUTED, "");
            }
            None => {
                let why = if r.failed_repeats > 0 { "failed: no repeat measured" } else { "not run" };
                svg.text((left + 4.0, mid + 4.0), why, 12.0, Anchor::Start, ALERT, r#" class="missing""#);
            }
        }
        y += ROW;
    }
    Panel { height: svg.height, svg: svg.finish("tps", marks, &format!("Throughput, {}", g.name())) }
}

/// The label at a bar's end: the median, and the ratio to the baseline when there is one.
fn value_text(r: &Row) -> String {
    let Some(t) = r.tps else { return String::new() };
    match (&r.vs_baseline, &r.baseline) {
        (_, Some(b)) if *b == r.id => format!("{} · baseline", sig3(t.median)),
        (Some(x), _) => format!("{} · {}×", sig3(t.median), sig3(x.value)),
        _ => sig3(t.median),
    }
}

fn tip_text(r: &Row) -> String {
    let t = r.tps.expect("measured");
    let ci = match (t.lo, t.hi) {
        (Some(lo), Some(hi)) => {
            let level = t.confidence.map_or(String::new(), |l| format!("{} ", crate::stats::percent(l)));
            format!(" ({level}interval {}–{})", sig3(lo), sig3(hi))
        }
        _ => String::new(),
    };
    format!("median {} tps{ci} over {} repeat(s)", sig3(t.median), t.n)
}
