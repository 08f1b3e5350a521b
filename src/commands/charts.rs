//! The --html report and the --plot chart, for `run` and `report`.

use crate::cli::ChartArgs;
use crate::error::Result;
use crate::report;
use crate::results::Results;
use crate::runner::progress::Progress;
use crate::startup::check_writable;
use std::path::Path;

/// Refuse unusable --html and --plot files before measuring anything.
pub(super) fn check_charts(a: &ChartArgs) -> Result<()> {
    if let Some(html) = &a.html {
        check_writable(html, "--html", "report.html")?;
    }
    if let Some(plot) = &a.plot {
        match plot.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => {}
            Some("png") if cfg!(feature = "png") => {}
            Some("png") => {
                return Err(bad_input!(
                    "--plot {}: this dbrace was built without PNG; write {} or build with `cargo build --release --features png`",
                    plot.display(),
                    plot.with_extension("svg").display(),
                ));
            }
            _ => return Err(bad_input!("--plot {}: give a file name ending in .svg or .png", plot.display())),
        }
        check_writable(plot, "--plot", "chart.svg")?;
    }
    Ok(())
}

/// Write the --html report and the --plot chart of `results`, if asked for.
pub(super) fn write_charts(
    results: &Results,
    baseline: &str,
    a: &ChartArgs,
    source: &Path,
    progress: Progress,
) -> Result<()> {
    let write = |path: &Path, bytes: Vec<u8>| {
        std::fs::write(path, bytes).map_err(|e| failed!("cannot write {}: {e}", path.display()))?;
        progress.line(&format!("wrote {}", path.display()));
        Ok::<(), crate::error::Error>(())
    };
    let name = source.file_name().map_or_else(|| source.display().to_string(), |n| n.to_string_lossy().into_owned());
    if let Some(html) = &a.html {
        write(html, report::html::render(results, baseline, &name)?.into_bytes())?;
    }
    if let Some(plot) = &a.plot {
        let rows = report::rows(results, baseline)?;
        let svg = report::charts::standalone(results, &rows, a.chart)?;
        #[cfg(feature = "png")]
        if plot.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
            return write(plot, report::charts::png::render(&svg)?);
        }
        write(plot, svg.into_bytes())?;
    }
    Ok(())
}
