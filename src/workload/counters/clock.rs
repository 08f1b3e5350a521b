//! The tracks' clock and the read workload's data set. A metrics library tracks "now":
//! the clock moves forward over `--counters-spread` during a run, so tracks fill new
//! minute buckets, move on to new hours and days, and cross month, quarter and year ends
//! (Trifle::Stats' own script tracked one static timestamp, the same seven buckets over
//! and over). Its positions are few and known, so a key-value verify can list every bucket.

use super::buckets::Granularity;
use super::options::CountersOptions;
pub use crate::options::counters::Pace;
use std::time::Instant;

/// 2023-12-15 00:00:00 UTC, where the clock starts: 30 days from here cross a month, a
/// quarter and a year end.
pub const ORIGIN: i64 = 1_702_598_400;

/// The timestamp of position `p` of `positions` spread evenly over `spread_s` seconds.
pub fn timestamp(p: u64, positions: u64, spread_s: i64) -> i64 {
    ORIGIN + (i128::from(p) * i128::from(spread_s) / i128::from(positions.max(1))) as i64
}

/// Every timestamp a clock of these options can give, in order.
pub fn all_timestamps(opts: &CountersOptions) -> impl Iterator<Item = i64> {
    let (n, spread) = (opts.pace.positions(), opts.spread_s);
    (0..n).map(move |p| timestamp(p, n, spread))
}

/// One client's clock. Each client starts at the origin and moves at the same pace, so
/// concurrent clients track the same "now", as an application's processes do.
pub struct Clock {
    pace: Pace,
    positions: u64,
    spread_s: i64,
    seq: u64,
    since: Instant,
}

impl Clock {
    /// A clock at the origin.
    pub fn new(opts: &CountersOptions) -> Clock {
        let pace = opts.pace;
        Clock { pace, positions: pace.positions(), spread_s: opts.spread_s, seq: 0, since: Instant::now() }
    }

    /// Back to the origin: the measured phase covers the whole spread (warm-up tracks
    /// went over its beginning).
    pub fn restart(&mut self) {
        self.seq = 0;
        self.since = Instant::now();
    }

    /// The timestamp of the next track; past the end of the spread it starts over.
    pub fn tick(&mut self) -> i64 {
        let p = match self.pace {
            Pace::Tracks(_) => {
                self.seq += 1;
                (self.seq - 1) % self.positions
            }
            Pace::Time(d) => {
                let f = self.since.elapsed().as_secs_f64() / d.as_secs_f64().max(1e-9);
                (f * self.positions as f64) as u64 % self.positions
            }
        };
        timestamp(p, self.positions, self.spread_s)
    }
}

/// At most this many buckets of the read granularity in the read data set's window, per
/// key, unless one read needs more.
const WINDOW_BUCKETS: usize = 1000;

/// Bucket starts of the read granularity over the read data set's window: the spread (at
/// most `WINDOW_BUCKETS` buckets), and at least one read range. One track per bucket and
/// key fills it; `len() - 1` buckets, the last entry the window's end.
pub fn window(opts: &CountersOptions) -> Vec<i64> {
    let g = opts.range.granularity;
    let mut starts = vec![g.floor(ORIGIN)];
    loop {
        let last = *starts.last().expect("starts is never empty");
        let covers_spread = last >= ORIGIN + opts.spread_s || starts.len() > WINDOW_BUCKETS;
        if starts.len() > 1 && covers_spread && last - starts[0] >= opts.range.span_s {
            return starts;
        }
        starts.push(g.next(last));
    }
}

/// The buckets a run of tracks at `times` (in order) fills, per granularity: (start,
/// tracks in it), in order.
pub fn bucketize(times: impl Iterator<Item = i64>) -> Vec<Vec<(i64, u64)>> {
    let mut out: Vec<Vec<(i64, u64)>> = vec![Vec::new(); Granularity::ALL.len()];
    for t in times {
        for g in Granularity::ALL {
            let start = g.floor(t);
            match out[g.index()].last_mut() {
                Some((s, n)) if *s == start => *n += 1,
                _ => out[g.index()].push((start, 1)),
            }
        }
    }
    out
}

/// The buckets of the read data set, per granularity: (start, tracks in it) for each key.
pub fn dataset(opts: &CountersOptions) -> Vec<Vec<(i64, u64)>> {
    let w = window(opts);
    bucketize(w[..w.len() - 1].iter().copied())
}

/// The ranges reads take over the data set's window: each ends at a bucket boundary and
/// lies inside the window, so every bucket it asks for holds a track of every key.
pub struct Ranges {
    /// The granularity read.
    pub granularity: Granularity,
    starts: Vec<i64>,
    span_s: i64,
    /// The first boundary a read may end at (one span after the window's start).
    first_end: usize,
}

impl Ranges {
    /// The ranges of the read data set of these options.
    pub fn new(opts: &CountersOptions) -> Ranges {
        let starts = window(opts);
        let span_s = opts.range.span_s;
        let first_end = starts.partition_point(|s| s - starts[0] < span_s);
        Ranges { granularity: opts.range.granularity, starts, span_s, first_end }
    }

