//! What a sweep changed, beside its tps: of the costs per transaction (per row, where
//! each transaction inserts several: `--rows-per-commit`) and of the shares of the time
//! (report/cost.rs, report/bound.rs), the one of each that varies most across the swept
//! values, each engine × profile a line over them as in the sweep chart. How much a
//! figure varies is the widest range one line spans, as a part of the figure's largest
//! value in the panel (of the whole time, for a share), so a figure near zero that
//! wobbles does not win over one that moves.

use super::axis::{self, Scale};
use super::svg::{Anchor, INK, Svg};
use super::sweep::{Line, Sweep, gather, legend_keys};
use super::{Group, Panel, Style, WIDTH, legend};
use crate::report::{Row, sig3};

/// A figure a sweep may change: what it is, its axis title, and its value for a cell.
pub struct Figure {
    /// What it is: a cost's unit ("fsyncs"), or a share's words.
    pub name: &'static str,
    /// Its axis title: a cost's short unit, or a share's.
    pub axis: &'static str,
    /// Its value (a cost per transaction, a share in percent), where the cell has it.
    pub get: fn(&Row) -> Option<f64>,
}

/// Costs, per transaction.
pub const COSTS: [Figure; 7] = [
    Figure { name: "fsyncs", axis: "fsyncs", get: |r| r.cost.as_ref()?.fsyncs },
    Figure { name: "disk flushes", axis: "flushes", get: |r| r.cost.as_ref()?.flushes },
    Figure { name: "log bytes", axis: "log bytes", get: |r| r.cost.as_ref()?.log_bytes },
    Figure { name: "bytes written to the disk", axis: "disk bytes", get: |r| r.cost.as_ref()?.disk_write_bytes },
    Figure { name: "cache reads", axis: "cache reads", get: |r| r.cost.as_ref()?.cache_misses },
    Figure { name: "server CPU µs", axis: "server µs", get: |r| r.cost.as_ref()?.server_cpu_us },
    Figure { name: "client CPU µs", axis: "client µs", get: |r| Some(r.cost.as_ref()?.client_cpu_us) },
];

/// Shares of the time, in percent, of the resources a setting can change: not CPU wait
/// (what others did to the machine), nor round trips (the rest, which moves with all of
/// them).
pub const SHARES: [Figure; 4] = [
    Figure {
        name: "share of the time in storage (the flush)",
        axis: "storage, % of time",
        get: |r| share(r, |s| s.storage),
    },
    Figure {
        name: "share of the time in the server's CPU",
        axis: "server CPU, % of time",
        get: |r| share(r, |s| s.server_cpu),
    },
    Figure {
        name: "share of the time in the clients' CPU",
        axis: "client, % of time",
        get: |r| share(r, |s| s.client),
    },
    Figure {
        name: "share of the time reading the disk",
        axis: "disk reads, % of time",
        get: |r| share(r, |s| s.disk_reads),
    },
];

fn share(r: &Row, f: fn(&crate::report::bound::Shares) -> f64) -> Option<f64> {
    r.bound.as_ref().map(|b| f(&b.shares) * 100.0)
}

/// What a figure is counted per.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Per {
    /// A cost per transaction.
    Transaction,
    /// A cost per one of what each transaction holds: per row, with `--rows-per-commit`.
    One(&'static str),
    /// A share of the time, in percent.
    Share,
}

/// A figure as one plot shows it.
#[derive(Clone, Copy)]
pub struct Measure<'f> {
    /// The figure.
    pub figure: &'f Figure,
    /// What it is counted per.
    pub per: Per,
}

impl Measure<'_> {
    /// Its value for a measured cell.
    pub fn value(&self, r: &Row) -> Option<f64> {
        r.tps?;
        let v = (self.figure.get)(r)?;
        match self.per {
            Per::One(_) => Some(v / f64::from(r.each()?.0.max(1))),
            Per::Transaction | Per::Share => Some(v),
        }
    }

    /// What it is, in a heading: "fsyncs per row".
    pub fn heading(&self) -> String {
        match self.per {
            Per::Transaction => format!("{} per transaction", self.figure.name),
            Per::One(one) => format!("{} per {one}", self.figure.name),
            Per::Share => self.figure.name.to_string(),
        }
    }

    /// Its axis title: "fsyncs/row".
    fn axis(&self) -> String {
        match self.per {
            Per::Transaction => format!("{}/tx", self.figure.axis),
            Per::One(one) => format!("{}/{one}", self.figure.axis),
            Per::Share => self.figure.axis.to_string(),
        }
    }

    /// A value in a tooltip.
    fn text(&self, v: f64) -> String {
        if self.per == Per::Share { format!("{}%", sig3(v)) } else { sig3(v) }
    }
}

