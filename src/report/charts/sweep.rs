//! A sweep as lines: `--sweep KEY=a,b,c` makes cells named `PROFILE+KEY=VALUE`; here each
//! engine × profile is a line over the values (in the order given), at its median tps
//! with its interval. Over client counts (a group of every count), each engine ×
//! profile is a line over the counts: how it scales.

use super::axis::{self, Scale};
use super::svg::{INK, Svg};
use super::{Group, Key, Panel, Style, WIDTH, legend};
use crate::report::{Row, interval_words, sig3, usual_level};
use crate::stats::Estimate;

/// Split a sweep cell's profile name `PROFILE+KEY=VALUE` into its parts.
pub fn split(profile: &str) -> Option<(&str, &str, &str)> {
    let (base, setting) = profile.split_once('+')?;
    let (key, value) = setting.split_once('=')?;
    Some((base, key, value))
}

/// One line: (engine, base profile) and its points as (value index, row).
pub(super) type Line<'a> = ((&'a str, &'a str), Vec<(usize, &'a Row)>);

/// Draw the sweep panel of one group, if it has sweep cells.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Option<Panel> {
    let sweep = gather(g, rows)?;
    let mut svg = Svg::new(WIDTH, 0.0);
    let frame = frame(&mut svg, g, &sweep, style);
    for line in &sweep.lines {
        draw_line(&mut svg, &frame, style, line);
    }
    let label = format!("Sweep of {}, {}", sweep.key, g.name());
    Some(Panel { height: svg.height, svg: svg.finish("sweep", sweep.lines.len(), &label) })
}

/// A group's sweep cells as lines over the swept values.
pub(super) struct Sweep<'a> {
    /// The swept key (or keys, joined), the x axis's title.
    pub key: String,
    /// The values, in the order first met.
    pub values: Vec<String>,
    /// The lines, in the order first met.
    pub lines: Vec<Line<'a>>,
}

