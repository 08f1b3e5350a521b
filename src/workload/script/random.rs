//! pgbench's random and hash functions: the generator (xoroshiro128**, seeded through
//! splitmix64, as PostgreSQL's pg_prng), its uniform, exponential, Gaussian and Zipfian
//! draws, the two hash functions and the pseudorandom permutation. The hashes and
//! `permute` are deterministic, so they give pgbench's very values; the draws follow
//! pgbench's formulas from this generator's stream.

/// A client's generator: xoroshiro128** 1.0, the algorithm of PostgreSQL's pg_prng.
#[derive(Clone, Debug)]
pub struct Prng {
    s0: u64,
    s1: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut v = *state;
    v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    v ^ (v >> 31)
}

impl Prng {
    /// Seed from a 64-bit value, as pg_prng_seed (never the all-zero state).
    pub fn new(seed: u64) -> Prng {
        let mut s = seed;
        let (s0, s1) = (splitmix64(&mut s), splitmix64(&mut s));
        if s0 == 0 && s1 == 0 { Prng { s0: 0x5851_F42D_4C95_7F2D, s1: 0x1405_7B7E_F767_814F } } else { Prng { s0, s1 } }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let val = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        val
    }

    /// Uniform in `lo..=hi` (bitmask rejection, as pg_prng_uint64_range).
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let range = hi - lo;
        let shift = range.leading_zeros();
        loop {
            let v = self.next_u64() >> shift;
            if v <= range {
                return lo + v;
            }
        }
    }

    /// Uniform in [0, 1), from the top 52 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 12) as f64 * (1.0 / (1u64 << 52) as f64)
    }

    /// Standard normal (Box-Muller, one output per two draws).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = 1.0 - self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).sin()
    }

    /// `random(min, max)`: the caller has checked that `max - min + 1` fits.
    pub fn uniform(&mut self, min: i64, max: i64) -> i64 {
        min.wrapping_add(self.range_u64(0, max.wrapping_sub(min) as u64) as i64)
    }

    /// `random_exponential(min, max, parameter)`, parameter > 0.
    pub fn exponential(&mut self, min: i64, max: i64, parameter: f64) -> i64 {
        let cut = (-parameter).exp();
        let uniform = 1.0 - self.unit();
        let rand = -(cut + (1.0 - cut) * uniform).ln() / parameter;
        min.wrapping_add(((max - min + 1) as f64 * rand) as i64)
    }

    /// `random_gaussian(min, max, parameter)`, parameter >= 2.
    pub fn gaussian(&mut self, min: i64, max: i64, parameter: f64) -> i64 {
        let stdev = loop {
            let s = self.normal();
            if s >= -parameter && s < parameter {
                break s;
            }
        };
        let rand = (stdev + parameter) / (parameter * 2.0);
        min.wrapping_add(((max - min + 1) as f64 * rand) as i64)
    }

    /// `random_zipfian(min, max, s)`, s in [1.001, 1000]: Devroye's rejection method.
    pub fn zipfian(&mut self, min: i64, max: i64, s: f64) -> i64 {
        let n = max.wrapping_sub(min).wrapping_add(1);
        let x = if n <= 1 {
            1
        } else {
            let b = 2f64.powf(s - 1.0);
            loop {
                let u = self.unit();
                let v = self.unit();
                let x = u.powf(-1.0 / (s - 1.0)).floor();
                let t = (1.0 + 1.0 / x).powf(s - 1.0);
                if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n as f64 {
                    break x as i64;
                }
            }
        };
        min - 1 + x
    }
}

/// The smallest Gaussian parameter pgbench accepts.
pub const MIN_GAUSSIAN: f64 = 2.0;
/// Zipfian parameter bounds.
pub const MIN_ZIPFIAN: f64 = 1.001;
/// Zipfian parameter bounds.
pub const MAX_ZIPFIAN: f64 = 1000.0;

/// FNV-1a over the value's 8 bytes, low byte first, from the basis xor the seed.
pub fn hash_fnv1a(val: i64, seed: i64) -> i64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    let mut result = BASIS ^ seed as u64;
    let mut v = val;
    for _ in 0..8 {
        result ^= (v & 0xff) as u64;
        v >>= 8;
        result = result.wrapping_mul(PRIME);
    }
    result as i64
}