/// How much `m` varies across the sweep's values: the widest range of one line as a part
/// of `whole`, or of the largest value when `whole` is none; 0 when no line has two
/// values.
pub fn spread(lines: &[Line], m: &Measure, whole: Option<f64>) -> f64 {
    let values = |l: &Line| -> Vec<f64> { l.1.iter().filter_map(|(_, r)| m.value(r)).collect() };
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

/// The figure of `among`, counted `per`, that varies most, if one varies at all.
pub fn most_varied<'f>(lines: &[Line], among: &'f [Figure], per: Per) -> Option<Measure<'f>> {
    let whole = (per == Per::Share).then_some(100.0);
    let scored = among.iter().map(|figure| Measure { figure, per }).map(|m| (m, spread(lines, &m, whole)));
    // The first of the widest (to rounding), so a tie reads the same every time.
    scored
        .filter(|(_, s)| *s > 0.0)
        .fold(None, |best: Option<(Measure, f64)>, (m, s)| match best {
            Some((_, b)) if b >= s - 1e-9 => best,
            _ => Some((m, s)),
        })
        .map(|(m, _)| m)
}

/// The panel of one group's sweep, if its cells have counters and a figure varies.
pub fn draw(g: &Group, rows: &[Row], style: &Style) -> Option<Panel> {
    let sweep = gather(g, rows)?;
    // Where every cell says how many rows a transaction inserted, the costs are per row.
    let mut each = sweep.lines.iter().flat_map(|l| &l.1).filter(|(_, r)| r.tps.is_some()).map(|(_, r)| r.each());
    let per = match each.next().flatten() {
        Some((_, one)) if each.all(|e| e.is_some()) => Per::One(one.names.0),
        _ => Per::Transaction,
    };
    let figures: Vec<Measure> =
        [most_varied(&sweep.lines, &COSTS, per), most_varied(&sweep.lines, &SHARES, Per::Share)]
            .into_iter()
            .flatten()
            .collect();
    if figures.is_empty() {
        return None;
    }
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(
        &format!("What the sweep of {} changed — {}", sweep.key, g.name()),
        &format!(
            "the cost per {} and the share of the time that vary most",
            if let Per::One(one) = per { one } else { "transaction" }
        ),
    );
    let mut top = legend(&mut svg, &legend_keys(&sweep.lines, style), 70.0, 50.0, WIDTH - 20.0);
    let mut marks = 0;
    for m in &figures {
        let heading = format!("{}, across the values of {}", m.heading(), sweep.key);
        svg.text((70.0, top + 22.0), &heading, 12.0, Anchor::Start, INK, r#" font-weight="bold""#);
        let bottom = plot(&mut svg, &sweep, m, style, (top + 34.0, top + 34.0 + 180.0), &mut marks);
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
fn plot(svg: &mut Svg, sweep: &Sweep, m: &Measure, style: &Style, (top, bottom): (f64, f64), marks: &mut usize) -> f64 {
    let (left, right) = (70.0, WIDTH - 24.0);
    let lines: Vec<(&Line, Vec<Point>)> = sweep
        .lines
        .iter()
        .map(|l| {
            let mut pts: Vec<Point> = l.1.iter().filter_map(|(x, r)| Some((*x, m.value(r)?, *r))).collect();
            pts.sort_by_key(|p| p.0);
            (l, pts)
        })
        .collect();
    let values = || lines.iter().flat_map(|(_, p)| p.iter().map(|p| p.1));
    let max = values().fold(0.0, f64::max);
    let min = values().filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    let (ys, yticks, log) = Scale::auto(min, max, bottom, top);
    axis::left(svg, &ys, &axis::labelled(&yticks), left, right, &format!("{}{log}", m.axis()));
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
            svg.dot(*p, 4.0, color, "point", &format!("{engine} {}: {} {}", r.profile, m.heading(), m.text(*v)));
        }
        *marks += 1;
    }
    bottom
}
