//! `dbrace compare` output in each format: a terminal table, Markdown (for pull-request
//! comments), CSV and JSON.

use super::{Format, num, sig3, usual_level};
use crate::compare::{Comparison, Report, Verdict};
use crate::error::Result;
use crate::stats;
use comfy_table::{CellAlignment, Table, presets::UTF8_FULL_CONDENSED};

/// The headers, the ratio's naming the level its intervals share.
fn headers(r: &Report) -> [String; 7] {
    let ratio = match ratio_level(r) {
        Some(l) => format!("new/old ({} interval)", stats::percent(l)),
        None => "new/old".into(),
    };
    ["cell", "old tps", "new tps", &ratio, "change", "p", "verdict"].map(String::from)
}

/// The level most cells' ratio intervals have; a cell at another level says its own.
fn ratio_level(r: &Report) -> Option<f64> {
    usual_level(r.cells.iter().map(|c| c.ratio.and_then(|x| x.confidence)))
}

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

fn cells(c: &Comparison, limit: Option<f64>, usual: Option<f64>) -> Vec<String> {
    let tps = |e: Option<stats::Estimate>| e.map_or("-".into(), |e| format!("{} (n={})", num(e.median), e.n));
    let ratio = c.ratio.map_or("-".into(), |r| match (r.lo, r.hi) {
        (Some(lo), Some(hi)) => {
            let own = match (r.confidence, usual) {
                (Some(l), Some(u)) if (l - u).abs() < 1e-9 => String::new(),
                (Some(l), _) => format!(", {}", stats::percent(l)),
                _ => String::new(),
            };
            format!("{} ({}–{}{own})", sig3(r.value), sig3(lo), sig3(hi))
        }
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
    let aim = stats::percent(r.confidence);
    let mut n = vec![format!(
        "tps: median over the measured repeats (n); new/old: ratio of the medians with its distribution-free interval ({aim} asked, each at the level its repeats allow); p: two-sided Mann–Whitney U test over the repeats' tps; the verdict is the interval's: faster or slower when it excludes 1 (the U test rejecting at p ≤ {}).",
        ((1.0 - r.confidence) * 1e4).round() / 1e4
    )];
    if r.cells.iter().any(|c| c.verdict == Verdict::NotEnoughRepeats) {
        n.push(format!(
            "not enough repeats: so few cannot give a {aim} interval of a ratio, whatever the numbers (over 3 and 3 repeats the widest is 90%, the U test's smallest p 0.10); run both sides with --repeat {} or more.",
            stats::repeats_for(r.confidence)
        ));
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
    let headers = headers(r);
    t.load_style(UTF8_FULL_CONDENSED).set_header(&headers);
    let usual = ratio_level(r);
    for c in &r.cells {
        t.add_row(cells(c, r.fail_if_slower, usual));
    }
    for i in 1..headers.len() - 1 {
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
    let headers = headers(r);
    out.push_str(&line(&headers));
    let align: Vec<String> =
        (0..headers.len()).map(|i| if i == 0 || i == headers.len() - 1 { "---" } else { "---:" }.into()).collect();
    out.push_str(&line(&align));
    let usual = ratio_level(r);
    for c in &r.cells {
        let mut v = cells(c, r.fail_if_slower, usual);
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
        "ratio_confidence",
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
            opt(c.ratio.and_then(|x| x.confidence)),
            opt(c.p),
            verdict,
            c.regression.to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| failed!("cannot write CSV: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
