//! Mach absolute time, as macOS's libproc counts a process's CPU: ticks whose length the
//! timebase gives (numer/denom nanoseconds; 1/1 on Intel, 125/3 on Apple Silicon's 24 MHz
//! clock). Kept apart from the OS so that Linux tests it.

/// A timebase: one tick is `numer / denom` nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timebase {
    /// Nanoseconds per `denom` ticks.
    pub numer: u32,
    /// Ticks per `numer` nanoseconds.
    pub denom: u32,
}

impl Timebase {
    /// `ticks` in seconds; a broken timebase (a zero) reads as nanoseconds.
    pub fn seconds(self, ticks: u64) -> f64 {
        let (n, d) = if self.numer == 0 || self.denom == 0 { (1, 1) } else { (self.numer, self.denom) };
        ticks as f64 * f64::from(n) / f64::from(d) / 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apple_silicon_ticks_are_125_over_3_nanoseconds() {
        // 24 million ticks of a 24 MHz clock: one second.
        assert!((Timebase { numer: 125, denom: 3 }.seconds(24_000_000) - 1.0).abs() < 1e-12);
        assert!((Timebase { numer: 1, denom: 1 }.seconds(1_500_000_000) - 1.5).abs() < 1e-12);
        assert!((Timebase { numer: 0, denom: 0 }.seconds(2_000_000_000) - 2.0).abs() < 1e-12);
    }
}
