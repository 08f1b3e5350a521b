//! Scales (linear and log) from data to pixels, their ticks, and tick labels.

use super::svg::{AXIS, Anchor, GRID, MUTED, Svg};

/// Maps a data interval onto a pixel interval, linearly or on a log10 scale.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// Smallest value shown.
    pub lo: f64,
    /// Largest value shown.
    pub hi: f64,
    /// Pixel of `lo`.
    pub from: f64,
    /// Pixel of `hi`.
    pub to: f64,
    /// log10 scale.
    pub log: bool,
}

impl Scale {
    /// The pixel of `v` (clamped to the scale's ends).
    pub fn px(&self, v: f64) -> f64 {
        let f = |x: f64| if self.log { x.max(f64::MIN_POSITIVE).log10() } else { x };
        let (lo, hi) = (f(self.lo), f(self.hi));
        let t = if hi > lo { ((f(v) - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.5 };
        self.from + t * (self.to - self.from)
    }

    /// A linear scale from 0 to a round number at or above `max`, and its ticks.
    pub fn zero_based(max: f64, from: f64, to: f64) -> (Scale, Vec<f64>) {
        let ticks = nice_ticks(0.0, if max > 0.0 { max } else { 1.0 }, 5);
        let hi = *ticks.last().unwrap_or(&1.0);
        (Scale { lo: 0.0, hi, from, to, log: false }, ticks)
    }

    /// Zero-based and linear, unless the values span more than 50×: then logarithmic, so
    /// a slow cell's line is not flattened onto the axis by a fast one. Returns the scale,
    /// its ticks and what to add to the axis title.
    pub fn auto(min: f64, max: f64, from: f64, to: f64) -> (Scale, Vec<f64>, &'static str) {
        if min > 0.0 && max / min > 50.0 {
            let (s, t) = Scale::log_covering(min, max, from, to);
            (s, t, " (log scale)")
        } else {
            let (s, t) = Scale::zero_based(max, from, to);
            (s, t, "")
        }
    }

    /// A log scale covering `[min, max]` (positive), widened to ticks, and its ticks.
    pub fn log_covering(min: f64, max: f64, from: f64, to: f64) -> (Scale, Vec<f64>) {
        let (min, max) = (min.max(1e-9), max.max(min.max(1e-9)));
        let ticks = log_ticks(min, max);
        let lo = ticks.first().copied().unwrap_or(min).min(min);
        let hi = ticks.last().copied().unwrap_or(max).max(max);
        let (lo, hi) = if hi / lo < 1.5 { (lo / 1.25, hi * 1.25) } else { (lo, hi) };
        (Scale { lo, hi, from, to, log: true }, ticks.into_iter().filter(|t| *t >= lo && *t <= hi).collect())
    }
}

/// Round steps (1, 2, 2.5, 5 × 10^k) giving about `target` ticks from `lo` to at least `hi`.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / target.max(1) as f64;
    let e = raw.log10().floor() as i32;
    let m = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().find(|m| times_ten(*m, e) >= raw).unwrap_or(10.0);
    let step = times_ten(m, e);
    let first = (lo / step).floor() as i64;
    let last = (hi / step - 1e-9).ceil() as i64;
    (first..=last.max(first + 1)).map(|i| times_ten(i as f64 * m, e)).collect()
}

/// `m × 10^e`, dividing for negative `e` so 3 × 0.2 prints as 0.6.
fn times_ten(m: f64, e: i32) -> f64 {
    if e < 0 { m / 10f64.powi(-e) } else { m * 10f64.powi(e) }
}

/// Ticks on a log scale: powers of ten with 2 and 5 between them when few decades are
/// shown, each decade alone when many; always at least two ticks at or around the data.
pub fn log_ticks(min: f64, max: f64) -> Vec<f64> {
    let (a, b) = (min.log10().floor() as i32, max.log10().ceil() as i32);
    let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let all: Vec<f64> = (a..=b).flat_map(|e| steps.iter().map(move |m| times_ten(*m, e))).collect();
    // The ticks inside the data, plus the one just below and just above it.
    let below = all.iter().rev().find(|t| **t <= min * (1.0 + 1e-9)).copied();
    let above = all.iter().find(|t| **t >= max * (1.0 - 1e-9)).copied();
    let mut t: Vec<f64> = below.into_iter().chain(all.iter().copied().filter(|t| *t > min && *t < max)).collect();
    t.extend(above.filter(|x| t.last() != Some(x)));
    t
}

/// A tick label: few digits, k and M for thousands and millions, no trailing zeros.
pub fn label(v: f64) -> String {
    let (v, suffix) = match v.abs() {
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let s = if v == 0.0 {
        "0".to_string()
    } else {
        let decimals = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    };
    format!("{s}{suffix}")
}

/// A horizontal value axis at `y` with vertical grid lines from `top`, labels below.
pub fn bottom(svg: &mut Svg, scale: &Scale, ticks: &[(f64, String)], y: f64, top: f64, title: &str) {
    for (v, text) in ticks {
        let x = scale.px(*v);
        svg.line((x, top), (x, y), GRID, 1.0, "");
        svg.line((x, y), (x, y + 4.0), AXIS, 1.0, "");
        svg.text((x, y + 17.0), text, 11.0, Anchor::Middle, MUTED, "");
    }
    svg.line((scale.from, y), (scale.to, y), AXIS, 1.0, "");
    if !title.is_empty() {
        svg.text(((scale.from + scale.to) / 2.0, y + 36.0), title, 12.0, Anchor::Middle, MUTED, "");
    }
}

/// A vertical value axis at `x` with horizontal grid lines to `right`, labels to its left.
pub fn left(svg: &mut Svg, scale: &Scale, ticks: &[(f64, String)], x: f64, right: f64, title: &str) {
    for (v, text) in ticks {
        let y = scale.px(*v);
        svg.line((x, y), (right, y), GRID, 1.0, "");
        svg.text((x - 6.0, y + 4.0), text, 11.0, Anchor::End, MUTED, "");
    }
    svg.line((x, scale.from), (x, scale.to), AXIS, 1.0, "");
    if !title.is_empty() {
        let (cx, cy) = (16.0, (scale.from + scale.to) / 2.0);
        svg.text(
            (cx, cy),
            title,
            12.0,
            Anchor::Middle,
            MUTED,
            &format!(r#" transform="rotate(-90 {} {})""#, super::svg::n(cx), super::svg::n(cy)),
        );
    }
}

/// Ticks with their labels.
pub fn labelled(ticks: &[f64]) -> Vec<(f64, String)> {
    ticks.iter().map(|t| (*t, label(*t))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks_cover_the_data_in_round_steps() {
        assert_eq!(nice_ticks(0.0, 9.3, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(nice_ticks(0.0, 1234.0, 5), vec![0.0, 250.0, 500.0, 750.0, 1000.0, 1250.0]);
        assert_eq!(nice_ticks(0.0, 1.0, 5), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    }

    #[test]
    fn log_ticks_bracket_the_data() {
        assert_eq!(log_ticks(0.03, 4.0), vec![0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]);
        assert_eq!(log_ticks(0.001, 100.0), vec![0.001, 0.01, 0.1, 1.0, 10.0, 100.0]);
        assert_eq!(log_ticks(0.6, 0.8), vec![0.5, 1.0]);
    }

    #[test]
    fn labels_are_short() {
        let l: Vec<String> = [0.0, 0.02, 0.5, 2.5, 250.0, 1250.0, 20000.0, 2_500_000.0].map(label).into();
        assert_eq!(l, ["0", "0.02", "0.5", "2.5", "250", "1.25k", "20k", "2.5M"]);
    }

    #[test]
    fn scales_map_ends_to_ends() {
        let s = Scale { lo: 0.0, hi: 10.0, from: 100.0, to: 200.0, log: false };
        assert_eq!((s.px(0.0), s.px(5.0), s.px(10.0), s.px(20.0)), (100.0, 150.0, 200.0, 200.0));
        let s = Scale { lo: 0.01, hi: 10.0, from: 300.0, to: 0.0, log: true };
        assert!((s.px(0.1) - 200.0).abs() < 1e-9 && (s.px(1.0) - 100.0).abs() < 1e-9);
    }
}
