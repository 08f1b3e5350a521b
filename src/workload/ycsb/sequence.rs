//! The record numbers inserts take, shared by a repeat's clients: YCSB's
//! `transactioninsertkeysequence`, an acknowledged counter. A client claims the next
//! number, inserts it, and acknowledges it; readers see only the records below the
//! first number not yet acknowledged, so a read never chases an insert still in flight.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Claimed numbers ahead of the first unacknowledged one that can be tracked. A client
/// holds at most one number at a time (and gives it back when it leaves), so the numbers
/// in flight are at most the clients (10,000).
const WINDOW: u64 = 1 << 16;

/// The insert sequence of one repeat of a cell.
pub struct Sequence {
    /// The next number to claim.
    next: AtomicU64,
    /// Every number below is a record (or was given up): what reads may choose from.
    limit: AtomicU64,
    /// Inserts that succeeded (the verify's count).
    inserted: AtomicU64,
    /// Numbers acknowledged at or above `limit`, by number modulo WINDOW.
    done: Mutex<Vec<bool>>,
}

impl Sequence {
    /// A sequence after loading `records` records (0..records).
    pub fn new(records: u64) -> Sequence {
        let s = Sequence {
            next: AtomicU64::new(0),
            limit: AtomicU64::new(0),
            inserted: AtomicU64::new(0),
            done: Mutex::new(Vec::new()),
        };
        s.reset(records);
        s
    }

    /// Start over after loading `records` records (0..records).
    fn reset(&self, records: u64) {
        let mut done = self.lock();
        done.clear();
        done.resize(WINDOW as usize, false);
        self.next.store(records, Ordering::SeqCst);
        self.limit.store(records, Ordering::SeqCst);
        self.inserted.store(0, Ordering::SeqCst);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<bool>> {
        self.done.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new record number to insert.
    pub fn claim(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Acknowledge a claimed number: inserted, or given up (a failed insert leaves a hole).
    pub fn acknowledge(&self, n: u64, inserted: bool) {
        if inserted {
            self.inserted.fetch_add(1, Ordering::Relaxed);
        }
        let mut done = self.lock();
        let mut limit = self.limit.load(Ordering::Relaxed);
        if n < limit || n - limit >= WINDOW {
            // Not a claimed number still open (acknowledged twice), or beyond what the
            // clients can hold in flight: nothing to track.
            return;
        }
        done[(n % WINDOW) as usize] = true;
        while done[(limit % WINDOW) as usize] {
            done[(limit % WINDOW) as usize] = false;
            limit += 1;
        }
        self.limit.store(limit, Ordering::Release);
    }

    /// Records 0..limit exist: the numbers reads and scans may choose.
    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Acquire)
    }

    /// Inserts acknowledged as done since the reset.
    pub fn inserted(&self) -> u64 {
        self.inserted.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_waits_for_the_first_insert_in_flight() {
        let s = Sequence::new(10);
        let (a, b, c) = (s.claim(), s.claim(), s.claim());
        assert_eq!((a, b, c), (10, 11, 12));
        s.acknowledge(b, true);
        s.acknowledge(c, true);
        assert_eq!(s.limit(), 10, "record 10 is still in flight");
        s.acknowledge(a, false);
        assert_eq!(s.limit(), 13);
        assert_eq!(s.inserted(), 2, "the given-up number is no record");
        s.reset(5);
        assert_eq!((s.limit(), s.inserted(), s.claim()), (5, 0, 5));
    }

    #[test]
    fn many_clients_acknowledge_every_number() {
        let s = Sequence::new(0);
        std::thread::scope(|sc| {
            for _ in 0..4 {
                sc.spawn(|| {
                    for _ in 0..10_000 {
                        let n = s.claim();
                        s.acknowledge(n, true);
                    }
                });
            }
        });
        assert_eq!((s.limit(), s.inserted()), (40_000, 40_000));
    }
}
