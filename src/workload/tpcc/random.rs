//! The specification's random values (clause 4.3.2): NURand with its C constants,
//! customer last names from syllables, a-strings and n-strings, the 10% of item and stock
//! data that holds "ORIGINAL", zip codes and fixed-point amounts.

use crate::rng::Rng;

/// NURand's C for customer last names while loading (clause 2.1.6): any value in 0..=255.
pub const C_LAST_LOAD: i64 = 157;
/// C for last names while running: its distance from the load's, 80, lies in 65..=119 and
/// is neither 96 nor 112, as clause 2.1.6.1 asks.
pub const C_LAST_RUN: i64 = 77;
/// C for customer ids (A = 1023).
pub const C_ID: i64 = 259;
/// C for item ids (A = 8191).
pub const C_ITEM: i64 = 7911;

/// Items, customers per district, districts per warehouse, orders per district.
pub const ITEMS: i64 = 100_000;
/// Customers of one district.
pub const CUSTOMERS: i64 = 3_000;
/// Districts of one warehouse.
pub const DISTRICTS: i64 = 10;
/// The first order still waiting for delivery when loaded (orders 2101..=3000).
pub const FIRST_NEW_ORDER: i64 = 2_101;

/// The syllables last names are made of.
const SYLLABLES: [&str; 10] = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];

/// NURand(A, x, y) with constant `c`: non-uniform over x..=y, as clause 2.1.6 defines it.
pub fn nurand(rng: &mut Rng, a: i64, c: i64, x: i64, y: i64) -> i64 {
    (((rng.range(0, a) | rng.range(x, y)) + c) % (y - x + 1)) + x
}

/// The last name for number `n` (0..=999), one syllable per digit, into `out`.
pub fn last_name(n: i64, out: &mut String) {
    out.clear();
    for d in [n / 100, n / 10 % 10, n % 10] {
        out.push_str(SYLLABLES[d as usize]);
    }
}

/// A customer last name drawn while running (NURand(255, 0, 999)), into `out`.
pub fn run_last_name(rng: &mut Rng, out: &mut String) {
    last_name(nurand(rng, 255, C_LAST_RUN, 0, 999), out);
}

/// A random a-string of `lo..=hi` letters and digits.
pub fn astring(rng: &mut Rng, lo: i64, hi: i64) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let n = rng.range(lo, hi);
    (0..n).map(|_| CHARS[rng.range(0, CHARS.len() as i64 - 1) as usize] as char).collect()
}

/// A random n-string of `n` digits.
pub fn nstring(rng: &mut Rng, n: i64) -> String {
    (0..n).map(|_| char::from(b'0' + rng.range(0, 9) as u8)).collect()
}

/// Item or stock data: an a-string of 26..=50, holding "ORIGINAL" at a random place in
/// 10% of rows (clause 4.3.3.1).
pub fn data_maybe_original(rng: &mut Rng) -> String {
    let mut s = astring(rng, 26, 50);
    if rng.range(1, 10) == 1 {
        let at = rng.range(0, s.len() as i64 - 8) as usize;
        s.replace_range(at..at + 8, "ORIGINAL");
    }
    s
}

/// A zip code: four random digits and "11111".
pub fn zip(rng: &mut Rng) -> String {
    nstring(rng, 4) + "11111"
}

/// Two random capital letters.
pub fn state(rng: &mut Rng) -> String {
    (0..2).map(|_| char::from(b'A' + rng.range(0, 25) as u8)).collect()
}

/// A fixed-point value with `scale` decimals, from its integer count of the smallest
/// unit (`fixed(1234, 2)` is "12.34").
pub fn fixed(units: i64, scale: u32) -> String {
    let p = 10i64.pow(scale);
    let sign = if units < 0 { "-" } else { "" };
    format!("{sign}{}.{:0w$}", units.abs() / p, units.abs() % p, w = scale as usize)
}

/// A decimal's text as a count of its `scale`-th units ("0.0712" at 4 is 712); none when
/// it is not a number.
pub fn units(text: &str, scale: u32) -> Option<i64> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut v: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let digits = frac.bytes().take(scale as usize);
    let mut n = 0;
    for d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
        n += 1;
    }
    v *= 10i64.pow(scale - n);
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_are_the_syllables_of_the_digits() {
        let mut s = String::new();
        last_name(0, &mut s);
        assert_eq!(s, "BARBARBAR");
        last_name(371, &mut s);
        assert_eq!(s, "PRICALLYOUGHT");
        last_name(999, &mut s);
        assert_eq!(s, "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_range_and_is_not_uniform() {
        let mut rng = Rng::new(1);
        let mut seen = vec![0u32; 1000];
        for _ in 0..200_000 {
            let v = nurand(&mut rng, 255, C_LAST_RUN, 0, 999);
            assert!((0..=999).contains(&v));
            seen[v as usize] += 1;
        }
        let (lo, hi) = (seen.iter().min().unwrap(), seen.iter().max().unwrap());
        assert!(*hi > 3 * lo.max(&1), "skewed: {lo}..{hi}");
    }

    #[test]
    fn the_constants_keep_the_specifications_distance() {
        let d = (C_LAST_RUN - C_LAST_LOAD).abs();
        assert!((65..=119).contains(&d) && d != 96 && d != 112);
    }

    #[test]
    fn about_a_tenth_of_the_data_is_original() {
        let mut rng = Rng::new(2);
        let n = (0..10_000).filter(|_| data_maybe_original(&mut rng).contains("ORIGINAL")).count();
        assert!((800..1200).contains(&n), "{n}");
        let s = data_maybe_original(&mut rng);
        assert!((26..=50).contains(&s.len()));
    }

    #[test]
    fn fixed_point_text_goes_both_ways() {
        assert_eq!(fixed(1234, 2), "12.34");
        assert_eq!(fixed(-1000, 2), "-10.00");
        assert_eq!(fixed(712, 4), "0.0712");
        assert_eq!(units("0.0712", 4), Some(712));
        assert_eq!(units("12.3", 2), Some(1230));
        assert_eq!(units("-10.00", 2), Some(-1000));
        assert_eq!(units("7", 2), Some(700));
        assert_eq!(units("x", 2), None);
    }
}
