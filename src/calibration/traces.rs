//! Repeats recorded on a real machine (tests/traces/, made by bench/record-traces): A/A
//! pairs, two cells of the same engine and profile measured in the same rounds, 200 rounds
//! and more. Drawing rounds from them keeps what the models leave out: the shape of real
//! noise, its bursts, its drift over minutes, and what two cells of one round share.

use super::Rng;
use super::source::Source;
use crate::stats;

/// One A/A pair of a trace.
pub struct Trace {
    name: String,
    walls: bool,
    /// (A, B) of every round both measured, in round order, A brought to B's level.
    pairs: Vec<(f64, f64)>,
    /// A / B over the whole trace as recorded.
    apart: f64,
}

/// The A/A pairs of a trace file: (A, B) cell names.
type Pairs = &'static [(&'static str, &'static str)];

/// Every recorded trace's A/A pairs: `(file, its text)`, and in each the cells paired.
pub fn all() -> Vec<Trace> {
    const RUN_PAIRS: [(&str, &str); 4] = [
        ("postgres/disk2", "postgres/disk"),
        ("postgres/ram2", "postgres/ram"),
        ("sqlite/disk2", "sqlite/disk"),
        ("sqlite/ram2", "sqlite/ram"),
    ];
    const EXEC_PAIRS: [(&str, &str); 2] = [("disk2", "disk"), ("ram2", "ram")];
    let files: [(&str, &str, Pairs); 4] = [
        ("short-quiet", include_str!("../../tests/traces/short-quiet.csv"), &RUN_PAIRS),
        ("short-busy", include_str!("../../tests/traces/short-busy.csv"), &RUN_PAIRS),
        ("long-quiet", include_str!("../../tests/traces/long-quiet.csv"), &RUN_PAIRS),
        ("exec-quiet", include_str!("../../tests/traces/exec-quiet.csv"), &EXEC_PAIRS),
    ];
    files
        .iter()
        .flat_map(|&(file, text, pairs)| pairs.iter().map(move |&(a, b)| Trace::parse(file, text, a, b)))
        .collect()
}

impl Trace {
    /// Cells `a` and `b` of a trace file: `round,cell,value,steal,others` lines after `#`
    /// comments and a header; `# values: wall` marks an exec trace.
    fn parse(file: &str, text: &str, a: &str, b: &str) -> Trace {
        let walls = text.lines().any(|l| l.trim() == "# values: wall");
        let rows: Vec<(u32, &str, f64)> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("round,"))
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].parse().expect("a round"), f[1], f[2].parse().expect("a value"))
            })
            .collect();
        let of = |cell: &str, round: u32| rows.iter().find(|(r, c, _)| *r == round && *c == cell).map(|x| x.2);
        let last = rows.iter().map(|r| r.0).max().unwrap_or(0);
        let pairs: Vec<(f64, f64)> = (1..=last).filter_map(|r| Some((of(a, r)?, of(b, r)?))).collect();
        assert!(pairs.len() >= 200, "{file}: {a} and {b} share {} rounds", pairs.len());
        // Two instances of one profile may differ a little for the whole trace (a file's
        // place on the disk): A is brought to B's level, so that the pair's true ratio is
        // 1 and the checks judge the method, not the instances.
        let d: Vec<f64> = pairs.iter().map(|(x, y)| (x / y).ln()).collect();
        let apart = stats::median(&stats::signed_rank::walsh_averages(&d)).exp();
        let pairs = pairs.into_iter().map(|(x, y)| (x / apart, y)).collect();
        Trace { name: format!("{file} {b}"), walls, pairs, apart }
    }

    /// How far the two instances were apart over the whole trace (A / B).
    pub fn apart(&self) -> f64 {
        self.apart
    }

    fn b(&self) -> Vec<f64> {
        self.pairs.iter().map(|p| p.1).collect()
    }

    /// `x` made `scale` times faster.
    fn faster(&self, x: f64, scale: f64) -> f64 {
        if self.walls { x / scale } else { x * scale }
    }
}

/// `k` values of `xs` drawn without replacement.
fn sample(rng: &mut Rng, xs: &[f64], k: usize) -> Vec<f64> {
    let mut v = xs.to_vec();
    rng.0.shuffle(&mut v);
    v.truncate(k);
    v
}

impl Source for Trace {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// `n` consecutive rounds from a place drawn at random, drift and bursts as they came;
    /// or any `n` rounds, each pair as it came, in round order. A trace of 200 rounds holds
    /// only ten separate blocks of 20, too few to tell 5% from 10%; samples of rounds are
    /// many more.
    fn rounds(&self, rng: &mut Rng, n: usize, scale: f64, consecutive: bool) -> Vec<(f64, f64)> {
        let picked: Vec<usize> = if consecutive {
            let start = rng.0.range(0, (self.pairs.len() - n) as i64) as usize;
            (start..start + n).collect()
        } else {
            let mut all: Vec<usize> = (0..self.pairs.len()).collect();
            rng.0.shuffle(&mut all);
            let mut some = all[..n].to_vec();
            some.sort_unstable();
            some
        };
        picked.into_iter().map(|i| (self.faster(self.pairs[i].0, scale), self.pairs[i].1)).collect()
    }

    /// Side by side: two disjoint random samples of B's rounds. Apart: a block of the
    /// trace's first half against one of its second half, minutes later.
    fn runs(&self, rng: &mut Rng, n: usize, scale: f64, apart: bool) -> (Vec<f64>, Vec<f64>) {
        let b = self.b();
        let (old, new) = if apart {
            let half = b.len() / 2;
            let (s1, s2) =
                (rng.0.range(0, (half - n) as i64) as usize, rng.0.range(half as i64, (b.len() - n) as i64) as usize);
            (b[s1..s1 + n].to_vec(), b[s2..s2 + n].to_vec())
        } else {
            let both = sample(rng, &b, 2 * n);
            (both[..n].to_vec(), both[n..].to_vec())
        };
        (old, new.into_iter().map(|x| self.faster(x, scale)).collect())
    }

    /// A random sample of B's repeats; the truth is the median of all of them.
    fn cell(&self, rng: &mut Rng, n: usize) -> (Vec<f64>, Option<f64>) {
        (sample(rng, &self.b(), n), Some(stats::median(&self.b())))
    }

    fn walls(&self) -> bool {
        self.walls
    }
}