    /// A range drawn uniformly: the index of its end.
    pub fn draw(&self, rng: &mut crate::rng::Rng) -> usize {
        rng.range(self.first_end as i64, self.starts.len() as i64 - 1) as usize
    }

    /// The range ending at boundary `end`: from, to, and the starts of its buckets.
    pub fn bounds(&self, end: usize) -> (i64, i64, &[i64]) {
        let to = self.starts[end];
        let from = to - self.span_s;
        let lo = self.starts.partition_point(|s| *s < from);
        (from, to, &self.starts[lo..end])
    }
}

#[cfg(test)]
mod tests {
    use super::super::buckets::days_from_civil;
    use super::super::options::parse_range;
    use super::*;

    #[test]
    fn origin_is_mid_december() {
        assert_eq!(ORIGIN, days_from_civil(2023, 12, 15) * 86_400);
    }

    #[test]
    fn a_clock_by_tracks_covers_the_spread_and_starts_over() {
        let opts = CountersOptions { pace: Pace::Tracks(4), spread_s: 400, ..CountersOptions::default() };
        let mut c = Clock::new(&opts);
        let ticks: Vec<i64> = (0..6).map(|_| c.tick() - ORIGIN).collect();
        assert_eq!(ticks, [0, 100, 200, 300, 0, 100]);
        c.restart();
        assert_eq!(c.tick(), ORIGIN);
        let all: Vec<i64> = all_timestamps(&opts).map(|t| t - ORIGIN).collect();
        assert_eq!(all, [0, 100, 200, 300]);
        let still = CountersOptions { spread_s: 0, ..opts };
        assert!(all_timestamps(&still).all(|t| t == ORIGIN));
    }

    #[test]
    fn thirty_days_of_tracks_cross_month_quarter_and_year() {
        let opts = CountersOptions { pace: Pace::Tracks(1000), ..CountersOptions::default() };
        let b = bucketize(all_timestamps(&opts));
        let count = |g: Granularity| b[g.index()].len();
        assert_eq!(count(Granularity::Year), 2);
        assert_eq!(count(Granularity::Quarter), 2);
        assert_eq!(count(Granularity::Month), 2);
        assert_eq!(count(Granularity::Day), 30);
        assert_eq!(count(Granularity::Week), 5, "Dec 11, 18, 25, Jan 1, 8");
        assert_eq!(count(Granularity::Minute), 1000);
        for g in Granularity::ALL {
            assert_eq!(b[g.index()].iter().map(|(_, n)| n).sum::<u64>(), 1000, "{g:?}");
        }
    }

    #[test]
    fn the_read_window_holds_the_spread_or_one_range() {
        let opts = CountersOptions::default();
        let w = window(&opts);
        assert_eq!(w.len(), 30 * 24 + 1, "30 days of hours");
        assert_eq!(w[0], ORIGIN);
        let d = dataset(&opts);
        assert_eq!(d[Granularity::Hour.index()].len(), 720);
        assert!(d[Granularity::Hour.index()].iter().all(|(_, n)| *n == 1));
        assert_eq!(d[Granularity::Day.index()].iter().map(|(_, n)| n).sum::<u64>(), 720);
        // Minutes: capped at 1000 buckets.
        let fine = CountersOptions { range: parse_range("1h:minute").unwrap(), ..opts.clone() };
        assert_eq!(window(&fine).len(), 1001);
        // A range longer than the spread: the window is one range.
        let long = CountersOptions { range: parse_range("52w:month").unwrap(), ..opts.clone() };
        let w = window(&long);
        assert_eq!(w.len(), 13, "December 2023 to December 2024: {w:?}");
        let still = CountersOptions { spread_s: 0, ..opts };
        assert_eq!(window(&still).len(), 25, "one day of hours");
    }

    #[test]
    fn reads_ask_for_whole_ranges_inside_the_window() {
        let opts = CountersOptions::default();
        let r = Ranges::new(&opts);
        let (from, to, b) = r.bounds(r.first_end);
        assert_eq!((from, to, b.len(), b[0]), (ORIGIN, ORIGIN + 86_400, 24, ORIGIN));
        let mut rng = crate::rng::Rng::new(7);
        let ends: Vec<usize> = (0..2000).map(|_| r.draw(&mut rng)).collect();
        assert_eq!((*ends.iter().min().unwrap(), *ends.iter().max().unwrap()), (24, 720));
        // Months: a 53-week range holds 12 or 13 month starts, all in the window.
        let m = Ranges::new(&CountersOptions { range: parse_range("53w:month").unwrap(), ..opts });
        for end in m.first_end..m.starts.len() {
            let (from, to, b) = m.bounds(end);
            assert!(b.len() == 12 || b.len() == 13, "{b:?}");
            assert!(b[0] >= from && *b.last().unwrap() < to && b[0] >= m.starts[0]);
        }
    }
}
