//! What a sweep changed, beside its tps: of the costs per transaction and of the shares
//! of the time (report/cost.rs, report/bound.rs), the one of each that varies most
//! across the swept values, each engine × profile a line over them as in the sweep
//! chart. How much a figure varies is the widest range one line spans, as a part of the
//! figure's largest value in the panel (of the whole time, for a share), so a figure
//! near zero that wobbles does not win over one that moves.

use super::axis::{self, Scale};
use super::svg::{Anchor, INK, Svg};
use super::sweep::{Line, Sweep, gather, legend_keys};
use super::{Group, Panel, Style, WIDTH, legend};
use crate::report::{Row, sig3};

/// A figure a sweep may change: its name, its axis title, and its value for a cell.
pub struct Figure {
    /// What it is, in a heading and a tooltip.
    pub name: &'static str,
    /// The axis title.
    pub axis: &'static str,
    /// What follows its value in a tooltip.
    pub unit: &'static str,
    /// Its value, where the cell has it.
    pub get: fn(&Row) -> Option<f64>,
}

/// Costs per transaction.
pub const COSTS: [Figure; 7] = [
    Figure { name: "fsyncs per transaction", axis: "fsyncs/tx", unit: "", get: |r| r.cost.as_ref()?.fsyncs },
    Figure { name: "disk flushes per transaction", axis: "flushes/tx", unit: "", get: |r| r.cost.as_ref()?.flushes },
    Figure { name: "log bytes per transaction", axis: "log bytes/tx", unit: "", get: |r| r.cost.as_ref()?.log_bytes },
    Figure {
        name: "bytes written to the disk per transaction",
        axis: "disk bytes/tx",
        unit: "",
        get: |r| r.cost.as_ref()?.disk_write_bytes,
    },
    Figure {
        name: "cache reads per transaction",
        axis: "cache reads/tx",
        unit: "",
        get: |r| r.cost.as_ref()?.cache_misses,
    },
    Figure {
        name: "server CPU µs per transaction",
        axis: "server µs/tx",
        unit: "",
        get: |r| r.cost.as_ref()?.server_cpu_us,
    },
    Figure {
        name: "client CPU µs per transaction",
        axis: "client µs/tx",
        unit: "",
        get: |r| Some(r.cost.as_ref()?.client_cpu_us),
    },
];

/// Shares of the time, in percent, of the resources a setting can change: not CPU wait
/// (what others did to the machine), nor round trips (the rest, which moves with all of
/// them).
pub const SHARES: [Figure; 4] = [
    Figure {
        name: "share of the time waiting for fsync",
        axis: "fsync, % of time",
        unit: "%",
        get: |r| share(r, |s| s.fsync),
    },
    Figure {
        name: "share of the time in the server's CPU",
        axis: "server CPU, % of time",
        unit: "%",
        get: |r| share(r, |s| s.server_cpu),
    },
    Figure {
        name: "share of the time in the clients' CPU",
        axis: "client, % of time",
        unit: "%",
        get: |r| share(r, |s| s.client),
    },
    Figure {
        name: "share of the time reading the disk",
        axis: "disk reads, % of time",
        unit: "%",
        get: |r| share(r, |s| s.disk_reads),
    },
];

fn share(r: &Row, f: fn(&crate::report::bound::Shares) -> f64) -> Option<f64> {
    r.bound.as_ref().map(|b| f(&b.shares) * 100.0)
}

/// How much `f` varies across the sweep's values: the widest range of one line as a part
/// of `whole`, or of the largest value when `whole` is none; 0 when no line has two
/// values.
pub fn spread(lines: &[Line], f: &Figure, whole: Option<f64>) -> f64 {
    let values = |l: &Line| -> Vec<f64> {
        l.1.iter().filter(|(_, r)| r.tps.is_some()).filter_map(|(_, r)| (f.get)(r)).collect()
    };
    let largest = lines.iter().flat_map(values).fold(0.0, |a: f64, v| a.max(v.abs()));
    let whole = whole.unwrap_or(largest);
    if whole <= 0.0 {
        return 0.0;
    }
    let ranges = lines.iter().map(values).filter(|v| v.len() > 1).map(|v| {
        let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
        (hi - lo) / whole
    });
    ranges.fold(0.0, f64::max)
}