/// Gather a group's sweep cells into lines; none when it has none.
pub(super) fn gather<'a>(g: &Group<'a>, rows: &'a [Row]) -> Option<Sweep<'a>> {
    let mut keys_seen: Vec<&str> = Vec::new();
    let mut values: Vec<String> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    for (i, c) in &g.cells {
        let (base, key, value) = if g.clients == 0 {
            (c.profile.name.as_str(), "clients", c.clients.to_string())
        } else {
            let Some((base, key, value)) = split(&c.profile.name) else { continue };
            (base, key, value.to_string())
        };
        if !keys_seen.contains(&key) {
            keys_seen.push(key);
        }
        let x = values.iter().position(|v| *v == value).unwrap_or_else(|| {
            values.push(value);
            values.len() - 1
        });
        let id = (c.engine.as_str(), base);
        match lines.iter_mut().find(|l| l.0 == id) {
            Some(l) => l.1.push((x, &rows[*i])),
            None => lines.push((id, vec![(x, &rows[*i])])),
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(Sweep { key: keys_seen.join(", "), values, lines })
}

/// Where a sweep's points go: tps up the side, the values evenly along the bottom.
struct Frame {
    /// The tps scale.
    ys: Scale,
    /// The x of the plot's left edge.
    left: f64,
    /// The width of one value's slot.
    step: f64,
}

impl Frame {
    /// The x of value `i`, in the middle of its slot.
    fn x(&self, i: usize) -> f64 {
        self.left + self.step * (i as f64 + 0.5)
    }
}

/// The title, the legend and both axes; the frame the lines go in.
fn frame(svg: &mut Svg, g: &Group, sweep: &Sweep, style: &Style) -> Frame {
    let usual = usual_level(sweep.lines.iter().flat_map(|l| l.1.iter().map(|(_, r)| r.tps.and_then(|t| t.confidence))));
    let caption = format!("median tps with its {}, higher is better", interval_words(usual));
    svg.title(&format!("Sweep of {} — {}", sweep.key, g.name()), &caption);
    let top = legend(svg, &legend_keys(&sweep.lines, style), 70.0, 50.0, WIDTH - 20.0) + 6.0;
    let bottom = top + 280.0;
    svg.height = bottom + 52.0;
    let (left, right) = (70.0, WIDTH - 24.0);
    let (min, max) = tps_range(&sweep.lines);
    let (ys, yticks, log) = Scale::auto(min, max, bottom, top);
    axis::left(svg, &ys, &axis::labelled(&yticks), left, right, &format!("tps{log}"));
    // Values are categories, evenly spaced with half a step of margin at each end.
    let n = sweep.values.len() as f64;
    let xs = Scale { lo: 0.0, hi: n, from: left, to: right, log: false };
    let xticks: Vec<(f64, String)> =
        sweep.values.iter().enumerate().map(|(i, v)| (i as f64 + 0.5, v.to_string())).collect();
    axis::bottom(svg, &xs, &xticks, bottom, top, sweep.key.as_str());
    Frame { ys, left, step: (right - left) / n }
}

/// A legend key per line: its profile's colour, its engine's dash.
pub(super) fn legend_keys(lines: &[Line], style: &Style) -> Vec<Key> {
    lines
        .iter()
        .map(|((engine, base), _)| Key {
            label: format!("{engine} {base}"),
            color: style.color(base),
            dash: style.dash(engine),
        })
        .collect()
}

/// The lowest positive and the highest tps the lines reach, interval ends included.
fn tps_range(lines: &[Line]) -> (f64, f64) {
    let ends = || {
        lines.iter().flat_map(|l| {
            l.1.iter().filter_map(|(_, r)| r.tps).flat_map(|t| [Some(t.median), t.lo, t.hi].into_iter().flatten())
        })
    };
    let max = ends().fold(0.0, f64::max);
    let min = ends().filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    (min, max)
}

/// One line through its measured points, each with its interval's whisker and a tooltip.
fn draw_line(svg: &mut Svg, frame: &Frame, style: &Style, ((engine, base), points): &Line) {
    let color = style.color(base);
    let mut measured: Vec<(usize, &Row)> = points.iter().filter(|(_, r)| r.tps.is_some()).copied().collect();
    measured.sort_by_key(|(x, _)| *x);
    let ys = &frame.ys;
    let line: Vec<(f64, f64)> =
        measured.iter().map(|(x, r)| (frame.x(*x), ys.px(r.tps.map_or(0.0, |t| t.median)))).collect();
    if line.len() > 1 {
        svg.polyline(&line, color, 2.2, &format!(r#" class="series"{}"#, style.dash(engine)));
    }
    for ((x, r), p) in measured.iter().zip(&line) {
        let t = r.tps.expect("measured");
        if let (Some(lo), Some(hi)) = (t.lo, t.hi) {
            whisker(svg, frame.x(*x), ys.px(lo), ys.px(hi));
        }
        svg.dot(*p, 4.0, color, "point", &point_tip(engine, r, &t));
    }
}

/// An interval's whisker at `x`, from `lo` to `hi` (pixels), with a cap at each end.
fn whisker(svg: &mut Svg, x: f64, lo: f64, hi: f64) {
    svg.line((x, lo), (x, hi), INK, 1.3, r#" class="whisker""#);
    svg.line((x - 4.0, lo), (x + 4.0, lo), INK, 1.3, "");
    svg.line((x - 4.0, hi), (x + 4.0, hi), INK, 1.3, "");
}

/// A point's tooltip: its median tps, its interval and how many repeats it is of.
fn point_tip(engine: &str, r: &Row, t: &Estimate) -> String {
    let ci = match (t.lo, t.hi, t.confidence) {
        (Some(lo), Some(hi), Some(l)) => {
            format!(" ({} interval {}–{})", crate::stats::percent(l), sig3(lo), sig3(hi))
        }
        _ => String::new(),
    };
    format!("{engine} {}: median {} tps{ci} over {} repeat(s)", r.profile, sig3(t.median), t.n)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn sweep_names_split_at_the_first_plus_and_equals() {
        assert_eq!(split("disk+shared_buffers=128MB"), Some(("disk", "shared_buffers", "128MB")));
        assert_eq!(split("ram+cache_size=-2000"), Some(("ram", "cache_size", "-2000")));
        assert_eq!(split("ram-nosync"), None);
    }
}
