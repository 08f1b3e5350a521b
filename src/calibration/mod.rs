//! Calibration by simulation: repeats drawn from known distributions (models.rs) and
//! from repeat traces recorded on real machines (traces.rs), so that what the intervals
//! and verdicts claim can be checked against how often it is true.
//!
//! Two cells are drawn as `dbrace run` and `dbrace exec` measure them, in rounds whose
//! order is random, and judged as they judge them: with a fixed number of rounds (one
//! look), and as a budgeted run looks at them (stats/looks.rs) over at most `BUDGET_ROUNDS`
//! rounds. `compare` gets two runs' repeats of one cell. Each line is 2,000 draws; with
//! `cargo test --release --lib calibration -- --nocapture` the tables are printed
//! (docs/statistics.md has a copy).

mod models;
mod source;
mod traces;

use crate::stats::{self, Judging, LEVEL, Ratio, Repeats, Verdict, estimate, percent};
use source::Source;
use std::sync::OnceLock;

/// Draws per line: the standard error of a 5% rate is then 0.49 points.
const DRAWS: usize = 2000;
/// Repeat counts checked with one look.
const NS: [usize; 5] = [3, 5, 6, 10, 20];
/// Above this many repeats, compare's verdict is not simulated: its exact U test over 40
/// values costs a millisecond.
const JUDGED_UP_TO: usize = 10;
/// The real differences the power columns must find.
const EFFECTS: [f64; 3] = [1.2, 1.5, 2.0];
/// The rounds a budgeted run is given in the simulation: what the default budget holds
/// for a comparison that stays open in the default matrix.
const BUDGET_ROUNDS: usize = 20;

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

/// A ratio of rounds as run and exec judge it: A against B, faster above 1.
fn judged(walls: bool, pairs: &[(f64, f64)], judging: Judging) -> Ratio {
    let rounds = Some((1..=pairs.len() as u32).collect::<Vec<_>>());
    let side = |f: fn(&(f64, f64)) -> f64| Repeats { tps: pairs.iter().map(f).collect(), rounds: rounds.clone() };
    let (a, b) = (side(|p| p.0), side(|p| p.1));
    match walls {
        // exec's speed-up: the baseline's wall time over the profile's.
        true => crate::exec::summary::versus(&b, &a, LEVEL, judging).speedup,
        false => stats::judge(&a, &b, LEVEL, judging),
    }
}

/// As `judged`, by exec's own summary: the same rounds as wall times.
fn by_exec(walls: bool, pairs: &[(f64, f64)]) -> Verdict {
    let as_walls: Vec<(f64, f64)> =
        if walls { pairs.to_vec() } else { pairs.iter().map(|(a, b)| (1.0 / a, 1.0 / b)).collect() };
    judged(true, &as_walls, Judging::Once).verdict
}

/// compare's verdict on two runs' repeats, as faster / slower / none.
fn by_compare(walls: bool, old: &[f64], new: &[f64]) -> Verdict {
    let flip = |xs: &[f64]| xs.iter().map(|x| if walls { 1.0 / x } else { *x }).collect::<Vec<_>>();
    use crate::compare::Verdict as C;
    match crate::compare::judge(&flip(old), &flip(new), LEVEL).2 {
        C::Faster => Verdict::Faster,
        C::Slower => Verdict::Slower,
        C::NoSignificantDifference => Verdict::NoSignificantDifference,
        C::NotEnoughRepeats | C::NotMeasured => Verdict::TooFewRepeats,
    }
}

fn called(v: Verdict) -> bool {
    matches!(v, Verdict::Faster | Verdict::Slower)
}

/// What one source gave with `n` rounds and one look (`n` = 0: a budgeted run's looks).
struct Line {
    source: String,
    n: usize,
    trace: bool,
    /// The median interval's stated level and how often it held the true median.
    median: Option<(f64, f64)>,
    /// The ratio interval's stated level and how often it held the true ratio (1.5).
    ratio: Option<(f64, f64)>,
    /// Of A/A pairs, the share called different by run, compare (side by side), compare
    /// (two runs apart) and exec.
    alarms: [Option<f64>; 4],
    /// The share of real differences (`EFFECTS`) called faster by run.
    power: [f64; 3],
}

