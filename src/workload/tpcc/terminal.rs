//! A terminal of clause 5.2.5, as `--tpcc-think` runs each client: its home warehouse and
//! district, and the keying and think times around each of its transactions.

use super::random::DISTRICTS;
use crate::rng::Rng;
use std::time::Duration;

/// Seconds a terminal's user keys in each type's input, in `TYPES`' order (clause 5.2.5.7).
const KEYING_S: [f64; 5] = [18.0, 3.0, 2.0, 2.0, 2.0];
/// Mean seconds a terminal's user thinks after each type's output (clause 5.2.5.7).
const THINK_S: [f64; 5] = [12.0, 12.0, 10.0, 5.0, 5.0];

/// Client `id`'s home warehouse and district: terminals dealt to the warehouses in turn,
/// then to their districts, so ten clients a warehouse give each district one.
pub fn home(id: u32, warehouses: i64) -> (i64, i64) {
    let id = i64::from(id);
    (id % warehouses + 1, id / warehouses % DISTRICTS + 1)
}

/// The wait after a transaction of type `done` before one of type `next`: `done`'s think
/// time, drawn from a negative exponential of its mean and cut at ten means (clause
/// 5.2.5.4), then `next`'s keying time.
pub fn pause(rng: &mut Rng, done: usize, next: usize) -> Duration {
    let think = (-(1.0 - rng.unit()).ln() * THINK_S[done]).min(10.0 * THINK_S[done]);
    Duration::from_secs_f64(think + KEYING_S[next])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_terminals_a_warehouse_cover_its_districts() {
        let homes: Vec<(i64, i64)> = (0..20).map(|id| home(id, 2)).collect();
        for w in 1..=2 {
            let mut d: Vec<i64> = homes.iter().filter(|h| h.0 == w).map(|h| h.1).collect();
            d.sort();
            assert_eq!(d, (1..=10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn think_times_average_their_mean_and_stop_at_ten_means() {
        let mut rng = Rng::new(3);
        let n = 20_000;
        let waits: Vec<f64> = (0..n).map(|_| pause(&mut rng, 3, 4).as_secs_f64() - 2.0).collect();
        let mean = waits.iter().sum::<f64>() / n as f64;
        assert!((4.8..5.2).contains(&mean), "{mean}");
        assert!(waits.iter().all(|&w| (0.0..=50.0).contains(&w)));
        assert!(pause(&mut Rng::new(1), 0, 0).as_secs_f64() >= 18.0, "a New-Order is keyed for 18 s");
    }
}