/// MurmurHash2 (64-bit) of one 8-byte value.
pub fn hash_murmur2(val: i64, seed: i64) -> i64 {
    const MUL: u64 = 0xc6a4_a793_5bd1_e995;
    const ROT: u32 = 47;
    let mut result = seed as u64 ^ MUL.wrapping_mul(8);
    let mut k = val as u64;
    k = k.wrapping_mul(MUL);
    k ^= k >> ROT;
    k = k.wrapping_mul(MUL);
    result ^= k;
    result = result.wrapping_mul(MUL);
    result ^= result >> ROT;
    result = result.wrapping_mul(MUL);
    result ^= result >> ROT;
    result as i64
}

/// `permute(val, size, seed)`: the position of `val` (mod size) in a pseudorandom
/// permutation of 0..size chosen by `seed` (size > 0 checked by the caller).
pub fn permute(val: i64, size: i64, seed: i64) -> i64 {
    if size < 2 {
        return 0;
    }
    let mut rng = Prng::new(seed as u64);
    let size = size as u64;
    let mut v = (val as u64) % size;
    let masklen = 63 - size.leading_zeros();
    let mask = (1u64 << masklen) - 1;
    for _ in 0..6 {
        // A multiply by an odd number, xor and rotate of the lower and upper halves, then
        // a random offset: each step is a bijection of 0..size.
        let m = (rng.next_u64() & mask) | 1;
        let r = rng.next_u64() & mask;
        if v <= mask {
            v = (v.wrapping_mul(m) ^ r) & mask;
            v = ((v << 1) & mask) | (v >> (masklen - 1));
        }
        let m = (rng.next_u64() & mask) | 1;
        let r = rng.next_u64() & mask;
        let mut t = size - 1 - v;
        if t <= mask {
            t = (t.wrapping_mul(m) ^ r) & mask;
            t = ((t << 1) & mask) | (t >> (masklen - 1));
            v = size - 1 - t;
        }
        let r = rng.range_u64(0, size - 1);
        v = (v + r) % size;
    }
    v as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_give_the_values_pgbench_documents() {
        // pgbench's reference page: hash(10, 5432) and hash_fnv1a(10, 5432).
        assert_eq!(hash_murmur2(10, 5432), -5817877081768721676);
        assert_eq!(hash_fnv1a(10, 5432), -7793829335365542153);
    }

    #[test]
    fn deterministic_functions_give_what_pgbench_15_prints() {
        // Printed by pgbench 15.20's debug() for the same calls.
        assert_eq!(permute(0, 4, 1), 0);
        assert_eq!(permute(5, 100, 42), 76);
        assert_eq!(permute(-7, 1000003, -5432), 679273);
        assert_eq!(permute(123456789, i64::MAX, 7), 8625716259475274070);
        assert_eq!(hash_fnv1a(-3, 0), -742179784301483393);
        assert_eq!(hash_murmur2(i64::MAX, -1), -7449049946749928351);
    }

    #[test]
    fn permute_is_a_bijection_for_every_size() {
        for size in 1..=70i64 {
            for seed in [0i64, 1, -7, 5432] {
                let mut seen: Vec<i64> = (0..size).map(|v| permute(v, size, seed)).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..size).collect::<Vec<_>>(), "size {size} seed {seed}");
            }
        }
        // Values outside the interval are taken modulo the size.
        assert_eq!(permute(13, 10, 3), permute(3, 10, 3));
    }

    #[test]
    fn draws_stay_in_their_bounds_and_have_their_shape() {
        let mut r = Prng::new(42);
        let (mut low, n) = (0, 20_000);
        for _ in 0..n {
            let u = r.uniform(-3, 3);
            assert!((-3..=3).contains(&u));
            let e = r.exponential(1, 100, 5.0);
            assert!((1..=100).contains(&e));
            low += i32::from(e <= 10);
            let g = r.gaussian(1, 100, 2.5);
            assert!((1..=100).contains(&g));
            let z = r.zipfian(1, 100, 1.5);
            assert!((1..=100).contains(&z));
        }
        // exp(-5 * 10/100) = 0.61 of the mass lies above 10: about 39% below.
        let share = f64::from(low) / f64::from(n);
        assert!((0.36..0.43).contains(&share), "{share}");
        assert_eq!(r.zipfian(7, 7, 2.0), 7);
        assert_eq!(r.uniform(i64::MIN / 2, i64::MIN / 2), i64::MIN / 2);
    }

    #[test]
    fn seeding_is_splitmix64_as_pg_prng() {
        // splitmix64's published first output for seed 0.
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
    }
}
