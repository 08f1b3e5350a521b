//! A small SVG writer: elements with presentation attributes, so a chart looks the same
//! inline in the HTML page and as a file of its own.

use super::font;
use std::fmt::Write as _;

/// Escape text for XML and HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most two decimals and no trailing zeros.
pub fn n(v: f64) -> String {
    let s = format!("{:.2}", if v.is_finite() { v } else { 0.0 });
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// Where a text's x coordinate sits.
#[derive(Clone, Copy)]
pub enum Anchor {
    /// x is the left edge.
    Start,
    /// x is the middle.
    Middle,
    /// x is the right edge.
    End,
}

/// Text colours and line greys shared by every chart.
pub const INK: &str = "#1f2328";
/// Secondary text.
pub const MUTED: &str = "#59636e";
/// Grid lines.
pub const GRID: &str = "#e4e7eb";
/// Axis lines.
pub const AXIS: &str = "#8c959f";
/// Failures.
pub const ALERT: &str = "#b42318";

/// One chart's drawing, `width` × `height` px.
pub struct Svg {
    /// Width in px.
    pub width: f64,
    /// Height in px (may grow while drawing).
    pub height: f64,
    body: String,
}

impl Svg {
    /// An empty drawing.
    pub fn new(width: f64, height: f64) -> Svg {
        Svg { width, height, body: String::new() }
    }

    /// Append raw markup (already escaped).
    pub fn raw(&mut self, s: &str) {
        self.body.push_str(s);
    }

    /// A line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64, extra: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="{}"{extra}/>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            n(width)
        );
    }

    /// Text at (x, y) on its baseline.
    pub fn text(&mut self, (x, y): (f64, f64), s: &str, size: f64, anchor: Anchor, fill: &str, extra: &str) {
        let a = match anchor {
            Anchor::Start => "",
            Anchor::Middle => r#" text-anchor="middle""#,
            Anchor::End => r#" text-anchor="end""#,
        };
        let _ = write!(
            self.body,
            r#"<text x="{}" y="{}" font-size="{}" fill="{fill}"{a}{extra}>{}</text>"#,
            n(x),
            n(y),
            n(size),
            esc(s)
        );
    }

    /// An open polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, extra: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{},{}", n(*x), n(*y))).collect();
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{}" stroke-linejoin="round" stroke-linecap="round"{extra}/>"#,
            pts.join(" "),
            n(width)
        );
    }

    /// A circle with a tooltip.
    pub fn dot(&mut self, (x, y): (f64, f64), r: f64, fill: &str, class: &str, tip: &str) {
        let _ = write!(
            self.body,
            r##"<circle class="{class}" cx="{}" cy="{}" r="{}" fill="{fill}" stroke="#fff" stroke-width="1"><title>{}</title></circle>"##,
            n(x),
            n(y),
            n(r),
            esc(tip)
        );
    }

    /// The chart's title, top left.
    pub fn title(&mut self, s: &str, sub: &str) {
        self.text((16.0, 24.0), s, 15.0, Anchor::Start, INK, r#" font-weight="bold""#);
        if !sub.is_empty() {
            let x = 16.0 + font::text_width(s, 15.0) * 1.04 + 10.0;
            self.text((x, 24.0), sub, 12.0, Anchor::Start, MUTED, "");
        }
    }

    /// A message where data would be, for a chart with nothing to draw.
    pub fn empty(&mut self, y: f64, s: &str) {
        self.text((self.width / 2.0, y), s, 13.0, Anchor::Middle, MUTED, r#" class="empty""#);
    }

    /// The finished `<svg>` element; `kind` and `marks` let a reader (or a test) find the
    /// chart and count what it drew.
    pub fn finish(self, kind: &str, marks: usize, label: &str) -> String {
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{kind}" data-marks="{marks}" role="img" aria-label="{}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="{}">{}<rect width="{w}" height="{h}" fill="#fff"/>{}</svg>"##,
            esc(label),
            font::STACK.replace('\'', "&#39;"),
            format_args!("<title>{}</title>", esc(label)),
            self.body,
            w = n(self.width),
            h = n(self.height),
        )
    }
}
