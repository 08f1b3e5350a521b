//! tps over time: each measured repeat's per-second timeline as a line, so drift, stalls
//! (a checkpoint, a vacuum) and differences between repeats are visible. A repeat with
//! `--log-interval` slices is drawn from them instead, one point per slice.

use super::axis::{self, Scale};
use super::svg::Svg;
use super::{Group, Key, Panel, Style, WIDTH, cell_label, legend};
use crate::results::RepeatResult;

/// A repeat's rate per slice (`every` seconds long) as (seconds since the measurement
/// began, tps) at each slice's middle: from its `--log-interval` slices when it has them
/// and `every` is known, else from its per-second timeline.
pub fn rates_of(r: &RepeatResult, every: Option<f64>) -> Vec<(f64, f64)> {
    match every {
        Some(every) if every > 0.0 && !r.intervals.is_empty() => {
            let counts: Vec<(f64, u64)> = r.intervals.iter().map(|i| (i.start_s, i.transactions)).collect();
            slices(&counts, every, r.duration_s)
        }
        _ => rates(r),
    }
}

/// Each slice's (middle, count per second); the last is a rate over its measured part,
/// dropped under a quarter of a slice unless it is the only one.
pub fn slices(counts: &[(f64, u64)], every: f64, duration_s: f64) -> Vec<(f64, f64)> {
    spans(counts.iter().map(|c| c.0), every, duration_s)
        .zip(counts)
        .filter_map(|(span, (start, n))| span.map(|s| (start + s / 2.0, *n as f64 / s)))
        .collect()
}

/// The measured length of each slice starting at `starts`, None for a sliver to leave out.
pub fn spans(
    starts: impl ExactSizeIterator<Item = f64>,
    every: f64,
    duration_s: f64,
) -> impl Iterator<Item = Option<f64>> {
    let n = starts.len();
    starts.map(move |start| {
        let span = (duration_s - start).clamp(0.0, every);
        (span >= every / 4.0 || (n == 1 && span > 0.0)).then_some(span)
    })
}

/// A repeat's rate per second as (seconds since the measurement began, tps) at each
/// second's middle. The last second may be partial: its rate is over the part measured,
/// and a sliver under a quarter second is left out (too few transactions to be a rate).
pub fn rates(r: &RepeatResult) -> Vec<(f64, f64)> {
    let n = r.timeline.len();
    let mut out = Vec::with_capacity(n);
    for (i, &count) in r.timeline.iter().enumerate() {
        let span = if i + 1 == n { (r.duration_s - i as f64).clamp(0.0, 1.0) } else { 1.0 };
        if span < 0.25 && !(n == 1 && span > 0.0) {
            continue;
        }
        out.push((i as f64 + span / 2.0, count as f64 / span));
    }
    out
}

