//! Counters over time, from the counters read at each `--log-interval` slice's end: per
//! transaction in each slice of each measured repeat, the syncs (the server's fsyncs, or
//! the disk's flushes where it counts none), the bytes logged (or written to the disk)
//! and the server's CPU, one plot each over a shared time axis; slices in which the
//! server ran a checkpoint are shaded, so a dip in the throughput chart can be matched
//! to what the server did then.

use super::axis::{self, Scale};
use super::svg::{AXIS, Anchor, GRID, INK, Svg, esc, n};
use super::timeline::spans;
use super::{Group, Key, Panel, Style, WIDTH, cell_label, legend, swatches};
use crate::counters::Counters;
use crate::results::{CellResult, RepeatResult};

/// Where a plot's figure comes from: its name in a tooltip, and its value in counters.
type Source = (&'static str, fn(&Counters) -> Option<f64>);

/// One plot: its heading, its axis title, and each source of its figure, preferred first
/// (a repeat takes the first its slices have), with the source's name for a tooltip.
struct Plot {
    heading: &'static str,
    axis: &'static str,
    /// A log scale where the values span more than 50× (else from zero: no sync at all
    /// must read as none, not as a small number on a log scale).
    log: bool,
    sources: &'static [Source],
}

const PLOTS: [Plot; 3] = [
    Plot {
        heading: "syncs per transaction: the server's fsyncs, or the disk's flushes where it counts none",
        axis: "syncs/tx",
        log: false,
        sources: &[("fsyncs", |c| c.figures.fsyncs), ("disk flushes", |c| c.device.as_ref().map(|d| d.flushes))],
    },
    Plot {
        heading: "bytes per transaction: of the log, or written to the disk where the server counts no log",
        axis: "bytes/tx",
        log: true,
        sources: &[
            ("log bytes", |c| c.figures.log_bytes),
            ("disk bytes written", |c| c.device.as_ref().map(|d| d.write_bytes)),
        ],
    },
    Plot {
        heading: "server CPU per transaction, µs",
        axis: "µs/tx",
        log: true,
        sources: &[("µs of server CPU", |c| c.processes.and_then(|p| p.cpu_s).map(|s| s * 1e6))],
    },
];

/// One slice of a repeat: where it starts, how long it was measured, each plot's figure
/// per transaction in it, and whether the server ran a checkpoint in it.
#[derive(Debug, PartialEq)]
pub struct Slice {
    /// Seconds from the measurement's start.
    pub start: f64,
    /// Its measured length, seconds.
    pub span: f64,
    /// Each plot's figure per transaction (none without transactions or that counter).
    pub values: [Option<f64>; 3],
    /// A checkpoint ran in it.
    pub checkpoint: bool,
}

/// A repeat's slices with counters, and the source each plot took its figure from.
pub struct Series<'a> {
    cell: &'a CellResult,
    repeat: u32,
    sources: [&'static str; 3],
    slices: Vec<Slice>,
}

/// A repeat's slices with counters (slivers left out, as the throughput chart does);
/// none when no slice has counters.
pub fn slices(r: &RepeatResult, every: f64) -> Option<(Vec<Slice>, [&'static str; 3])> {
    let with: Vec<(f64, f64, u64, &Counters)> = r
        .intervals
        .iter()
        .zip(spans(r.intervals.iter().map(|i| i.start_s), every, r.duration_s))
        .filter_map(|(i, span)| Some((i.start_s, span?, i.transactions, i.counters.as_ref()?)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let pick = |p: &Plot| p.sources.iter().find(|(_, get)| with.iter().any(|w| get(w.3).is_some()));
    let chosen: [Option<&Source>; 3] = [0, 1, 2].map(|k| pick(&PLOTS[k]));
    let out = with
        .iter()
        .map(|(start, span, tx, c)| Slice {
            start: *start,
            span: *span,
            values: chosen.map(|s| s.and_then(|(_, get)| get(c)).filter(|_| *tx > 0).map(|v| v / *tx as f64)),
            checkpoint: c.figures.checkpoints.is_some_and(|k| k > 0.0),
        })
        .collect();
    Some((out, chosen.map(|s| s.map_or("", |s| s.0))))
}

/// The panel of one group, if any of its measured repeats has slices with counters.
pub fn draw(g: &Group, style: &Style, every: Option<f64>) -> Option<Panel> {
    let every = every.filter(|e| *e > 0.0)?;
    let series: Vec<Series> = g
        .cells
        .iter()
        .flat_map(|(_, c)| {
            c.repeats.iter().filter(|r| r.status.measured()).filter_map(move |r| {
                let (slices, sources) = slices(r, every)?;
                Some(Series { cell: c, repeat: r.repeat, sources, slices })
            })
        })
        .filter(|s| s.slices.iter().any(|x| x.checkpoint || x.values.iter().any(Option::is_some)))
        .collect();
    let plots: Vec<usize> =
        (0..PLOTS.len()).filter(|k| series.iter().any(|s| s.slices.iter().any(|x| x.values[*k].is_some()))).collect();
    if plots.is_empty() {
        return None;
    }
    let mut keys: Vec<Key> = Vec::new();
    for s in &series {
        let label = cell_label(s.cell);
        if !keys.iter().any(|k| k.label == label) {
            keys.push(Key { label, color: style.color(&s.cell.profile.name), dash: style.dash(&s.cell.engine) });
        }
    }
    let mut svg = Svg::new(WIDTH, 0.0);
    let sub = format!("per transaction in each {} s slice, one line per repeat", axis::label(every));
    svg.title(&format!("Counters over time — {}", g.name()), &sub);
    let mut top = legend(&mut svg, &keys, 70.0, 50.0, WIDTH - 20.0);
    let checkpoints = series.iter().flat_map(|s| &s.slices).filter(|x| x.checkpoint).count();
    if checkpoints > 0 {
        let key = [("a slice in which the server ran a checkpoint (in its cell's colour)", "#d0d7de")];
        top = swatches(&mut svg, &key, 70.0, top + 8.0, WIDTH - 20.0);
    }
    let (left, right) = (70.0, WIDTH - 24.0);
    let max_t = series.iter().flat_map(|s| &s.slices).map(|x| x.start + x.span).fold(every, f64::max);
    let xticks = axis::nice_ticks(0.0, max_t, 8);
    let xs = Scale { lo: 0.0, hi: *xticks.last().unwrap_or(&max_t), from: left, to: right, log: false };

    let mut marks = 0;
    for (i, k) in plots.iter().enumerate() {
        let plot = &PLOTS[*k];
        svg.text((left, top + 22.0), plot.heading, 12.0, Anchor::Start, INK, "");
        let (ptop, pbottom) = (top + 32.0, top + 32.0 + 120.0);
        let values = || series.iter().flat_map(|s| &s.slices).filter_map(|x| x.values[*k]);
        let max = values().fold(0.0, f64::max);
        let min = values().filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
        let (ys, yticks, log) = if plot.log {
            Scale::auto(min, max, pbottom, ptop)
        } else {
            let (s, t) = Scale::zero_based(max, pbottom, ptop);
            (s, t, "")
        };
        let ylabels: Vec<(f64, String)> = yticks.iter().map(|t| (*t, axis::label(*t))).collect();
        axis::left(&mut svg, &ys, &ylabels, left, right, &format!("{}{log}", plot.axis));
        if i + 1 == plots.len() {
            axis::bottom(&mut svg, &xs, &axis::labelled(&xticks), pbottom, ptop, "seconds since the measurement began");
            svg.height = pbottom + 52.0;
        } else {
            for t in &xticks {
                svg.line((xs.px(*t), ptop), (xs.px(*t), pbottom), GRID, 1.0, "");
            }
            svg.line((left, pbottom), (right, pbottom), AXIS, 1.0, "");
        }
        for s in &series {
            shade(&mut svg, &xs, (ptop, pbottom), s, style);
        }
        for s in &series {
            marks += line(&mut svg, &xs, &ys, s, *k, style);
        }
        top = pbottom + 10.0;
    }
    Some(Panel { height: svg.height, svg: svg.finish("counters", marks, &format!("Counters over time, {}", g.name())) })
}

/// Shade the slices of `s` that had a checkpoint, from `top` to `bottom`.
fn shade(svg: &mut Svg, xs: &Scale, (top, bottom): (f64, f64), s: &Series, style: &Style) {
    for x in s.slices.iter().filter(|x| x.checkpoint) {
        let (a, b) = (xs.px(x.start), xs.px(x.start + x.span));
        let tip = format!(
            "{} repeat {}: a checkpoint in the slice {}–{} s",
            cell_label(s.cell),
            s.repeat,
            axis::label(x.start),
            axis::label(x.start + x.span)
        );
        svg.raw(&format!(
            r#"<rect class="checkpoint" x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="0.16"><title>{}</title></rect>"#,
            n(a),
            n(top),
            n((b - a).max(1.0)),
            n(bottom - top),
            style.color(&s.cell.profile.name),
            esc(&tip)
        ));
    }
}

/// Plot `k`'s line of one repeat, a dot per slice with a tooltip; 1 if drawn.
fn line(svg: &mut Svg, xs: &Scale, ys: &Scale, s: &Series, k: usize, style: &Style) -> usize {
    let points: Vec<(&Slice, f64)> = s.slices.iter().filter_map(|x| Some((x, x.values[k]?))).collect();
    if points.is_empty() {
        return 0;
    }
    let color = style.color(&s.cell.profile.name);
    let at: Vec<(f64, f64)> = points.iter().map(|(x, v)| (xs.px(x.start + x.span / 2.0), ys.px(*v))).collect();
    if at.len() > 1 {
        svg.polyline(
            &at,
            color,
            1.6,
            &format!(r#" class="series" stroke-opacity="0.85"{}"#, style.dash(&s.cell.engine)),
        );
    }
    for ((x, v), p) in points.iter().zip(&at) {
        let mut tip = format!(
            "{} repeat {}: {} {} per transaction in the slice at {} s",
            cell_label(s.cell),
            s.repeat,
            crate::report::sig3(*v),
            s.sources[k],
            axis::label(x.start)
        );
        if x.checkpoint {
            tip.push_str(", which had a checkpoint");
        }
        svg.dot(*p, if at.len() > 1 { 2.2 } else { 3.5 }, color, "point", &tip);
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{Device, Figures};
    use crate::results::Interval;

    fn slice(start_s: f64, transactions: u64, counters: Option<Counters>) -> Interval {
        Interval { start_s, transactions, counters, ..Default::default() }
    }

    #[test]
    fn a_repeat_takes_the_servers_fsyncs_else_the_disks_flushes_and_marks_checkpoints() {
        let mut r = RepeatResult::failed(1, String::new(), String::new(), String::new());
        r.duration_s = 2.05;
        let disk = |flushes: f64| Some(Device { flushes, write_bytes: 8192.0, ..Device::default() });
        let pg = |fsyncs: f64, checkpoints: f64| Counters {
            figures: Figures { fsyncs: Some(fsyncs), checkpoints: Some(checkpoints), ..Figures::default() },
            device: disk(2.0 * fsyncs),
            ..Counters::default()
        };
        r.intervals =
            vec![slice(0.0, 100, Some(pg(100.0, 0.0))), slice(1.0, 50, Some(pg(100.0, 1.0))), slice(2.0, 1, None)];
        let (s, sources) = slices(&r, 1.0).unwrap();
        assert_eq!(sources, ["fsyncs", "disk bytes written", ""]);
        // The last slice (0.05 s) is a sliver, and has no counters anyway.
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].values, s[0].checkpoint), ([Some(1.0), Some(81.92), None], false));
        assert_eq!((s[1].values, s[1].checkpoint), ([Some(2.0), Some(163.84), None], true));

        // No server counters (SQLite): the disk's flushes; a slice without transactions
        // has no figure per transaction.
        let sqlite = Counters { device: disk(3.0), ..Counters::default() };
        r.intervals = vec![slice(0.0, 3, Some(sqlite.clone())), slice(1.0, 0, Some(sqlite))];
        let (s, sources) = slices(&r, 1.0).unwrap();
        assert_eq!(sources[0], "disk flushes");
        assert_eq!((s[0].values[0], s[1].values[0]), (Some(1.0), None));

        r.intervals = vec![slice(0.0, 3, None)];
        assert!(slices(&r, 1.0).is_none());
    }
}