fn share(hits: usize) -> f64 {
    hits as f64 / DRAWS as f64
}

/// `n` rounds of `source`, one look.
fn fixed(source: &dyn Source, n: usize, seed: u64, trace: bool) -> Line {
    let mut rng = Rng::new(seed);
    let walls = source.walls();
    let mut line =
        Line { source: source.name(), n, trace, median: None, ratio: None, alarms: [None; 4], power: [0.0; 3] };
    if let (_, Some(_)) = source.cell(&mut rng, n) {
        let (mut held, mut stated) = (0, 0.0);
        for _ in 0..DRAWS {
            let (xs, truth) = source.cell(&mut rng, n);
            let e = estimate(&xs, LEVEL);
            let truth = truth.expect("a source with a median has it every time");
            stated = e.confidence.expect("n ≥ 2");
            held += usize::from(e.lo.unwrap() <= truth && truth <= e.hi.unwrap());
        }
        line.median = Some((stated, share(held)));
    }
    let effect = 1.5;
    let (mut held, mut stated) = (0, 0.0);
    for _ in 0..DRAWS {
        let r = judged(walls, &source.rounds(&mut rng, n, effect, false), Judging::Once);
        stated = r.confidence.unwrap_or(0.0);
        held += usize::from(r.lo.is_some_and(|lo| lo <= effect) && r.hi.is_some_and(|hi| effect <= hi));
    }
    line.ratio = (n >= 2).then_some((stated, share(held)));
    let judged_compare = n <= JUDGED_UP_TO;
    let mut alarms = [0; 4];
    for _ in 0..DRAWS {
        let pairs = source.rounds(&mut rng, n, 1.0, false);
        alarms[0] += usize::from(called(judged(walls, &pairs, Judging::Once).verdict));
        alarms[3] += usize::from(called(by_exec(walls, &pairs)));
        if judged_compare {
            for (k, apart) in [(1, false), (2, true)] {
                let (old, new) = source.runs(&mut rng, n, 1.0, apart);
                alarms[k] += usize::from(called(by_compare(walls, &old, &new)));
            }
        }
    }
    let compare = |k: usize| judged_compare.then(|| share(alarms[k]));
    line.alarms = [Some(share(alarms[0])), compare(1), compare(2), Some(share(alarms[3]))];
    line.power = EFFECTS.map(|f| {
        share(
            (0..DRAWS)
                .filter(|_| {
                    judged(walls, &source.rounds(&mut rng, n, f, false), Judging::Once).verdict == Verdict::Faster
                })
                .count(),
        )
    });
    line
}

/// A budgeted run's looks over at most `BUDGET_ROUNDS` rounds of `source`.
fn budgeted(source: &dyn Source, seed: u64, trace: bool) -> Line {
    let mut rng = Rng::new(seed);
    let walls = source.walls();
    let mut verdict = |scale: f64| judged(walls, &source.rounds(&mut rng, BUDGET_ROUNDS, scale, true), Judging::Looks);
    let alarms = (0..DRAWS).filter(|_| called(verdict(1.0).verdict)).count();
    let power = EFFECTS.map(|f| share((0..DRAWS).filter(|_| verdict(f).verdict == Verdict::Faster).count()));
    Line {
        source: source.name(),
        n: 0,
        trace,
        median: None,
        ratio: None,
        alarms: [Some(share(alarms)), None, None, None],
        power,
    }
}

