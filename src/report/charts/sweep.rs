//! A sweep as lines: `--sweep KEY=a,b,c` makes cells named `PROFILE+KEY=VALUE`; here each
//! engine × profile is a line over the values (in the order given), at its median tps
//! with its interval. Over client counts (a group of every count), each engine ×
//! profile is a line over the counts: how it scales.

use super::axis::{self, Scale};
use super::svg::{INK, Svg};
use super::{Group, Key, Panel, Style, WIDTH, legend};
use crate::report::{Row, interval_words, sig3, usual_level};

/// Split a sweep cell's profile name `PROFILE+KEY=VALUE` into its parts.
pub fn split(profile: &str) -> Option<(&str, &str, &str)> {
    let (base, setting) = profile.split_once('+')?;
    let (key, value) = setting.split_once('=')?;
    Some((base, key, value))
}

/// One line: (engine, base profile) and its points as (value index, row).
type Line<'a> = ((&'a str, &'a str), Vec<(usize, &'a Row)>);

/// Draw the sweep panel of one group, if it has sweep cells.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Option<Panel> {
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
    let key = keys_seen.join(", ");
    let legend_keys: Vec<Key> = lines
        .iter()
        .map(|((engine, base), _)| Key {
            label: format!("{engine} {base}"),
            color: style.color(base),
            dash: style.dash(engine),
        })
        .collect();
    let mut svg = Svg::new(WIDTH, 0.0);
    let usual = usual_level(lines.iter().flat_map(|l| l.1.iter().map(|(_, r)| r.tps.and_then(|t| t.confidence))));
    let caption = format!("median tps with its {}, higher is better", interval_words(usual));
    svg.title(&format!("Sweep of {key} — {}", g.name()), &caption);
    let top = legend(&mut svg, &legend_keys, 70.0, 50.0, WIDTH - 20.0) + 6.0;
    let bottom = top + 280.0;
    svg.height = bottom + 52.0;
    let (left, right) = (70.0, WIDTH - 24.0);
    let ends = || {
        lines.iter().flat_map(|l| {
            l.1.iter().filter_map(|(_, r)| r.tps).flat_map(|t| [Some(t.median), t.lo, t.hi].into_iter().flatten())
        })
    };
    let max = ends().fold(0.0, f64::max);
    let min = ends().filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    let (ys, yticks, log) = Scale::auto(min, max, bottom, top);
    // Values are categories, evenly spaced with half a step of margin at each end.
    let step = (right - left) / values.len() as f64;
    let xpx = |i: usize| left + step * (i as f64 + 0.5);
    axis::left(&mut svg, &ys, &axis::labelled(&yticks), left, right, &format!("tps{log}"));
    let xs = Scale { lo: 0.0, hi: values.len() as f64, from: left, to: right, log: false };
    let xticks: Vec<(f64, String)> = values.iter().enumerate().map(|(i, v)| (i as f64 + 0.5, v.to_string())).collect();
    axis::bottom(&mut svg, &xs, &xticks, bottom, top, key.as_str());

    let mut marks = 0;
    for ((engine, base), points) in &lines {
        let color = style.color(base);
        let mut measured: Vec<(usize, &Row)> = points.iter().filter(|(_, r)| r.tps.is_some()).copied().collect();
        measured.sort_by_key(|(x, _)| *x);
        let line: Vec<(f64, f64)> =
            measured.iter().map(|(x, r)| (xpx(*x), ys.px(r.tps.map_or(0.0, |t| t.median)))).collect();
        if line.len() > 1 {
            svg.polyline(&line, color, 2.2, &format!(r#" class="series"{}"#, style.dash(engine)));
        }
        for ((x, r), p) in measured.iter().zip(&line) {
            let t = r.tps.expect("measured");
            if let (Some(lo), Some(hi)) = (t.lo, t.hi) {
                let cx = xpx(*x);
                svg.line((cx, ys.px(lo)), (cx, ys.px(hi)), INK, 1.3, r#" class="whisker""#);
                svg.line((cx - 4.0, ys.px(lo)), (cx + 4.0, ys.px(lo)), INK, 1.3, "");
                svg.line((cx - 4.0, ys.px(hi)), (cx + 4.0, ys.px(hi)), INK, 1.3, "");
            }
            let ci = match (t.lo, t.hi, t.confidence) {
                (Some(lo), Some(hi), Some(l)) => {
                    format!(" ({} interval {}–{})", crate::stats::percent(l), sig3(lo), sig3(hi))
                }
                _ => String::new(),
            };
            let tip = format!("{engine} {}: median {} tps{ci} over {} repeat(s)", r.profile, sig3(t.median), t.n);
            svg.dot(*p, 4.0, color, "point", &tip);
        }
        marks += 1;
    }
    Some(Panel { height: svg.height, svg: svg.finish("sweep", marks, &format!("Sweep of {key}, {}", g.name())) })
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
