//! YCSB's number generators: the key hash, the zipfian generator of Gray et al.
//! ("Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994) with θ = 0.99 and
//! its zeta grown incrementally when the item count grows, the scrambled zipfian that
//! scatters the popular items over the key space, and "latest", a zipfian whose most
//! popular item is the newest record.

use crate::rng::Rng;

/// YCSB's zipfian constant θ.
pub const THETA: f64 = 0.99;

/// Items of the zipfian behind the scrambled one, and its zeta at θ = 0.99 (YCSB's
/// `ScrambledZipfianGenerator.ITEM_COUNT` and `ZETAN`: precomputed, as summing 10^10
/// terms per client would take a minute).
const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the value's 8 bytes, least significant first,
/// then Java's `Math.abs` of the signed result.
pub fn fnv64(mut v: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..8 {
        h ^= v & 0xff;
        v >>= 8;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    // Math.abs(Long.MIN_VALUE) stays Long.MIN_VALUE; as unsigned that is 2^63.
    (h as i64).unsigned_abs()
}

/// Java's `String.hashCode` of an ASCII string: the score YCSB's redis binding gives a key
/// in its sorted-set index.
pub fn java_hash(s: &[u8]) -> i32 {
    s.iter().fold(0i32, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b)))
}

/// ζ(n, θ) grown from ζ(from, θ) = `sum`: Σ 1/i^θ for i in from+1..=n.
pub fn zeta(from: u64, n: u64, theta: f64, sum: f64) -> f64 {
    (from..n).fold(sum, |s, i| s + 1.0 / ((i + 1) as f64).powf(theta))
}

/// Items 0..n with item i drawn with probability ∝ 1/(i+1)^θ: item 0 the most popular.
#[derive(Clone, Debug)]
pub struct Zipfian {
    /// The item count ζ was computed for.
    count: u64,
    zetan: f64,
    zeta2: f64,
    alpha: f64,
    eta: f64,
}

impl Zipfian {
    /// A generator over `n` items (ζ summed here: O(n)).
    pub fn new(n: u64) -> Zipfian {
        Zipfian::with_zeta(n, zeta(0, n, THETA, 0.0))
    }

    /// A generator over `n` items whose ζ(n, θ) is known.
    pub fn with_zeta(n: u64, zetan: f64) -> Zipfian {
        let mut z = Zipfian { count: n, zetan, zeta2: zeta(0, 2, THETA, 0.0), alpha: 1.0 / (1.0 - THETA), eta: 0.0 };
        z.eta = z.eta_for(n);
        z
    }

    /// ζ(n, θ) of the current item count.
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// Gray et al.'s η for `n` items. YCSB recomputes it after growth with the item count
    /// it was built with; this uses the current one, as the formula means (the two differ
    /// in the fourth decimal for 5% growth).
    fn eta_for(&self, n: u64) -> f64 {
        (1.0 - (2.0 / n as f64).powf(1.0 - THETA)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// The next item among `n` (0..n). When `n` has grown, ζ grows by the new terms only,
    /// as YCSB's `nextLong(itemcount)` does; a smaller `n` keeps ζ (YCSB's default) and
    /// the draw is clamped into range.
    pub fn next(&mut self, rng: &mut Rng, n: u64) -> u64 {
        if n > self.count {
            self.zetan = zeta(self.count, n, THETA, self.zetan);
            self.count = n;
            self.eta = self.eta_for(n);
        }
        let u = rng.unit();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(THETA) {
            return 1.min(n - 1);
        }
        let v = (n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(n - 1)
    }
}

/// YCSB's `ScrambledZipfianGenerator`: a zipfian over 10^10 items, hashed (FNV) into
/// 0..items, so the popular records lie anywhere in the key space rather than at its start.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    zipf: Zipfian,
    items: u64,
}

impl ScrambledZipfian {
    /// Over `items` items (at least 1).
    pub fn new(items: u64) -> ScrambledZipfian {
        ScrambledZipfian { zipf: Zipfian::with_zeta(SCRAMBLED_ITEMS, SCRAMBLED_ZETAN), items }
    }

    /// The next item in 0..items.
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        fnv64(self.zipf.next(rng, SCRAMBLED_ITEMS)) % self.items
    }
}

/// YCSB's `SkewedLatestGenerator`: among the `count` records that exist, the newest is the
/// most popular, then the one before, as a zipfian over their age.
#[derive(Clone, Debug)]
pub struct Latest {
    zipf: Zipfian,
}

impl Latest {
    /// For `count` records now (ζ known, or computed when `None`).
    pub fn new(count: u64, zetan: Option<f64>) -> Latest {
        let zipf = match zetan {
            Some(z) => Zipfian::with_zeta(count, z),
            None => Zipfian::new(count),
        };
        Latest { zipf }
    }

