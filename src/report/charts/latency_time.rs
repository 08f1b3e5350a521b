//! Latency over time, from `--log-interval` slices: each measured repeat's p95 (thick) and
//! p99 (thin) per slice, so a stall or a checkpoint shows in the tail, not only in tps.
//! Drawn only for repeats that have slices.

use super::axis::{self, Scale};
use super::svg::Svg;
use super::timeline::spans;
use super::{Group, Key, Panel, Style, WIDTH, cell_label, legend};
use crate::error::Result;
use crate::results::{RepeatResult, decode_histogram};

/// A repeat's (slice middle, p95 ms, p99 ms) for each slice with transactions.
pub fn tails(r: &RepeatResult, every: f64) -> Result<Vec<(f64, f64, f64)>> {
    let mut out = Vec::new();
    for (i, span) in r.intervals.iter().zip(spans(r.intervals.iter().map(|i| i.start_s), every, r.duration_s)) {
        let Some(span) = span else { continue };
        if i.transactions == 0 || i.histogram.is_empty() {
            continue;
        }
        let h = decode_histogram(&i.histogram)?;
        let ms = |q: f64| h.value_at_quantile(q) as f64 / 1e6;
        out.push((i.start_s + span / 2.0, ms(0.95), ms(0.99)));
    }
    Ok(out)
}

/// The latency-over-time panel of one group, if any of its repeats has slices.
pub fn draw(g: &Group, style: &Style, every: Option<f64>) -> Result<Option<Panel>> {
    let Some(every) = every.filter(|e| *e > 0.0) else { return Ok(None) };
    let mut series = Vec::new();
    for (_, c) in &g.cells {
        let mut reps = Vec::new();
        for r in c.repeats.iter().filter(|r| r.status.measured() && !r.intervals.is_empty()) {
            let t = tails(r, every)?;
            if !t.is_empty() {
                reps.push(t);
            }
        }
        if !reps.is_empty() {
            series.push((c, reps));
        }
    }
    if series.is_empty() {
        return Ok(None);
    }
    let keys: Vec<Key> = series
        .iter()
        .map(|(c, _)| Key { label: cell_label(c), color: style.color(&c.profile.name), dash: style.dash(&c.engine) })
        .collect();
    let mut svg = Svg::new(WIDTH, 0.0);
    let sub = format!("p95 (thick) and p99 (thin) in each {} s slice, one pair per repeat", axis::label(every));
    svg.title(&format!("Latency over time — {}", g.name()), &sub);
    let top = legend(&mut svg, &keys, 70.0, 50.0, WIDTH - 20.0) + 6.0;
    let bottom = top + 260.0;
    svg.height = bottom + 52.0;
    let (left, right) = (70.0, WIDTH - 24.0);
    let points = || series.iter().flat_map(|(_, reps)| reps.iter().flatten());
    let max_t = points().map(|p| p.0 + every / 2.0).fold(every, f64::max);
    let values = || points().flat_map(|p| [p.1, p.2]).filter(|v| *v > 0.0);
    let (min, max) = values().fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (ys, yticks) = Scale::log_covering(min.min(max), max, bottom, top);
    let xticks = axis::nice_ticks(0.0, max_t, 8);
    let xs = Scale { lo: 0.0, hi: *xticks.last().unwrap_or(&max_t), from: left, to: right, log: false };
    axis::left(&mut svg, &ys, &axis::labelled(&yticks), left, right, "latency, ms (log scale)");
    axis::bottom(&mut svg, &xs, &axis::labelled(&xticks), bottom, top, "seconds since the measurement began");

    let mut marks = 0;
    for (c, reps) in &series {
        let color = style.color(&c.profile.name);
        for (k, pts) in reps.iter().enumerate() {
            for (name, width, pick) in [("p95", 2.0, 1), ("p99", 1.0, 2)] {
                let value = |p: &(f64, f64, f64)| if pick == 1 { p.1 } else { p.2 };
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (xs.px(p.0), ys.px(value(p)))).collect();
                if line.len() > 1 {
                    let extra = format!(r#" class="series" stroke-opacity="0.85"{}"#, style.dash(&c.engine));
                    svg.polyline(&line, color, width, &extra);
                }
                for (p, at) in pts.iter().zip(&line) {
                    let tip = format!("{} repeat {}: {name} {:.3} ms at {:.1} s", cell_label(c), k + 1, value(p), p.0);
                    svg.dot(*at, if line.len() > 1 { width + 0.5 } else { 3.5 }, color, "point", &tip);
                }
            }
            marks += 1;
        }
    }
    let label = format!("Latency over time, {}", g.name());
    Ok(Some(Panel { height: svg.height, svg: svg.finish("timeline-latency", marks, &label) }))
}