/// The figure of `among` that varies most, if one varies at all.
pub fn most_varied<'f>(lines: &[Line], among: &'f [Figure], whole: Option<f64>) -> Option<&'f Figure> {
    let scored = among.iter().map(|f| (f, spread(lines, f, whole))).filter(|(_, s)| *s > 0.0);
    // The first of the widest, so a tie reads the same every time.
    scored
        .fold(None, |best: Option<(&Figure, f64)>, (f, s)| match best {
            Some((_, b)) if b >= s => best,
            _ => Some((f, s)),
        })
        .map(|(f, _)| f)
}

/// The panel of one group's sweep, if its cells have counters and a figure varies.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Option<Panel> {
    let sweep = gather(g, rows)?;
    let figures: Vec<&Figure> =
        [most_varied(&sweep.lines, &COSTS, None), most_varied(&sweep.lines, &SHARES, Some(100.0))]
            .into_iter()
            .flatten()
            .collect();
    if figures.is_empty() {
        return None;
    }
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(
        &format!("What the sweep of {} changed — {}", sweep.key, g.name()),
        "the cost per transaction and the share of the time that vary most",
    );
    let mut top = legend(&mut svg, &legend_keys(&sweep.lines, style), 70.0, 50.0, WIDTH - 20.0);
    let mut marks = 0;
    for f in &figures {
        let heading = format!("{}, across the values of {}", f.name, sweep.key);
        svg.text((70.0, top + 22.0), &heading, 12.0, Anchor::Start, INK, r#" font-weight="bold""#);
        let bottom = plot(&mut svg, &sweep, f, style, (top + 34.0, top + 34.0 + 180.0), &mut marks);
        top = bottom + 44.0;
    }
    svg.height = top + 6.0;
    let label = format!("What the sweep of {} changed, {}", sweep.key, g.name());
    Some(Panel { height: svg.height, svg: svg.finish("sweep-cost", marks, &label) })
}

/// A point of a line: the value's index, the figure, the cell.
type Point<'a> = (usize, f64, &'a Row);

/// One figure's plot between `top` and `bottom`: its axes and a line per engine ×
/// profile; adds the lines drawn to `marks`, returns `bottom`.
fn plot(svg: &mut Svg, sweep: &Sweep, f: &Figure, style: &Style, (top, bottom): (f64, f64), marks: &mut usize) -> f64 {
    let (left, right) = (70.0, WIDTH - 24.0);
    let lines: Vec<(&Line, Vec<Point>)> = sweep
        .lines
        .iter()
        .map(|l| {
            let mut pts: Vec<Point> =
                l.1.iter().filter(|(_, r)| r.tps.is_some()).filter_map(|(x, r)| Some((*x, (f.get)(r)?, *r))).collect();
            pts.sort_by_key(|p| p.0);
            (l, pts)
        })
        .collect();
    let values = || lines.iter().flat_map(|(_, p)| p.iter().map(|p| p.1));
    let max = values().fold(0.0, f64::max);
    let min = values().filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    let (ys, yticks, log) = Scale::auto(min, max, bottom, top);
    axis::left(svg, &ys, &axis::labelled(&yticks), left, right, &format!("{}{log}", f.axis));
    let n = sweep.values.len() as f64;
    let xs = Scale { lo: 0.0, hi: n, from: left, to: right, log: false };
    let xticks: Vec<(f64, String)> =
        sweep.values.iter().enumerate().map(|(i, v)| (i as f64 + 0.5, v.clone())).collect();
    axis::bottom(svg, &xs, &xticks, bottom, top, &sweep.key);
    for (((engine, base), _), pts) in &lines {
        if pts.is_empty() {
            continue;
        }
        let color = style.color(base);
        let at: Vec<(f64, f64)> = pts.iter().map(|(x, v, _)| (xs.px(*x as f64 + 0.5), ys.px(*v))).collect();
        if at.len() > 1 {
            svg.polyline(&at, color, 2.2, &format!(r#" class="series"{}"#, style.dash(engine)));
        }
        for ((_, v, r), p) in pts.iter().zip(&at) {
            svg.dot(*p, 4.0, color, "point", &format!("{engine} {}: {} {}{}", r.profile, f.name, sig3(*v), f.unit));
        }
        *marks += 1;
    }
    bottom
}