/// Draw the timeline panel of one group; `every` is the run's `--log-interval`, seconds.
pub fn draw(g: &Group, style: &Style, every: Option<f64>) -> Panel {
    let series: Vec<_> = g
        .cells
        .iter()
        .map(|(_, c)| {
            let reps: Vec<Vec<(f64, f64)>> = c
                .repeats
                .iter()
                .filter(|r| r.status.measured())
                .map(|r| rates_of(r, every))
                .filter(|p| !p.is_empty())
                .collect();
            (c, reps)
        })
        .filter(|(_, reps)| !reps.is_empty())
        .collect();
    let keys: Vec<Key> = series
        .iter()
        .map(|(c, _)| Key { label: cell_label(c), color: style.color(&c.profile.name), dash: style.dash(&c.engine) })
        .collect();
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(
        &format!("Throughput over time — {}", g.name()),
        &match every {
            Some(e) => format!("transactions per second in each {} s slice, one line per repeat", axis::label(e)),
            None => "transactions per second in each second, one line per repeat".to_string(),
        },
    );
    let top = legend(&mut svg, &keys, 70.0, 50.0, WIDTH - 20.0) + 6.0;
    let bottom = top + 260.0;
    svg.height = bottom + 52.0;
    let (left, right) = (70.0, WIDTH - 24.0);
    if series.is_empty() {
        svg.empty((top + bottom) / 2.0, "no measured repeat has a timeline");
        return Panel {
            height: svg.height,
            svg: svg.finish("timeline", 0, &format!("Throughput over time, {}", g.name())),
        };
    }
    let points = || series.iter().flat_map(|(_, reps)| reps.iter().flatten());
    let max_t = points().map(|p| p.0 + 0.5).fold(1.0, f64::max);
    let max_tps = points().map(|p| p.1).fold(0.0, f64::max);
    let min_tps = points().map(|p| p.1).filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    let (ys, yticks, log) = Scale::auto(min_tps, max_tps, bottom, top);
    let xticks = axis::nice_ticks(0.0, max_t.ceil(), 8);
    let xs = Scale { lo: 0.0, hi: *xticks.last().unwrap_or(&max_t), from: left, to: right, log: false };
    axis::left(&mut svg, &ys, &axis::labelled(&yticks), left, right, &format!("tps{log}"));
    axis::bottom(&mut svg, &xs, &axis::labelled(&xticks), bottom, top, "seconds since the measurement began");

    let mut marks = 0;
    for (c, reps) in &series {
        let color = style.color(&c.profile.name);
        for (k, pts) in reps.iter().enumerate() {
            let line: Vec<(f64, f64)> = pts.iter().map(|(t, v)| (xs.px(*t), ys.px(*v))).collect();
            if line.len() > 1 {
                svg.polyline(
                    &line,
                    color,
                    1.6,
                    &format!(r#" class="series" stroke-opacity="0.85"{}"#, style.dash(&c.engine)),
                );
            }
            for ((t, v), p) in pts.iter().zip(&line) {
                let tip = format!("{} repeat {}: {:.0} tps at {:.1} s", cell_label(c), k + 1, v, t);
                svg.dot(*p, if line.len() > 1 { 2.0 } else { 3.5 }, color, "point", &tip);
            }
            marks += 1;
        }
    }
    Panel { height: svg.height, svg: svg.finish("timeline", marks, &format!("Throughput over time, {}", g.name())) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeat(timeline: Vec<u64>, duration_s: f64) -> RepeatResult {
        let mut r = RepeatResult::failed(1, String::new(), String::new(), String::new());
        r.timeline = timeline;
        r.duration_s = duration_s;
        r
    }

    #[test]
    fn the_last_partial_second_is_a_rate_over_its_part_and_a_sliver_is_dropped() {
        assert_eq!(rates(&repeat(vec![100, 120, 30], 2.5)), vec![(0.5, 100.0), (1.5, 120.0), (2.25, 60.0)]);
        assert_eq!(rates(&repeat(vec![100, 120, 3], 2.1)), vec![(0.5, 100.0), (1.5, 120.0)]);
        assert_eq!(rates(&repeat(vec![40], 0.2)), vec![(0.1, 200.0)]);
        assert_eq!(rates(&repeat(vec![], 0.0)), vec![]);
    }

    #[test]
    fn slices_give_a_rate_over_each_and_the_partial_last_over_its_part() {
        assert_eq!(
            slices(&[(0.0, 100), (0.5, 60), (1.0, 10)], 0.5, 1.25),
            vec![(0.25, 200.0), (0.75, 120.0), (1.125, 40.0)]
        );
        assert_eq!(slices(&[(0.0, 100), (0.5, 1)], 0.5, 0.55), vec![(0.25, 200.0)]);
        let mut r = repeat(vec![5, 5], 2.0);
        assert_eq!(rates_of(&r, Some(0.5)), rates(&r));
        r.intervals = (0..4)
            .map(|i| crate::results::Interval { start_s: i as f64 * 0.5, transactions: 3, ..Default::default() })
            .collect();
        assert_eq!(rates_of(&r, Some(0.5)), vec![(0.25, 6.0), (0.75, 6.0), (1.25, 6.0), (1.75, 6.0)]);
        assert_eq!(rates_of(&r, None), rates(&r));
    }
}
