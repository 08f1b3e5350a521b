//! `dbrace compare` output in each format: a terminal table, Markdown (for pull-request
//! comments), CSV and JSON.

use super::{Format, num, sig3};
use crate::compare::{ALPHA, Comparison, Report, Verdict};
use crate::error::Result;
use comfy_table::{CellAlignment, Table, presets::UTF8_FULL_CONDENSED};

const HEADERS: [&str; 7] = ["cell", "old tps", "new tps", "new/old (95% interval)", "change", "p", "verdict"];

/// Render a comparison in `format`.
pub fn render(report: &Report, format: Format) -> Result<String> {
    Ok(match format {
        Format::Table => table(report),
        Format::Markdown => markdown(report),
        Format::Csv => csv(report)?,
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report).map_err(|e| failed!("cannot write JSON: {e}"))?;
            s.push('\n');
            s
        }
    })
}

fn cells(c: &Comparison, limit: Option<f64>) -> Vec<String> {
    let tps = |e: Option<crate::stats::Estimate>| e.map_or("-".into(), |e| format!("{} (n={})", num(e.median), e.n));
    let ratio = c.ratio.map_or("-".into(), |r| match (r.lo, r.hi) {
        (Some(lo), Some(hi)) => format!("{} ({}–{})", sig3(r.value), sig3(lo), sig3(hi)),
        _ => sig3(r.value),
    });
    let change = c.ratio.map_or("-".into(), |r| format!("{:+.1}%", (r.value - 1.0) * 100.0));
    let p = c.p.map_or("-".into(), |p| if p < 0.001 { "<0.001".into() } else { format!("{p:.3}") });
    vec![c.id.clone(), tps(c.old), tps(c.new), ratio, change, p, verdict(c, limit)]
}

fn verdict(c: &Comparison, limit: Option<f64>) -> String {
    match c.verdict {
        Verdict::Slower if c.regression => {
            format!("SLOWER, beyond the {}% limit", percent(limit.unwrap_or(0.0)))
        }
        Verdict::Slower => "slower".into(),
        Verdict::Faster => "faster".into(),
        Verdict::NoSignificantDifference => "no significant difference".into(),
        Verdict::NotEnoughRepeats => {
            let (o, n) = (c.old.map_or(0, |e| e.n), c.new.map_or(0, |e| e.n));
            format!("not enough repeats ({o} and {n})")
        }
        Verdict::NotMeasured if c.old.is_none() => "not measured in old".into(),
        Verdict::NotMeasured => "not measured in new".into(),
    }
}

/// A fraction as a percentage without noise digits: 0.05 -> 5, 0.125 -> 12.5.
pub fn percent(fraction: f64) -> String {
    ((fraction * 1e4).round() / 100.0).to_string()
}

/// Lines under the table.
fn notes(r: &Report) -> Vec<String> {
    let mut n = vec![format!(
        "tps: median over the measured repeats (n); new/old: ratio of the medians with its 95% bootstrap interval; p: two-sided Mann–Whitney U test over the repeats' tps; a verdict needs p < {ALPHA}."
    )];
    if r.cells.iter().any(|c| c.verdict == Verdict::NotEnoughRepeats) {
        n.push("not enough repeats: the U test cannot reach p < 0.05 with so few (over 3 and 3 repeats its smallest p is 0.10, whatever the numbers); run both sides with --repeat 5 (4 and 4 is the least that can).".into());
    }
    if let Some(limit) = r.fail_if_slower {
        let bad = r.regressions();
        n.push(if bad.is_empty() {
            format!("--fail-if-slower {}%: no cell is significantly slower by more than that.", percent(limit))
        } else {
            format!(
                "--fail-if-slower {}%: {} cell(s) significantly slower by more than that.",
                percent(limit),
                bad.len()
            )
        });
    }
    if !r.only_old.is_empty() {
        n.push(format!("only in {}: {}", r.old, r.only_old.join(", ")));
    }
    if !r.only_new.is_empty() {
        n.push(format!("only in {}: {}", r.new, r.only_new.join(", ")));
    }
    n.extend(r.notes.iter().cloned());
    n
}

fn table(r: &Report) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED).set_header(HEADERS);
    for c in &r.cells {
        t.add_row(cells(c, r.fail_if_slower));
    }
    for i in 1..HEADERS.len() - 1 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!("old: {}\nnew: {}\n{t}\n", r.old, r.new);
    for n in notes(r) {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

fn markdown(r: &Report) -> String {
    let line =
        |v: &[String]| format!("| {} |\n", v.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
    let mut out = format!("**dbrace compare** `{}` → `{}`\n\n", r.old, r.new);
    out.push_str(&line(&HEADERS.map(String::from)));
    let align: Vec<String> =
        (0..HEADERS.len()).map(|i| if i == 0 || i == HEADERS.len() - 1 { "---" } else { "---:" }.into()).collect();
    out.push_str(&line(&align));
    for c in &r.cells {
        let mut v = cells(c, r.fail_if_slower);
        if c.regression {
            let last = v.len() - 1;
            v[last] = format!("**{}**", v[last]);
        }
        out.push_str(&line(&v));
    }
    out.push('\n');
    for n in notes(r) {
        out.push_str(&format!("- {n}\n"));
    }
    out
}

fn csv(r: &Report) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| failed!("cannot write CSV: {e}");
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    w.write_record([
        "id",
        "old_tps_median",
        "old_repeats",
        "new_tps_median",
        "new_repeats",
        "ratio",
        "ratio_ci_lo",
        "ratio_ci_hi",
        "p",
        "verdict",
        "regression",
    ])
    .map_err(err)?;
    for c in &r.cells {
        let verdict =
            serde_json::to_value(c.verdict).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        w.write_record([
            c.id.clone(),
            opt(c.old.map(|e| e.median)),
            c.old.map_or(0, |e| e.n).to_string(),
            opt(c.new.map(|e| e.median)),
            c.new.map_or(0, |e| e.n).to_string(),
            opt(c.ratio.map(|x| x.value)),
            opt(c.ratio.and_then(|x| x.lo)),
            opt(c.ratio.and_then(|x| x.hi)),
            opt(c.p),
            verdict,
            c.regression.to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