/// Every line, simulated once for all the tests (two threads: the machine has two cores).
fn table() -> &'static [Line] {
    static TABLE: OnceLock<Vec<Line>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let traces = traces::all();
        let mut sources: Vec<(&dyn Source, bool)> =
            models::Noise::ALL.iter().map(|m| (m as &dyn Source, false)).collect();
        sources.extend(traces.iter().map(|t| (t as &dyn Source, true)));
        let jobs: Vec<(usize, usize)> =
            (0..sources.len()).flat_map(|s| NS.iter().copied().chain([0]).map(move |n| (s, n))).collect();
        let run = |part: &[(usize, usize)]| -> Vec<Line> {
            part.iter()
                .map(|&(s, n)| {
                    let (source, trace) = sources[s];
                    let seed = 0x5eed_0000 + (s * 64 + n) as u64;
                    if n == 0 { budgeted(source, seed, trace) } else { fixed(source, n, seed, trace) }
                })
                .collect()
        };
        let (first, second) = jobs.split_at(jobs.len() / 2);
        let mut lines = std::thread::scope(|s| {
            let other = s.spawn(|| run(second));
            let mut mine = run(first);
            mine.extend(other.join().expect("simulation thread"));
            mine
        });
        lines.sort_by_key(|l| (l.trace, l.n == 0));
        println!("{}", render(&lines));
        for t in &traces {
            println!("{}: A/A apart by {:.3} over the whole trace (A brought to B's level)", t.name(), t.apart());
        }
        lines
    })
}

fn render(lines: &[Line]) -> String {
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    let maybe = |v: Option<f64>| v.map_or("-".into(), pct);
    let pair = |v: Option<(f64, f64)>| v.map_or("-".into(), |(s, c)| format!("{} / {}", pct(c), pct(s)));
    let mut out = format!(
        "calibration at --confidence {}, {DRAWS} draws a line; coverage as held / stated; A/A: identical cells called different; power: a real 1.2×, 1.5×, 2× called faster\n",
        percent(LEVEL)
    );
    out += "| source | rounds | median interval | ratio interval | A/A run | A/A compare | A/A compare, runs apart | A/A exec | power 1.2× | power 1.5× | power 2× |\n";
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for l in lines {
        let n = if l.n == 0 { format!("budget (≤ {BUDGET_ROUNDS})") } else { l.n.to_string() };
        out += &format!(
            "| {} | {n} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            l.source,
            pair(l.median),
            pair(l.ratio),
            maybe(l.alarms[0]),
            maybe(l.alarms[1]),
            maybe(l.alarms[2]),
            maybe(l.alarms[3]),
            pct(l.power[0]),
            pct(l.power[1]),
            pct(l.power[2])
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
            // A model of repeats that share one distribution holds its level; a drift and a
            // real trace at least their level (a drift widens the interval; a trace's
            // finite population and ties make it hold more often).
            let exact = !l.trace && l.median.is_some();
            let ok = if exact { (held - stated).abs() <= 0.03 } else { held >= stated - 0.03 };
            assert!(ok, "{what} interval, {} n={}: held {held:.3}, states {stated:.3}", l.source, l.n);
        }
    }
}

#[test]
fn identical_cells_are_rarely_called_different() {
    let limit = 0.05 + three_se(0.05);
    for l in table() {
        // Two runs apart carry whatever drifted between them: shown, not held to 5%.
        for (what, rate) in [("run", l.alarms[0]), ("compare", l.alarms[1]), ("exec", l.alarms[3])] {
            let Some(rate) = rate else { continue };
            assert!(rate <= limit, "{what}: A/A false alarms {rate:.3} > {limit:.3}, {} n={}", l.source, l.n);
        }
    }
}

#[test]
fn a_budget_finds_a_real_difference() {
    for l in table().iter().filter(|l| l.n == 0) {
        // The headline question: twice as fast, on every quiet machine recorded (a build
        // beside the run disturbs two cells unlike: docs/statistics.md shows how much).
        if !l.source.contains("busy") {
            let p = l.power[2];
            assert!(p >= 0.95, "power {p:.3} < 95% for 2× within {BUDGET_ROUNDS} rounds, {}", l.source);
        }
        // A 20% difference under a quiet machine's usual noise, not its disturbances.
        if !l.trace && l.source.starts_with(['n', 'l']) && !l.source.contains('+') {
            assert!(l.power[0] >= 0.9, "power {:.3} < 90% for 1.2×, {}", l.power[0], l.source);
        }
    }
}

#[test]
fn three_repeats_claim_nothing_at_95_percent() {
    // The widest 3 v 3 interval is 90%: a verdict there would be a false promise.
    for l in table().iter().filter(|l| l.n == 3) {
        assert!(l.alarms.iter().flatten().all(|a| *a == 0.0), "{}", l.source);
        assert_eq!(l.power, [0.0; 3], "{}", l.source);
    }
}
