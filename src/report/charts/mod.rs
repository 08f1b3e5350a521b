//! Charts as SVG drawn here, one file per chart: tps bars, latency percentile curves, tps
//! over time, sweep lines. Each chart is a list of panels, one per workload × clients
//! (their scales differ by orders of magnitude). Colour names a profile and the line's
//! dash an engine, the same in every chart of a report.

pub mod axis;
pub mod font;
mod latency;
mod latency_time;
#[cfg(feature = "png")]
pub mod png;
pub mod svg;
mod sweep;
mod timeline;
mod tps;

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
    /// tps in each second (or `--log-interval` slice) of each repeat, and the slices'
    /// p95/p99 latency when the run kept them.
    Timeline,
    /// tps against the values of a `--sweep`.
    Sweep,
}

impl Kind {
    /// Every chart, in report order.
    pub const ALL: [Kind; 4] = [Kind::Tps, Kind::Latency, Kind::Timeline, Kind::Sweep];

    /// The name used in `--chart` and in the page.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tps => "tps",
            Kind::Latency => "latency",
            Kind::Timeline => "timeline",
            Kind::Sweep => "sweep",
        }
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
    let every = results.options.log_interval_s;
    let mut out = Vec::new();
    for g in groups(results) {
        match kind {
            Kind::Tps => out.push(tps::draw(&g, rows, &style)),
            Kind::Latency => out.push(latency::draw(&g, &style)?),
            Kind::Timeline => {
                out.push(timeline::draw(&g, &style, every));
                out.extend(latency_time::draw(&g, &style, every)?);
            }
            Kind::Sweep => out.extend(sweep::draw(&g, rows, &style)),
        }
    }
    if kind == Kind::Sweep {
        out.extend(by_clients(results).iter().filter_map(|g| sweep::draw(g, rows, &style)));
    }
    Ok(out)
}

/// One chart as a standalone SVG file: its panels stacked, the font embedded.
pub fn standalone(results: &Results, rows: &[Row], kind: Kind) -> Result<String> {
    let panels = panels(results, rows, kind)?;
    if panels.is_empty() {
        return Err(bad_input!(
            "this results file has nothing for the {} chart{}",
            kind.name(),
            if kind == Kind::Sweep { " (the run had no --sweep)" } else { " (no cells)" }
        ));
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

/// "engine profile" for a label.
pub fn cell_label(c: &CellResult) -> String {
    format!("{} {}", c.engine, c.profile.name)
}
