//! What a client does when a transaction cannot go through: how often it tries one again
//! after a serialization failure or deadlock (`--max-tries`, as pgbench 15), and how it
//! gets a new connection when its own is lost (`--reconnect`).

use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::error::Result;
use crate::workload::Transactor;
use std::time::{Duration, Instant};

/// How long a transaction may keep conflicting under the default `Tries::Patient`.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// How many times a transaction that conflicts is tried in all (`--max-tries`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tries {
    /// No `--max-tries`: tried again until it has conflicted for `PATIENCE`. Engines such
    /// as SQLite report a lock wait as a conflict (SQLITE_BUSY) where PostgreSQL waits,
    /// so giving up at once (pgbench's default of 1) would turn waits into failures.
    #[default]
    Patient,
    /// `--max-tries 0`: until it succeeds or the measured time ends.
    Unlimited,
    /// `--max-tries N`: N tries in all, the first included.
    AtMost(u32),
}

impl Tries {
    /// `--max-tries` as given (none: the default).
    pub fn from_flag(n: Option<u32>) -> Tries {
        match n {
            None => Tries::Patient,
            Some(0) => Tries::Unlimited,
            Some(n) => Tries::AtMost(n),
        }
    }

    /// Why a transaction that has conflicted on each of its `tries` so far, over
    /// `elapsed`, is tried no more; `None`: it is tried again.
    pub fn spent(self, tries: u32, elapsed: Duration) -> Option<String> {
        match self {
            Tries::Patient if elapsed > PATIENCE => {
                Some(format!("still conflicting after {} retries over {} s", tries - 1, PATIENCE.as_secs()))
            }
            Tries::AtMost(n) if tries >= n => {
                Some(format!("serialization failure or deadlock on each of {n} tries (--max-tries {n})"))
            }
            _ => None,
        }
    }
}

/// Opens a new connection for client `id` and builds its transactor on it, its generator
/// seeded with the given seed.
pub type Rebuild<'a> = &'a (dyn Fn(u32, u64) -> Result<Box<dyn Transactor>> + Sync);

/// One client's way back after its connection is lost (`--reconnect`).
pub struct Reconnect<'a> {
    rebuild: Rebuild<'a>,
    id: u32,
    seed: u64,
    times: u64,
}

/// How a reconnection ended.
pub enum Back {
    /// A new transactor on a new connection.
    Connected(Box<dyn Transactor>),
    /// The run is stopping (its end or a signal): the client leaves.
    Stopped,
    /// No connection within the connect timeout: why.
    GaveUp(String),
}

/// The first wait between attempts to connect again, doubled up to `LONGEST_WAIT`.
const FIRST_WAIT: Duration = Duration::from_millis(10);
const LONGEST_WAIT: Duration = Duration::from_millis(500);
/// The longest one sleep lasts before the client looks at the run again.
const SLICE: Duration = Duration::from_millis(20);

impl<'a> Reconnect<'a> {
    /// Client `id` (whose generator began from `seed`) reconnects with `rebuild`.
    pub fn new(rebuild: Rebuild<'a>, id: u32, seed: u64) -> Reconnect<'a> {
        Reconnect { rebuild, id, seed, times: 0 }
    }

    /// Try to connect again, waiting longer between attempts, until it works, the
    /// connect timeout has passed, or `stopped()` says the run ends; `wait(now)` is
    /// called between short sleeps (client 0 ticks the coordinator there).
    pub fn again(&mut self, stopped: impl Fn() -> bool, mut wait: impl FnMut(Instant)) -> Back {
        self.times += 1;
        // A fresh stream: the same seed would replay the values already drawn.
        let seed = self.seed ^ self.times.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let began = Instant::now();
        let mut pause = FIRST_WAIT;
        loop {
            if stopped() {
                return Back::Stopped;
            }
            let why = match (self.rebuild)(self.id, seed) {
                Ok(tx) => return Back::Connected(tx),
                Err(e) => e.to_string(),
            };
            let now = Instant::now();
            if now - began >= CONNECT_TIMEOUT {
                return Back::GaveUp(format!("no new connection within {} s: {why}", CONNECT_TIMEOUT.as_secs()));
            }
            let until = (now + pause).min(began + CONNECT_TIMEOUT);
            pause = (pause * 2).min(LONGEST_WAIT);
            let mut t = now;
            while t < until {
                wait(t);
                if stopped() {
                    return Back::Stopped;
                }
                crate::fiber::sleep(until.saturating_duration_since(t).min(SLICE));
                t = Instant::now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_count_the_first_and_zero_is_unlimited() {
        let s = Duration::from_millis;
        assert_eq!(Tries::from_flag(None), Tries::Patient);
        assert_eq!(Tries::from_flag(Some(0)), Tries::Unlimited);
        let one = Tries::from_flag(Some(1));
        assert!(one.spent(1, s(0)).unwrap().contains("--max-tries 1"));
        let ten = Tries::from_flag(Some(10));
        assert!(ten.spent(9, s(50_000)).is_none());
        assert!(ten.spent(10, s(0)).is_some());
        assert!(Tries::Unlimited.spent(1_000_000, s(3_600_000)).is_none());
        assert!(Tries::Patient.spent(1_000, s(9_000)).is_none());
        assert!(Tries::Patient.spent(2, s(10_001)).unwrap().contains("1 retries"));
    }
}
