//! The clients' wait events sampled from a side connection (`--hotspots`): a thread of
//! its own, off the clients' threads, asks the server every few milliseconds what each
//! client session waits for, counting only the answers within the measured phase.

use crate::engine::waits::WaitReader;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// Per wait event, the sessions seen in it; and how many polls were made.
type Tally = (HashMap<String, u64>, u64);

/// A sampling thread and the flags it reads.
pub struct WaitSampler {
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<Tally, String>>,
}

impl WaitSampler {
    /// Sampling through `reader`, idle until the measured phase begins.
    pub fn start(mut reader: Box<dyn WaitReader>) -> WaitSampler {
        let measuring = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (measuring.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut tally: Tally = (HashMap::new(), 0);
            while !s.load(Ordering::Acquire) {
                if m.load(Ordering::Acquire) {
                    reader.read()?.into_iter().for_each(|w| *tally.0.entry(w).or_default() += 1);
                    tally.1 += 1;
                }
                std::thread::sleep(crate::hotspots::WAIT_EVERY);
            }
            Ok(tally)
        });
        WaitSampler { measuring, stop, thread }
    }

    /// The measured phase begins (`true`) or ends.
    pub fn measuring(&self, on: bool) {
        self.measuring.store(on, Ordering::Release);
    }

    /// What was counted: per wait event its sessions, the heaviest first, and the polls.
    pub fn finish(self) -> Result<(Vec<(String, u64)>, u64), String> {
        self.stop.store(true, Ordering::Release);
        let (by, polls) = self.thread.join().map_err(|_| "the sampling thread failed".to_string())??;
        Ok((crate::hotspots::folded::heaviest(by.into_iter().collect()), polls))
    }
}
