//! Calibration by simulation: repeats drawn from known distributions, so that what the
//! intervals and verdicts claim can be checked against how often it is true.
//!
//! Noise is multiplicative, as a machine's is on throughput: normal (σ = 5%), lognormal
//! (σ = 5%), a disturbed repeat now and then (lognormal σ = 3%, and 5% of repeats at 0.6×),
//! and a slow drift (lognormal σ = 5% on a 10% slide over the run, the A/B cells
//! interleaved A B A B … as `dbrace run` does). Each line is 2,000 draws; with
//! `cargo test --release calibration -- --nocapture` the table is printed
//! (docs/statistics.md has a copy).

use crate::stats::{LEVEL, Verdict, estimate, normal, percent, ratio};
use std::sync::OnceLock;

/// Draws per line: the standard error of a 5% rate is then 0.49 points.
const DRAWS: usize = 2000;
/// Repeat counts checked.
const NS: [usize; 5] = [3, 5, 6, 10, 20];
/// Above this many repeats, compare's and exec's verdicts are not simulated: their exact
/// U test over 40 values costs a millisecond, and their verdict is the ratio's anyway.
const JUDGED_UP_TO: usize = 10;
/// The real difference the power test must find.
const EFFECT: f64 = 1.2;

/// The project's xoshiro256** (a fixed sequence on every machine), with the draws the
/// simulated noise needs.
struct Rng(crate::rng::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(crate::rng::Rng::new(seed))
    }

    /// Uniform in (0, 1).
    fn unit(&mut self) -> f64 {
        ((self.0.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn gauss(&mut self) -> f64 {
        (-2.0 * self.unit().ln()).sqrt() * (std::f64::consts::TAU * self.unit()).cos()
    }
}

/// The noise a repeat's throughput carries.
#[derive(Clone, Copy)]
enum Noise {
    Normal,
    Lognormal,
    Outliers,
    Drift,
}

impl Noise {
    const ALL: [Noise; 4] = [Noise::Normal, Noise::Lognormal, Noise::Outliers, Noise::Drift];

    fn name(self) -> &'static str {
        match self {
            Noise::Normal => "normal σ5%",
            Noise::Lognormal => "lognormal σ5%",
            Noise::Outliers => "lognormal σ3% + 5% at 0.6×",
            Noise::Drift => "lognormal σ5% + 10% drift",
        }
    }

    /// One repeat's factor; `at` is its place in the run, 0 ..= 1.
    fn factor(self, rng: &mut Rng, at: f64) -> f64 {
        match self {
            Noise::Normal => 1.0 + 0.05 * rng.gauss(),
            Noise::Lognormal => (0.05 * rng.gauss()).exp(),
            Noise::Outliers => {
                let slow = if rng.unit() < 0.05 { 0.6 } else { 1.0 };
                slow * (0.03 * rng.gauss()).exp()
            }
            Noise::Drift => (1.0 - 0.1 * at) * (0.05 * rng.gauss()).exp(),
        }
    }

    /// The true median of one repeat's factor, where repeats share one distribution.
    fn median(self) -> Option<f64> {
        match self {
            Noise::Normal | Noise::Lognormal => Some(1.0),
            // 0.95·Φ(ln m / 0.03) + 0.05·Φ(ln(m/0.6) / 0.03) = ½, by bisection.
            Noise::Outliers => {
                let cdf = |m: f64| 0.95 * normal::cdf(m.ln() / 0.03) + 0.05 * normal::cdf((m / 0.6).ln() / 0.03);
                let (mut lo, mut hi) = (0.5, 1.5);
                for _ in 0..100 {
                    let mid = (lo + hi) / 2.0;
                    if cdf(mid) < 0.5 { lo = mid } else { hi = mid }
                }
                Some(lo)
            }
            // Repeats differ in distribution along the run: no one median to cover.
            Noise::Drift => None,
        }
    }

    /// n repeats of two cells interleaved A B A B …, A at `scale` times B's speed.
    fn pair(self, rng: &mut Rng, n: usize, scale: f64) -> (Vec<f64>, Vec<f64>) {
        let slots = (2 * n - 1).max(1) as f64;
        let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for i in 0..n {
            a.push(1000.0 * scale * self.factor(rng, (2 * i) as f64 / slots));
            b.push(1000.0 * self.factor(rng, (2 * i + 1) as f64 / slots));
        }
        (a, b)
    }
}

/// What one noise and repeat count gave.
struct Line {
    noise: Noise,
    n: usize,
    /// The median interval's stated level and how often it held the true median.
    median: Option<(f64, f64)>,
    /// The ratio interval's stated level and how often it held the true ratio.
    ratio: Option<(f64, f64)>,
    /// Of A/A pairs, the share called faster or slower by the ratio, compare and exec.
    alarms: [Option<f64>; 3],
    /// The share of 20% differences called faster, by the ratio and by compare.
    power: [Option<f64>; 2],
}

fn simulate(noise: Noise, n: usize) -> Line {
    let mut rng = Rng::new(0x5eed_0000 + n as u64 * 31 + noise as u64);
    let mut line = Line { noise, n, median: None, ratio: None, alarms: [None; 3], power: [None; 2] };
    let judged = n <= JUDGED_UP_TO;
    let share = |hits: usize| hits as f64 / DRAWS as f64;
    if let Some(m) = noise.median() {
        let (mut held, mut stated) = (0, 0.0);
        for _ in 0..DRAWS {
            let xs: Vec<f64> = (0..n).map(|_| 1000.0 * noise.factor(&mut rng, 0.0)).collect();
            let e = estimate(&xs, LEVEL);
            stated = e.confidence.expect("n ≥ 2");
            held += usize::from(e.lo.unwrap() <= 1000.0 * m && 1000.0 * m <= e.hi.unwrap());
        }
        line.median = Some((stated, share(held)));
        let (mut held, mut stated) = (0, 0.0);
        for _ in 0..DRAWS {
            let (a, b) = noise.pair(&mut rng, n, EFFECT);
            let r = ratio(&a, &b, LEVEL);
            stated = r.confidence.expect("n ≥ 2");
            held += usize::from(r.lo.unwrap() <= EFFECT && EFFECT <= r.hi.unwrap());
        }
        line.ratio = Some((stated, share(held)));
    }
    let mut alarms = [0; 3];
    for _ in 0..DRAWS {
        let (a, b) = noise.pair(&mut rng, n, 1.0);
        let called = |v: Verdict| matches!(v, Verdict::Faster | Verdict::Slower);
        alarms[0] += usize::from(called(ratio(&a, &b, LEVEL).verdict));
        if judged {
            use crate::compare::Verdict as C;
            alarms[1] += usize::from(matches!(crate::compare::judge(&b, &a, LEVEL).2, C::Faster | C::Slower));
            use crate::exec::summary::Verdict as E;
            let exec = crate::exec::summary::versus(&a, &b, LEVEL).verdict;
            alarms[2] += usize::from(matches!(exec, E::Faster | E::Slower));
        }
    }
    line.alarms = [Some(share(alarms[0])), judged.then(|| share(alarms[1])), judged.then(|| share(alarms[2]))];
    let mut found = [0; 2];
    for _ in 0..DRAWS {
        let (a, b) = noise.pair(&mut rng, n, EFFECT);
        found[0] += usize::from(ratio(&a, &b, LEVEL).verdict == Verdict::Faster);
        if judged {
            found[1] += usize::from(crate::compare::judge(&b, &a, LEVEL).2 == crate::compare::Verdict::Faster);
        }
    }
    line.power = [Some(share(found[0])), judged.then(|| share(found[1]))];
    line
}

/// Every line, simulated once for all the tests (two threads: the machine has two cores).
fn table() -> &'static [Line] {
    static TABLE: OnceLock<Vec<Line>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let jobs: Vec<(Noise, usize)> = Noise::ALL.iter().flat_map(|&x| NS.map(|n| (x, n))).collect();
        let (odd, even): (Vec<_>, Vec<_>) = jobs.iter().enumerate().partition(|(i, _)| i % 2 == 1);
        let run = |part: Vec<(usize, &(Noise, usize))>| -> Vec<(usize, Line)> {
            part.into_iter().map(|(i, &(x, n))| (i, simulate(x, n))).collect()
        };
        let mut lines = std::thread::scope(|s| {
            let other = s.spawn(|| run(odd));
            let mut mine = run(even);
            mine.extend(other.join().expect("simulation thread"));
            mine
        });
        lines.sort_by_key(|(i, _)| *i);
        let lines: Vec<Line> = lines.into_iter().map(|(_, l)| l).collect();
        println!("{}", render(&lines));
        lines
    })
}

