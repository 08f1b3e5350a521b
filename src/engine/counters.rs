//! A server's own counters, read through the engine's own client on a connection of
//! their own, by the names the server gives them; each engine says which of them make
//! the figures every engine shares (src/engine/NAME/counters.rs).

use crate::counters::Figures;
use std::collections::BTreeMap;
use std::time::Duration;

/// A server's counters at one moment, by its names.
pub type Reading = BTreeMap<String, f64>;

/// How long one reading may wait for the server: one too busy to answer in this time
/// leaves the repeat's counters unread, never the repeat.
pub const PATIENCE: Duration = Duration::from_secs(5);

/// Reads one instance's counters.
pub trait CounterReader: Send {
    /// The server's counters now; why not, in words.
    fn read(&mut self) -> Result<Reading, String>;
    /// The server's counters once what it owes for connections just closed is in: a
    /// server that hands its counters on late waits for them here.
    fn read_settled(&mut self) -> Result<Reading, String> {
        self.read()
    }
    /// The shared figures in the difference of two readings.
    fn figures(&self, delta: &Reading) -> Figures;
    /// What the last reading lacked that figures are made of, in words: a server that
    /// answers with fewer counters than its kind has (a wire-compatible stand-in, another
    /// storage engine); its figures stay empty.
    fn lacking(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A counter's value, where its text is a number.
pub fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The sum of those of `names` that `delta` holds; None when it holds none of them.
pub fn sum(delta: &Reading, names: &[&str]) -> Option<f64> {
    let found: Vec<f64> = names.iter().filter_map(|n| delta.get(*n).copied()).collect();
    (!found.is_empty()).then(|| found.iter().sum())
}
