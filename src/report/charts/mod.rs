//! Charts as SVG drawn here, one file per chart: tps bars, latency percentile curves (and
//! the same per transaction type), tps over time, where each cell's time goes, its costs per transaction, its counters over
//! time, sweep lines. Each chart is a list of panels, one per workload × clients (their
//! scales differ by orders of magnitude). Colour names a profile and the line's dash an
//! engine, the same in every chart of a report; in the stacked bars of where the time
//! goes, colour names a resource.

pub mod axis;
mod bound;
mod cost;
mod counters;
pub mod font;
mod latency;
mod latency_time;
#[cfg(feature = "png")]
pub mod png;
pub mod svg;
mod sweep;
mod sweep_cost;
#[cfg(test)]
mod tests;
mod timeline;
mod tps;
mod types;

use super::Row;
use crate::error::Result;
use crate::results::{CellResult, Results};
use svg::{Anchor, INK, Svg};

/// The charts a report draws; `--chart` picks one for `--plot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// tps per cell: bars (median), whiskers (its interval), dots (repeats).
    Tps,
    /// Latency percentile curves, p50 … p99.9, per cell.
    Latency,
    /// The same per transaction type, a panel each, for workloads that mix types.
    Types,
    /// tps in each second (or `--log-interval` slice) of each repeat, and the slices'
    /// p95/p99 latency when the run kept them.
    Timeline,
    /// Where each cell's time goes: its shares (storage, server CPU, client, disk reads,
    /// CPU wait, round trips) as one stacked bar, what bounds it named (needs counters).
    Bound,
    /// Costs per transaction: fsyncs, flushes, log and disk bytes, cache reads, server and
    /// client CPU, one small bar chart each (needs counters).
    Costs,
    /// Counters in each `--log-interval` slice of each repeat, per transaction, with the
    /// slices that had a checkpoint shaded (needs counters and slices).
    Counters,
    /// tps against the values of a `--sweep`, and the cost and share of time that vary
    /// most across them.
    Sweep,
}

impl Kind {
    /// Every chart, in report order.
    pub const ALL: [Kind; 8] =
        [Kind::Tps, Kind::Latency, Kind::Types, Kind::Timeline, Kind::Bound, Kind::Costs, Kind::Counters, Kind::Sweep];

    /// The name used in `--chart` and in the page.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tps => "tps",
            Kind::Latency => "latency",
            Kind::Types => "types",
            Kind::Timeline => "timeline",
            Kind::Bound => "bound",
            Kind::Costs => "costs",
            Kind::Counters => "counters",
            Kind::Sweep => "sweep",
        }
    }

    /// Drawn from the counters alone: without them the chart has no panel, and the page
    /// no section for it.
    pub fn from_counters(self) -> bool {
        matches!(self, Kind::Bound | Kind::Costs | Kind::Counters)
    }

    /// Drawn only where there is something for it (counters, transaction types): without
    /// it, the page has no section for it.
    pub fn only_with_data(self) -> bool {
        self.from_counters() || self == Kind::Types
    }
}

/// Width of every chart, px.
pub const WIDTH: f64 = 960.0;

/// One drawn panel: a complete `<svg>` element.
pub struct Panel {
    /// The SVG markup.
    pub svg: String,
    /// Its height, px.
    pub height: f64,
}

/// The panels of one chart (none when the results have nothing it can show).
pub fn panels(results: &Results, rows: &[Row], kind: Kind) -> Result<Vec<Panel>> {
    let style = Style::of(results);
    let every = results.options.driving.log_interval.map(|i| i.as_secs_f64());
    let mut out = Vec::new();
    for g in groups(results) {
        match kind {
            Kind::Tps => out.push(tps::draw(&g, rows, &style)),
            Kind::Latency => out.push(latency::draw(&g, &style)?),
            Kind::Types => out.extend(types::draw(&g, &style)?),
            Kind::Timeline => {
                out.push(timeline::draw(&g, &style, every));
                out.extend(latency_time::draw(&g, &style, every)?);
            }
            Kind::Bound => out.extend(bound::draw(&g, rows)),
            Kind::Costs => out.extend(cost::draw(&g, rows, &style)),
            Kind::Counters => out.extend(counters::draw(&g, &style, every)),
            Kind::Sweep => {
                out.extend(sweep::draw(&g, rows, &style));
                out.extend(sweep_cost::draw(&g, rows, &style));
            }
        }
    }
    if kind == Kind::Sweep {
        for g in by_clients(results) {
            out.extend(sweep::draw(&g, rows, &style));
            out.extend(sweep_cost::draw(&g, rows, &style));
        }
    }
    Ok(out)
}