fn render(lines: &[Line]) -> String {
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    let maybe = |v: Option<f64>| v.map_or("-".into(), pct);
    let pair = |v: Option<(f64, f64)>| v.map_or("-".into(), |(s, c)| format!("{} / {}", pct(c), pct(s)));
    let mut out =
        format!("calibration at --confidence {}, {DRAWS} draws a line; coverage as held / stated\n", percent(LEVEL));
    out += "| noise | n | median interval | ratio interval | A/A ratio | A/A compare | A/A exec | power 20% ratio | power 20% compare |\n";
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for l in lines {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            l.noise.name(),
            l.n,
            pair(l.median),
            pair(l.ratio),
            maybe(l.alarms[0]),
            maybe(l.alarms[1]),
            maybe(l.alarms[2]),
            maybe(l.power[0]),
            maybe(l.power[1])
        );
    }
    out
}

/// Three standard errors of a share near `p` over the draws.
fn three_se(p: f64) -> f64 {
    3.0 * (p * (1.0 - p) / DRAWS as f64).sqrt()
}

#[test]
fn intervals_hold_the_level_they_state() {
    for l in table() {
        for (what, v) in [("median", l.median), ("ratio", l.ratio)] {
            let Some((stated, held)) = v else { continue };
            assert!(
                (held - stated).abs() <= 0.03,
                "{what} interval, {} n={}: held {held:.3}, states {stated:.3}",
                l.noise.name(),
                l.n
            );
        }
    }
}