    /// A record among 0..count, favouring the last. YCSB draws from `count - 1` ages, so
    /// its record 0 is never read; here every record can be.
    pub fn next(&mut self, rng: &mut Rng, count: u64) -> u64 {
        count - 1 - self.zipf.next(rng, count)
    }
}

/// Which record an operation touches (YCSB's `requestdistribution`).
#[derive(Clone, Debug)]
pub enum KeyChooser {
    /// Uniform over the loaded records (YCSB's uniform leaves inserted ones out too).
    Uniform(u64),
    /// Scrambled zipfian over the loaded records plus the inserts expected.
    Zipfian(ScrambledZipfian),
    /// The newest records first.
    Latest(Latest),
}

impl KeyChooser {
    /// The next record number, below `exist` (records 0..exist are there to read). As
    /// YCSB's `nextKeynum`, a zipfian draw beyond them is drawn again.
    pub fn next(&mut self, rng: &mut Rng, exist: u64) -> u64 {
        match self {
            KeyChooser::Uniform(n) => rng.range(0, (*n).min(exist) as i64 - 1) as u64,
            KeyChooser::Zipfian(z) => loop {
                let k = z.next(rng);
                if k < exist {
                    return k;
                }
            },
            KeyChooser::Latest(l) => l.next(rng, exist),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ζ(n, θ) for large n by Euler–Maclaurin: the exact sum to m, then the integral of
    /// the tail with its first correction terms.
    fn zeta_approx(n: f64, m: u64) -> f64 {
        let head = zeta(0, m, THETA, 0.0);
        let f = |x: f64| x.powf(-THETA);
        let integral = |a: f64, b: f64| (b.powf(1.0 - THETA) - a.powf(1.0 - THETA)) / (1.0 - THETA);
        let m = m as f64;
        head + integral(m, n) + (f(n) - f(m)) / 2.0
    }

    #[test]
    fn scrambled_zeta_constant_is_zeta_of_its_item_count() {
        let z = zeta_approx(SCRAMBLED_ITEMS as f64, 100_000);
        assert!((z - SCRAMBLED_ZETAN).abs() < 1e-6, "{z} vs {SCRAMBLED_ZETAN}");
    }

    #[test]
    fn fnv_and_java_hash_known_answers() {
        // FNV-1a of eight zero bytes: the basis times the prime, eight times.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        assert_eq!(fnv64(0), (h as i64).unsigned_abs());
        assert!(fnv64(1) <= 1 << 63 && fnv64(1) != fnv64(2));
        // "hello".hashCode() in Java.
        assert_eq!(java_hash(b"hello"), 99_162_322);
        assert_eq!(java_hash(b""), 0);
    }

    /// Expected share of item i among n: (1/(i+1)^θ) / ζ(n).
    fn share(i: u64, n: u64) -> f64 {
        1.0 / ((i + 1) as f64).powf(THETA) / zeta(0, n, THETA, 0.0)
    }

    /// χ²/N (the effect size φ², independent of the number of draws) of the counts
    /// grouped by powers of two (items 0, 1, 2–3, 4–7, …) against 1/(i+1)^θ. Gray's method
    /// is exact for items 0 and 1 and a continuous approximation beyond (items 2–3 come
    /// out ~14% too often, as in YCSB), so a plain χ² test would reject it at any large N;
    /// φ² measures how far off it is: 0.002 for θ = 0.99 against its own law, 0.03 for
    /// draws with θ = 0.9, 0.14 for θ = 0.8, more for uniform.
    fn phi_square_by_octave(counts: &[u64], n: u64) -> f64 {
        let draws: u64 = counts.iter().sum();
        let (mut chi, mut lo) = (0.0, 0u64);
        while lo < n {
            let hi = (lo * 2).max(1).min(n);
            let observed: u64 = counts[lo as usize..hi as usize].iter().sum();
            let expected: f64 = (lo..hi).map(|i| share(i, n)).sum::<f64>() * draws as f64;
            chi += (observed as f64 - expected).powi(2) / expected;
            lo = hi;
        }
        chi / draws as f64
    }

    #[test]
    fn zipfian_favours_item_zero_and_falls_as_a_power() {
        let n = 1000;
        let mut z = Zipfian::new(n);
        let mut rng = Rng::new(11);
        let draws = 200_000;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            let v = z.next(&mut rng, n);
            assert!(v < n);
            counts[v as usize] += 1;
        }
        let top = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0;
        assert_eq!(top, 0, "item 0 is the most frequent");
        // Items 0 and 1 exactly as 1/(i+1)^θ: within 4 standard deviations.
        for i in 0..2 {
            let p = share(i, n);
            let sd = (draws as f64 * p * (1.0 - p)).sqrt();
            let dev = (counts[i as usize] as f64 - draws as f64 * p).abs();
            assert!(dev < 4.0 * sd, "item {i}: {} drawn, {} expected", counts[i as usize], draws as f64 * p);
        }
        let phi2 = phi_square_by_octave(&counts, n);
        assert!(phi2 < 0.01, "φ² {phi2}: the draws do not fall as 1/(i+1)^0.99");
        // The head falls as the power says: item 9 about 10^-0.99 of item 0.
        let ratio = counts[9] as f64 / counts[0] as f64;
        assert!((ratio - 10f64.powf(-THETA)).abs() < 0.03, "item 9 / item 0 = {ratio}");
    }

    #[test]
    fn the_power_law_check_can_fail() {
        // Draws from a flatter law score far beyond the bound above.
        let n = 1000;
        let mut rng = Rng::new(3);
        let mut counts = vec![0u64; n as usize];
        for _ in 0..200_000 {
            counts[rng.range(0, n as i64 - 1) as usize] += 1;
        }
        assert!(phi_square_by_octave(&counts, n) > 0.1);
        // Half the draws from the zipfian, half uniform: still refused.
        let mut z = Zipfian::new(n);
        for c in counts.iter_mut() {
            *c /= 2;
        }
        for _ in 0..100_000 {
            counts[z.next(&mut rng, n) as usize] += 1;
        }
        assert!(phi_square_by_octave(&counts, n) > 0.01);
    }

    #[test]
    fn zeta_grows_incrementally_as_computed_from_scratch() {
        let mut z = Zipfian::new(1000);
        let mut rng = Rng::new(5);
        for n in [1000, 1001, 1500, 4000] {
            z.next(&mut rng, n);
            let fresh = zeta(0, n, THETA, 0.0);
            assert!((z.zetan() - fresh).abs() < 1e-9, "{n}: {} vs {fresh}", z.zetan());
        }
    }

    #[test]
    fn small_counts_stay_in_range() {
        let mut rng = Rng::new(9);
        for n in 1..6 {
            let mut z = Zipfian::new(n);
            let mut l = Latest::new(n, None);
            for _ in 0..2000 {
                assert!(z.next(&mut rng, n) < n);
                assert!(l.next(&mut rng, n) < n);
            }
        }
    }

    #[test]
    fn scrambled_stays_in_range_and_its_hot_item_is_the_hash_of_zero() {
        let n = 10_000;
        let mut z = ScrambledZipfian::new(n);
        let mut rng = Rng::new(21);
        let mut counts = vec![0u32; n as usize];
        for _ in 0..200_000 {
            let v = z.next(&mut rng);
            assert!(v < n);
            counts[v as usize] += 1;
        }
        let top = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0 as u64;
        assert_eq!(top, fnv64(0) % n);
        // Scattered: the hottest ten records are not next to each other.
        let mut hot: Vec<usize> = (0..n as usize).collect();
        hot.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        let spread = hot[..10].iter().max().unwrap() - hot[..10].iter().min().unwrap();
        assert!(spread > 1000, "{:?}", &hot[..10]);
    }

    #[test]
    fn latest_favours_the_newest_records_as_they_grow() {
        let mut rng = Rng::new(8);
        let mut l = Latest::new(1000, None);
        for count in [1000u64, 1200, 5000] {
            let draws = 50_000;
            let mut newest = 0;
            let mut last10 = 0;
            for _ in 0..draws {
                let v = l.next(&mut rng, count);
                assert!(v < count);
                newest += u64::from(v == count - 1);
                last10 += u64::from(v >= count - 10);
            }
            // The newest record alone takes item 0's share, the last ten ~40%.
            let p0 = 1.0 / zeta(0, count, THETA, 0.0);
            let got = newest as f64 / draws as f64;
            assert!((got - p0).abs() < 0.01, "{count}: newest {got}, expected {p0}");
            assert!(last10 as f64 / draws as f64 > 0.3, "{count}: last ten {last10}");
        }
    }

    #[test]
    fn choosers_stay_below_the_records_that_exist() {
        let mut rng = Rng::new(4);
        let mut choosers = [
            KeyChooser::Uniform(100),
            KeyChooser::Zipfian(ScrambledZipfian::new(110)),
            KeyChooser::Latest(Latest::new(100, None)),
        ];
        for c in &mut choosers {
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..20_000 {
                let v = c.next(&mut rng, 105);
                assert!(v < 105);
                seen.insert(v);
            }
            assert!(seen.len() > 50, "{c:?} covers {} records", seen.len());
            if let KeyChooser::Uniform(_) = c {
                assert_eq!(*seen.last().unwrap(), 99, "uniform stays in the loaded records");
            }
        }
    }
}
