//! `dbrace report`: a results file rendered again.

use super::charts::{check_charts, write_charts};
use crate::cli::ReportArgs;
use crate::error::Result;
use crate::report;
use crate::results::Results;
use crate::runner::progress::Progress;

pub(super) fn report_cmd(a: ReportArgs) -> Result<i32> {
    check_charts(&a.charts)?;
    let mut results = Results::load(&a.file)?;
    // Re-rendered at another level, the file's repeats answer as if the run had asked it.
    if let Some(level) = a.confidence {
        results.options.driving.confidence = level;
    }
    let baseline = a.baseline.unwrap_or_else(|| results.options.baseline.clone());
    let shown = report::Shown { columns: &a.columns, by_type: a.by_type };
    print!("{}", report::render(&results, &baseline, a.format, shown)?);
    write_charts(&results, &baseline, &a.charts, &a.file, Progress { enabled: true })?;
    Ok(0)
}