#[test]
fn identical_cells_are_rarely_called_different() {
    let limit = 0.05 + three_se(0.05);
    for l in table() {
        for (what, rate) in ["ratio", "compare", "exec"].iter().zip(l.alarms) {
            let Some(rate) = rate else { continue };
            assert!(rate <= limit, "{what}: A/A false alarms {rate:.3} > {limit:.3}, {} n={}", l.noise.name(), l.n);
        }
    }
}

#[test]
fn a_real_20_percent_difference_is_found_at_the_default_repeats() {
    let n = crate::stats::DEFAULT_REPEAT as usize;
    // A machine's usual noise, not its disturbances: a 0.6× repeat among the faster cell's
    // few hides a 20% difference from a rank test (the table shows how often).
    let lines: Vec<&Line> =
        table().iter().filter(|l| l.n == n && matches!(l.noise, Noise::Normal | Noise::Lognormal)).collect();
    assert_eq!(lines.len(), 2, "the default repeat count {n} is simulated");
    for l in lines {
        for (what, power) in ["ratio", "compare"].iter().zip(l.power) {
            let power = power.expect("the default repeats are judged by every method");
            assert!(power >= 0.9, "{what}: power {power:.3} < 90% for 20% under {}, n={n}", l.noise.name());
        }
    }
}

#[test]
fn three_repeats_claim_nothing_at_95_percent() {
    // The widest 3 v 3 interval is 90%: a verdict there would be a false promise.
    for l in table().iter().filter(|l| l.n == 3) {
        assert_eq!(l.alarms, [Some(0.0); 3], "{}", l.noise.name());
        assert_eq!(l.power, [Some(0.0); 2], "{}", l.noise.name());
    }
}