/// One chart as a standalone SVG file: its panels stacked, the font embedded.
pub fn standalone(results: &Results, rows: &[Row], kind: Kind) -> Result<String> {
    let panels = panels(results, rows, kind)?;
    if panels.is_empty() {
        let why = match kind {
            Kind::Sweep => " (the run had no --sweep)",
            Kind::Counters => {
                " (no counters in --log-interval slices: run with --log-interval and without --no-counters)"
            }
            Kind::Bound | Kind::Costs => " (no counters: the run had --no-counters, or the file is from before them)",
            Kind::Types => {
                " (no workload of this run mixes transaction types, or the file is from before they were kept)"
            }
            Kind::Tps | Kind::Latency | Kind::Timeline => " (no cells)",
        };
        return Err(bad_input!("this results file has nothing for the {} chart{why}", kind.name()));
    }
    let height: f64 = panels.iter().map(|p| p.height).sum();
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}"><style>{}</style>"#,
        font::face_css(),
        w = svg::n(WIDTH),
        h = svg::n(height),
    );
    let mut y = 0.0;
    for p in &panels {
        // A nested <svg> keeps each panel's own coordinates.
        out.push_str(&p.svg.replacen("<svg ", &format!(r#"<svg y="{}" "#, svg::n(y)), 1));
        y += p.height;
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// Cells sharing a workload and a client count: one panel.
pub struct Group<'a> {
    /// The workload.
    pub workload: &'a str,
    /// Concurrent clients; 0 for a group of every count (a sweep over clients).
    pub clients: u32,
    /// The cells, in plan order, with their index in the results.
    pub cells: Vec<(usize, &'a CellResult)>,
}

impl Group<'_> {
    /// "tpcb · 4 clients".
    pub fn name(&self) -> String {
        if self.clients == 0 {
            return format!("{} · by clients", self.workload);
        }
        format!("{} · {} client{}", self.workload, self.clients, if self.clients == 1 { "" } else { "s" })
    }
}

/// Cells grouped by workload × clients, in order of first appearance.
pub fn groups(results: &Results) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    for (i, c) in results.cells.iter().enumerate() {
        match out.iter_mut().find(|g| g.workload == c.workload && g.clients == c.clients) {
            Some(g) => g.cells.push((i, c)),
            None => out.push(Group { workload: &c.workload, clients: c.clients, cells: vec![(i, c)] }),
        }
    }
    out
}

/// Cells grouped by workload alone, for workloads measured at several client counts.
fn by_clients(results: &Results) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    for (i, c) in results.cells.iter().enumerate() {
        match out.iter_mut().find(|g| g.workload == c.workload) {
            Some(g) => g.cells.push((i, c)),
            None => out.push(Group { workload: &c.workload, clients: 0, cells: vec![(i, c)] }),
        }
    }
    out.retain(|g| g.cells.iter().any(|(_, c)| c.clients != g.cells[0].1.clients));
    out
}

/// Tableau 10: distinct, readable on white, kind to the common colour blindnesses.
const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
const DASHES: [&str; 4] = ["", "7 4", "2 3", "9 3 2 3"];

/// Colours per profile and dashes per engine, fixed for a whole report.
pub struct Style {
    profiles: Vec<String>,
    engines: Vec<String>,
}

impl Style {
    /// Profiles and engines in order of first appearance; a sweep's base profiles after.
    pub fn of(results: &Results) -> Style {
        let mut profiles: Vec<String> = Vec::new();
        let mut engines: Vec<String> = Vec::new();
        let bases = results.cells.iter().filter_map(|c| sweep::split(&c.profile.name).map(|s| s.0.to_string()));
        for p in results.cells.iter().map(|c| c.profile.name.clone()).chain(bases) {
            if !profiles.contains(&p) {
                profiles.push(p);
            }
        }
        for c in &results.cells {
            if !engines.contains(&c.engine) {
                engines.push(c.engine.clone());
            }
        }
        Style { profiles, engines }
    }

    /// The colour of a profile.
    pub fn color(&self, profile: &str) -> &'static str {
        PALETTE[self.profiles.iter().position(|p| p == profile).unwrap_or(0) % PALETTE.len()]
    }

    /// The `stroke-dasharray` attribute of an engine's lines (none for the first engine).
    pub fn dash(&self, engine: &str) -> String {
        match DASHES[self.engines.iter().position(|e| e == engine).unwrap_or(0) % DASHES.len()] {
            "" => String::new(),
            d => format!(r#" stroke-dasharray="{d}""#),
        }
    }
}

/// One legend entry: a line sample in a colour and dash, and its label.
pub struct Key {
    /// The label.
    pub label: String,
    /// The colour.
    pub color: &'static str,
    /// The dash attribute.
    pub dash: String,
}

/// Draw a legend flowing left to right from (x, y), wrapping at `right`; returns the y
/// below it.
pub fn legend(svg: &mut Svg, keys: &[Key], x: f64, y: f64, right: f64) -> f64 {
    let (mut cx, mut cy) = (x, y);
    for k in keys {
        let w = 26.0 + font::text_width(&k.label, 12.0) + 18.0;
        if cx + w > right && cx > x {
            cx = x;
            cy += 18.0;
        }
        svg.line((cx, cy - 4.0), (cx + 20.0, cy - 4.0), k.color, 2.5, &k.dash);
        svg.text((cx + 26.0, cy), &k.label, 12.0, Anchor::Start, INK, "");
        cx += w;
    }
    cy + 10.0
}

/// Draw a legend of filled swatches (for bars: colour names what a bar or segment is)
/// flowing left to right from (x, y), wrapping at `right`; returns the y below it.
pub fn swatches(svg: &mut Svg, keys: &[(&str, &str)], x: f64, y: f64, right: f64) -> f64 {
    let (mut cx, mut cy) = (x, y);
    for (label, color) in keys {
        let w = 18.0 + font::text_width(label, 12.0) + 18.0;
        if cx + w > right && cx > x {
            cx = x;
            cy += 18.0;
        }
        svg.raw(&format!(
            r#"<rect x="{}" y="{}" width="12" height="12" rx="2" fill="{color}"/>"#,
            svg::n(cx),
            svg::n(cy - 10.0)
        ));
        svg.text((cx + 18.0, cy), label, 12.0, Anchor::Start, INK, "");
        cx += w;
    }
    cy + 10.0
}

/// Where the rows of a bar chart of cells went: bars start at `left`, each row's middle.
pub struct Rows {
    /// The x where bars start, right of the labels.
    pub left: f64,
    /// Each row's vertical middle, in the order given.
    pub mids: Vec<f64>,
    /// The y below the last row.
    pub bottom: f64,
}

/// Label rows of cells as the tps chart does, from `top`, `row` px each: an engine once,
/// bold, at its first row, each profile right-aligned before the bars, a rule and a gap
/// between engines (ruled up to `right`).
pub fn cell_rows(svg: &mut Svg, cells: &[(&str, &str)], top: f64, row: f64, right: f64) -> Rows {
    const GAP: f64 = 10.0;
    let engine_w = cells.iter().map(|c| font::text_width(c.0, 12.0) * 1.04).fold(0.0, f64::max);
    let profile_w = cells.iter().map(|c| font::text_width(c.1, 12.0)).fold(0.0, f64::max);
    let left = 16.0 + engine_w + 14.0 + profile_w + 10.0;
    let mut y = top;
    let mut mids = Vec::with_capacity(cells.len());
    for (i, (engine, profile)) in cells.iter().enumerate() {
        let first = i == 0 || cells[i - 1].0 != *engine;
        if i > 0 && first {
            y += GAP;
            svg.line((16.0, y - GAP / 2.0), (right, y - GAP / 2.0), "#d0d7de", 1.0, "");
        }
        let mid = y + row / 2.0;
        if first {
            svg.text((16.0, mid + 4.0), engine, 12.0, Anchor::Start, INK, r#" font-weight="bold""#);
        }
        svg.text((left - 10.0, mid + 4.0), profile, 12.0, Anchor::End, INK, "");
        mids.push(mid);
        y += row;
    }
    Rows { left, mids, bottom: y }
}

/// "engine profile" for a label.
pub fn cell_label(c: &CellResult) -> String {
    format!("{} {}", c.engine, c.profile.name)
}
