//! Counters that clients bump side by side without sharing a cache line.

use std::sync::atomic::AtomicU64;

/// A counter on its own cache line, so clients bumping theirs do not contend.
#[repr(align(64))]
#[derive(Default)]
pub struct Padded(pub AtomicU64);
