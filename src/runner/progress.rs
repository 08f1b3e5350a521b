//! The live progress bar: one per cell repeat, drawn by the coordinator only; clients
//! just bump their counters.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Creates progress bars, or hidden ones under --quiet.
#[derive(Clone, Copy)]
pub struct Progress {
    /// Whether to draw anything at all (bars and per-repeat lines).
    pub enabled: bool,
}

impl Progress {
    /// A bar of `len` steps labelled with the cell.
    pub fn bar(&self, label: &str, len: u64) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(10));
        bar.set_style(
            ProgressStyle::with_template("{prefix:.bold} [{bar:24}] {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        bar
    }

    /// A line on stderr above the bars.
    pub fn line(&self, text: &str) {
        if self.enabled {
            eprintln!("{text}");
        }
    }
}
