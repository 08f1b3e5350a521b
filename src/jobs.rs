//! Numbered jobs run side by side: a few threads, each with a state of its own (a
//! connection, or nothing), take the next job in turn, and none is begun after one
//! fails. Clients' connections open this way, and a data set's tables load this way.

use crate::error::Result;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Run `job(state, i)` for every `i` below `jobs`, a thread per state in `workers`; each
/// job's outcome in job order, `None` for those not begun because another had failed.
pub fn side_by_side<S: Send, T: Send>(
    workers: &mut [S],
    jobs: usize,
    job: impl Fn(&mut S, usize) -> Result<T> + Sync,
) -> Vec<Option<Result<T>>> {
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    let slots: Vec<Mutex<Option<Result<T>>>> = (0..jobs).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for state in workers.iter_mut().take(jobs) {
            let (next, failed, slots, job) = (&next, &failed, &slots, &job);
            scope.spawn(move || {
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = slots.get(i) else { break };
                    let r = job(state, i);
                    failed.fetch_or(r.is_err(), Ordering::Relaxed);
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
                }
            });
        }
    });
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(PoisonError::into_inner)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_and_none_begins_after_a_failure() {
        let done = side_by_side(&mut [0u32, 0], 5, |ran, i| {
            *ran += 1;
            Ok(i * 10)
        });
        assert_eq!(done.into_iter().map(|r| r.unwrap().unwrap()).collect::<Vec<_>>(), [0, 10, 20, 30, 40]);
        // One worker: job 1 fails, jobs 2 and 3 are never begun.
        let done =
            side_by_side(
                &mut [()],
                4,
                |_, i| if i == 1 { Err(crate::error::Error::Run(format!("job {i}"))) } else { Ok(i) },
            );
        assert!(matches!(done[0], Some(Ok(0))));
        assert_eq!(done[1].as_ref().unwrap().as_ref().unwrap_err().to_string(), "job 1");
        assert!(done[2].is_none() && done[3].is_none());
    }
}
