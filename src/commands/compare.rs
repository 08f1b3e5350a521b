//! `dbrace compare`: two results files, their matching cells judged, the gate.

use crate::cli::CompareArgs;
use crate::compare::gate::Gate;
use crate::error::Result;
use crate::report;
use crate::results::Results;

pub(super) fn compare_cmd(a: CompareArgs) -> Result<i32> {
    let (mut old, mut new) = crate::compare::load(&a.old, &a.new)?;
    let names = (a.old.display().to_string(), a.new.display().to_string());
    let level = a.confidence.unwrap_or(new.options.driving.confidence);
    let report = crate::compare::compare(&old, &new, (&names.0, &names.1), a.fail_if_slower, level)?;
    print!("{}", report::compare::render(&report, a.format)?);
    // Before the gate, so a failing job still shows why on its page.
    report::step_summary::append(&report::compare::render(&report, report::Format::Markdown)?);
    gate_figures(&a, &mut old, &mut new)?;
    let Some(limit) = a.fail_if_slower else { return Ok(0) };
    use crate::compare::Verdict::{NotEnoughRepeats, NotMeasured};
    if report.cells.iter().all(|c| matches!(c.verdict, NotEnoughRepeats | NotMeasured)) {
        let need = crate::stats::repeats_for(level);
        return Err(bad_input!(
            "--fail-if-slower cannot judge any cell: too few measured repeats for a {} verdict (it needs {need} in each file); run both with --repeat {need} or more",
            crate::stats::percent(level)
        ));
    }
    let bad = report.regressions();
    if bad.is_empty() {
        return Ok(0);
    }
    let list: Vec<String> =
        bad.iter().map(|c| format!("{} ({:+.1}%)", c.id, c.ratio.map_or(0.0, |r| (r.value - 1.0) * 100.0))).collect();
    Err(failed!(
        "{} cell(s) significantly slower by more than {}%: {}",
        bad.len(),
        report::compare::percent(limit),
        list.join(", ")
    ))
}

/// `--fail-if-rises` and `--fail-if-falls`: each cell's summary made from its repeats (a
/// file from before summaries has none), then every gate checked on every matching cell.
fn gate_figures(a: &CompareArgs, old: &mut Results, new: &mut Results) -> Result<()> {
    let gates: Vec<&Gate> = a.fail_if_rises.iter().chain(&a.fail_if_falls).collect();
    if gates.is_empty() {
        return Ok(());
    }
    for r in [&mut *old, &mut *new] {
        let baseline = r.options.baseline.clone();
        report::summarize(r, &baseline)?;
    }
    let mut breaches = Vec::new();
    for g in gates {
        breaches.extend(g.breaches(old, new)?);
    }
    if breaches.is_empty() {
        return Ok(());
    }
    Err(failed!("{} figure(s) past their gate: {}", breaches.len(), breaches.join("; ")))
}
