//! Time buckets in UTC, as a metrics library keeps them: one per minute, hour, day, week
//! (starting Monday), month, quarter and year. Timestamps are Unix seconds; a bucket is
//! named by the second it starts at.

use serde::{Deserialize, Serialize};

/// How wide a bucket is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    /// 60 seconds.
    Minute,
    /// 3600 seconds.
    Hour,
    /// A calendar day.
    Day,
    /// Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
    /// January–March, April–June, July–September, October–December.
    Quarter,
    /// A calendar year.
    Year,
}

const DAY: i64 = 86_400;

impl Granularity {
    /// Every granularity a track writes, finest first (the order a track takes its locks in).
    pub const ALL: [Granularity; 7] = [
        Granularity::Minute,
        Granularity::Hour,
        Granularity::Day,
        Granularity::Week,
        Granularity::Month,
        Granularity::Quarter,
        Granularity::Year,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Minute => "minute",
            Granularity::Hour => "hour",
            Granularity::Day => "day",
            Granularity::Week => "week",
            Granularity::Month => "month",
            Granularity::Quarter => "quarter",
            Granularity::Year => "year",
        }
    }

    /// The short name stored in tables and keys (Trifle::Stats' own: 1m, 1h, …).
    pub fn code(self) -> &'static str {
        match self {
            Granularity::Minute => "1m",
            Granularity::Hour => "1h",
            Granularity::Day => "1d",
            Granularity::Week => "1w",
            Granularity::Month => "1mo",
            Granularity::Quarter => "1q",
            Granularity::Year => "1y",
        }
    }

    /// Its index in `ALL`.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The longest a bucket can be, in seconds (a read range must cover at least this).
    pub fn longest(self) -> i64 {
        match self {
            Granularity::Minute => 60,
            Granularity::Hour => 3600,
            Granularity::Day => DAY,
            Granularity::Week => 7 * DAY,
            Granularity::Month => 31 * DAY,
            Granularity::Quarter => 92 * DAY,
            Granularity::Year => 366 * DAY,
        }
    }

    /// The start of the bucket holding `t`.
    pub fn floor(self, t: i64) -> i64 {
        let days = t.div_euclid(DAY);
        match self {
            Granularity::Minute => t - t.rem_euclid(60),
            Granularity::Hour => t - t.rem_euclid(3600),
            Granularity::Day => days * DAY,
            // 1970-01-01 was a Thursday: three days after a Monday.
            Granularity::Week => (days - (days + 3).rem_euclid(7)) * DAY,
            Granularity::Month | Granularity::Quarter | Granularity::Year => {
                let (y, m, _) = civil_from_days(days);
                let m = match self {
                    Granularity::Month => m,
                    Granularity::Quarter => (m - 1) / 3 * 3 + 1,
                    _ => 1,
                };
                days_from_civil(y, m, 1) * DAY
            }
        }
    }

    /// The start of the bucket after the one holding `t`.
    pub fn next(self, t: i64) -> i64 {
        let start = self.floor(t);
        let months = match self {
            Granularity::Month => 1,
            Granularity::Quarter => 3,
            Granularity::Year => 12,
            fixed => return start + fixed.longest(),
        };
        let (y, m, _) = civil_from_days(start.div_euclid(DAY));
        let m0 = m - 1 + months;
        days_from_civil(y + m0.div_euclid(12), m0.rem_euclid(12) + 1, 1) * DAY
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1–12, day 1–31) `days` after 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::Granularity::*;
    use super::*;

    /// Unix seconds of a UTC date and time.
    fn at(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
        days_from_civil(y, mo, d) * DAY + h * 3600 + mi * 60 + s
    }

    #[test]
    fn calendar_round_trips() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(at(2024, 1, 1, 0, 0, 0), 1_704_067_200);
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        for d in -800_000..800_000 {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }

    #[test]
    fn weeks_start_on_monday() {
        // Wednesday 2024-01-03 and Sunday 2024-01-07 are in the week of Monday 2024-01-01.
        assert_eq!(Week.floor(at(2024, 1, 3, 12, 0, 0)), at(2024, 1, 1, 0, 0, 0));
        assert_eq!(Week.floor(at(2024, 1, 7, 23, 59, 59)), at(2024, 1, 1, 0, 0, 0));
        assert_eq!(Week.floor(at(2024, 1, 8, 0, 0, 0)), at(2024, 1, 8, 0, 0, 0));
        // A week across a year end: Thursday 1970-01-01 belongs to Monday 1969-12-29.
        assert_eq!(Week.floor(0), at(1969, 12, 29, 0, 0, 0));
        assert_eq!(Week.floor(at(2025, 1, 1, 0, 0, 0)), at(2024, 12, 30, 0, 0, 0));
        assert_eq!(Week.next(at(2024, 12, 31, 5, 0, 0)), at(2025, 1, 6, 0, 0, 0));
    }

    #[test]
    fn months_quarters_years() {
        let t = at(2024, 2, 29, 13, 14, 15);
        assert_eq!(Minute.floor(t), at(2024, 2, 29, 13, 14, 0));
        assert_eq!(Hour.floor(t), at(2024, 2, 29, 13, 0, 0));
        assert_eq!(Day.floor(t), at(2024, 2, 29, 0, 0, 0));
        assert_eq!(Month.floor(t), at(2024, 2, 1, 0, 0, 0));
        assert_eq!(Month.next(t), at(2024, 3, 1, 0, 0, 0));
        assert_eq!(Quarter.floor(t), at(2024, 1, 1, 0, 0, 0));
        assert_eq!(Quarter.next(t), at(2024, 4, 1, 0, 0, 0));
        assert_eq!(Year.next(t), at(2025, 1, 1, 0, 0, 0));
        // Each quarter's first and last second.
        for (m, q) in [(1, 1), (3, 1), (4, 4), (6, 4), (7, 7), (9, 7), (10, 10), (12, 10)] {
            assert_eq!(Quarter.floor(at(2023, m, 15, 0, 0, 0)), at(2023, q, 1, 0, 0, 0), "month {m}");
        }
        assert_eq!(Quarter.floor(at(2024, 4, 1, 0, 0, 0) - 1), at(2024, 1, 1, 0, 0, 0));
        assert_eq!(Quarter.next(at(2023, 11, 30, 0, 0, 0)), at(2024, 1, 1, 0, 0, 0));
        // The last second of 2023 (a Sunday) ends a bucket of every granularity.
        let eve = at(2023, 12, 31, 23, 59, 59);
        for g in Granularity::ALL {
            assert_eq!(g.next(eve), eve + 1, "{g:?}");
            assert_eq!(g.floor(eve + 1), eve + 1, "{g:?}");
        }
        assert_eq!(Year.floor(eve), at(2023, 1, 1, 0, 0, 0));
        assert_eq!(Week.floor(eve), at(2023, 12, 25, 0, 0, 0));
        assert_eq!(Minute.floor(-1), -60, "before 1970 too");
    }

    #[test]
    fn buckets_tile_time() {
        // From 2023-11-20 on, bucket after bucket: each starts where the last ended and
        // holds every second between; no bucket is longer than `longest`.
        for g in Granularity::ALL {
            let mut start = g.floor(at(2023, 11, 20, 7, 0, 0));
            for _ in 0..30 {
                let next = g.next(start);
                assert!(next > start && next - start <= g.longest(), "{g:?} {start}");
                assert_eq!(g.floor(next - 1), start, "{g:?}");
                assert_eq!(g.floor(start + (next - start) / 2), start, "{g:?}");
                assert_eq!(g.floor(next), next, "{g:?}");
                start = next;
            }
        }
    }
}
