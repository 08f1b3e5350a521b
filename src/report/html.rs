//! The HTML report: one self-contained page — font, styles and charts (inline SVG) in the
//! file, no script, nothing fetched — so it opens offline and can be mailed or archived.

use super::charts::{self, Kind, font, svg::esc};
use super::{
    Column, DURABILITY, Layout, Row, by_type_note, columns, durability_line, environment, headers, interval_words,
    lines, notes, rows, usual_levels,
};
use crate::error::Result;
use crate::results::{Results, RunStatus};
use std::fmt::Write as _;

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;background:#f6f8fa;color:#1f2328;font:14px/1.45 dbrace-sans,'DejaVu Sans',sans-serif}
main{max-width:1010px;margin:0 auto;padding:20px 24px 40px}
header h1{font-size:24px;margin:8px 0 4px}
header .meta{color:#59636e;font-size:13px}
code{background:#eff2f5;border-radius:4px;padding:2px 6px;font:inherit;font-size:13px;overflow-wrap:anywhere}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px 20px;margin:16px 0}
h2{font-size:18px;margin:0 0 6px}
h3{font-size:14px;margin:16px 0 6px;color:#424a53}
.lead{color:#59636e;font-size:12.5px;margin:4px 0 10px}
.empty{color:#59636e;font-style:italic}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:12px;font-weight:bold;color:#fff}
.complete{background:#1a7f37}.interrupted{background:#bf8700}.failed{background:#b42318}.running{background:#59636e}
table{border-collapse:collapse;font-size:12.5px}
.grid{width:100%}
.grid th,.grid td{padding:4px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
.grid th{background:#f6f8fa;font-weight:bold}
.num{text-align:right!important;white-space:nowrap}
.facts th{text-align:left;color:#59636e;font-weight:normal;padding:2px 14px 2px 0;vertical-align:top}
.facts td{padding:2px 0}
.columns{display:grid;grid-template-columns:1fr 1fr;gap:0 32px}
.scroll{overflow-x:auto}
.summary td{white-space:nowrap}
.summary td:last-child{white-space:normal;min-width:10em}
.settings{margin-bottom:14px}
.settings .sub{font-weight:normal;color:#59636e;font-size:11.5px}
.settings tr.differs td{background:#fff8c5}
svg.chart{display:block;width:100%;height:auto;margin:10px 0 4px}
div.flame{overflow-x:auto}
ul.notes{padding-left:18px;margin:4px 0}
ul.notes li{margin:3px 0}
footer{color:#59636e;font-size:12px;text-align:center}
"#;

/// The command line, with the binary as plain `dbrace`.
fn command(results: &Results) -> String {
    let mut args = results.command.clone();
    if let Some(first) = args.first_mut().filter(|a| a.ends_with("/dbrace")) {
        *first = "dbrace".into();
    }
    args.join(" ")
}

/// What each chart shows, under its heading; `interval` names the whiskers' usual level.
fn heading(kind: Kind, interval: &str) -> (&'static str, String) {
    let (name, lead): (&str, String) = match kind {
        Kind::Tps => (
            "Throughput",
            format!("Transactions per second of each cell: the bar is the median over its measured repeats, the whisker its {interval} (order statistics), each dot one repeat. Cells are grouped by engine; colour names the profile."),
        ),
        Kind::Latency => (
            "Latency percentiles",
            "Latency of every measured transaction (all repeats merged), from the median to the 99.9th percentile. Colour names the profile, the dash the engine.".into(),
        ),
        Kind::Timeline => (
            "Throughput over time",
            "Transactions committed in each second of each repeat (in each slice, when the run kept --log-interval slices, with their p95 and p99 latency below): drift, stalls and the spread between repeats show here.".into(),
        ),
        Kind::Bound => (
            "Where the time goes",
            "Each cell's time split by what it was spent on, from the counters read around its measured repeats: a resource busy D seconds per transaction at tps transactions a second is busy D × tps / P of the time, where P is how many of it work at once (one log flush; as many CPUs as the clients and the cores allow); what is left is round trips (the network or socket, waking up, locks). At one client the shares split each transaction's time; at more, each says how near its resource is to full. The largest share of the cell's own work bounds it and is named at the bar's end (CPU wait, time others' work held the CPUs, has its segment but is never the bound); a segment too narrow for its percent says it in its tooltip. docs/explain.md explains the model and its limits.".into(),
        ),
        Kind::Costs => (
            "Costs per transaction",
            "What one transaction cost, over each cell's measured repeats: the server's fsyncs, the flushes of the data location's disk, the bytes of its log and those written to the disk (the disk's are anyone's on it), pages read into its cache, and the server's and the clients' CPU. Each figure has its own scale from zero; a dash is a counter the cell does not have. Colour names the profile.".into(),
        ),
        Kind::Counters => (
            "Counters over time",
            "The counters read at the end of each --log-interval slice, per transaction committed in that slice, one line per repeat: syncs, bytes logged (or written to the disk) and the server's CPU. Shaded slices are those in which the server ran a checkpoint: a dip in throughput over time that lines up with one is the checkpoint's. Colour names the profile, the dash the engine.".into(),
        ),
        Kind::Types => (
            "Latency by transaction type",
            "For each workload that mixes transaction types, one chart per type: the latency of that type's measured transactions (all repeats merged), from the median to the 99.9th percentile, per cell; a workload's charts share one scale, so its slow types stand out. Colour names the profile, the dash the engine.".into(),
        ),
        Kind::Sweep => (
            "Sweep",
            format!("One line per engine and profile across the values of the swept setting, at the median tps with its {interval}; when the run read counters, below it the cost per transaction and the share of the time that vary most across the values."),
        ),
    };
    (name, lead)
}

/// The whole page for `results`, ratios against `baseline`; `source` names the results file.
pub fn render(results: &Results, baseline: &str, source: &str) -> Result<String> {
    let rows = rows(results, baseline)?;
    let mut s = String::with_capacity(256 * 1024);
    head(&mut s, results, source);
    // The page shows every type a cell has, as `--by-type` does.
    let extra = columns::chosen(&[Column::All], &rows);
    let layout = Layout { extra: &extra, by_type: rows.iter().any(|r| !r.types.is_empty()) };
    let usual = usual_levels(&rows);
    summary(&mut s, &rows, layout, usual);
    for kind in Kind::ALL {
        chart_section(&mut s, results, &rows, kind, &interval_words(usual.0))?;
    }
    s.push_str(&super::flame::section(&rows));
    s.push_str(&environment::render(results));
    notes_section(&mut s, results, &rows, baseline, layout);
    let _ = writeln!(
        s,
        "<footer>Written by dbrace {} from {}. Self-contained: no script, nothing loaded from the network.</footer></main></body></html>",
        env!("CARGO_PKG_VERSION"),
        esc(source)
    );
    Ok(s)
}

/// The document's head, the page's header and the run's status in words.
fn head(s: &mut String, results: &Results, source: &str) {
    let title = format!("dbrace report — {}", results.started_at);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{}{CSS}</style></head><body><main>",
        esc(&title),
        font::face_css()
    );
    let status = format!("{:?}", results.status).to_lowercase();
    let _ = write!(
        s,
        r#"<header><h1>dbrace report</h1><div class="meta"><span class="badge {status}">{status}</span> · started {} · {} cells · dbrace {} · {}</div><p><code>{}</code></p></header>"#,
        esc(&results.started_at),
        results.cells.len(),
        esc(&results.dbrace_version),
        esc(source),
        esc(&command(results))
    );
    match results.status {
        RunStatus::Interrupted => s.push_str(r#"<p class="lead">The run was interrupted: only the repeats it finished are shown.</p>"#),
        RunStatus::Running => s.push_str(r#"<p class="lead">The file says the run was still going: it was read mid-run, or the run was killed. Only finished repeats are shown.</p>"#),
        RunStatus::Failed => s.push_str(r#"<p class="lead">The run stopped on an error: see the notes at the end.</p>"#),
        RunStatus::Complete => {}
    }
}

/// The summary table, as the terminal's, and its durability legend.
fn summary(s: &mut String, rows: &[Row], layout: Layout, usual: (Option<f64>, Option<f64>)) {
    s.push_str(r#"<section id="summary"><h2>Summary</h2><div class="scroll"><table class="grid summary"><tr>"#);
    for (i, h) in headers(layout).iter().enumerate() {
        let _ = write!(s, "<th{}>{}</th>", if i >= 3 { r#" class="num""# } else { "" }, esc(h));
    }
    s.push_str("</tr>");
    for line in rows.iter().flat_map(|r| lines(r, usual, layout)) {
        s.push_str("<tr>");
        for (i, c) in line.iter().enumerate() {
            let _ = write!(s, "<td{}>{}</td>", if i >= 3 { r#" class="num""# } else { "" }, esc(c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></div>");
    // Its legend: what each engine and profile's acknowledged commits survive.
    if let Some(line) = durability_line(rows) {
        let _ = write!(s, r#"<p class="lead" id="durability">{}</p>"#, esc(&line));
    }
    s.push_str("</section>");
}

/// The section of one kind of chart; none for a kind without data in this run.
fn chart_section(s: &mut String, results: &Results, rows: &[Row], kind: Kind, interval: &str) -> Result<()> {
    let (name, lead) = heading(kind, interval);
    let panels = charts::panels(results, rows, kind)?;
    if panels.is_empty() && kind.only_with_data() {
        // Without counters (or types) the page is as it was.
        return Ok(());
    }
    let _ = write!(s, r#"<section id="{}"><h2>{name}</h2><p class="lead">{lead}</p>"#, kind.name());
    if panels.is_empty() {
        let why = match kind {
            Kind::Sweep => {
                "This run has no sweep: <code>--sweep KEY=a,b,c</code> measures a profile once per value and draws the result here."
            }
            _ => "No cells in this results file.",
        };
        let _ = write!(s, r#"<p class="empty">{why}</p>"#);
    }
    for p in panels {
        s.push_str(&p.svg);
    }
    s.push_str("</section>");
    Ok(())
}

/// The notes under the terminal's table, less the host line (the environment section
/// here) and the durability line (the summary's legend).
fn notes_section(s: &mut String, results: &Results, rows: &[Row], baseline: &str, layout: Layout) {
    s.push_str(r#"<section id="notes"><h2>Notes</h2><ul class="notes">"#);
    let by_type = layout.by_type.then(|| by_type_note(rows));
    let shown =
        notes(results, rows, baseline).into_iter().filter(|n| !n.starts_with("host: ") && !n.starts_with(DURABILITY));
    for n in shown.chain(by_type) {
        let _ = write!(s, "<li>{}</li>", esc(&n));
    }
    s.push_str("</ul></section>");
}
