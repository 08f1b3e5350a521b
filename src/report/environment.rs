//! The report's environment section: the machine, the locations and their fsync latency,
//! versions, how the run was driven, and the settings in effect per engine and profile.

use super::charts::svg::esc;
use crate::results::Results;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

/// A two-column table of facts.
fn facts(rows: &[(&str, String)]) -> String {
    let mut s = String::from(r#"<table class="facts">"#);
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    s.push_str("</table>");
    s
}

/// The environment section's HTML.
pub fn render(results: &Results) -> String {
    let h = &results.host;
    let mut s = String::from(r#"<section id="environment"><h2>Environment</h2><div class="columns">"#);
    s.push_str("<div><h3>Machine</h3>");
    s.push_str(&facts(&[
        ("CPUs", format!("{} × {}", h.cpus, if h.cpu_model.is_empty() { "unknown model" } else { &h.cpu_model })),
        ("memory", gib(h.memory_bytes)),
        ("OS", h.os.clone()),
        ("kernel", h.kernel.clone()),
    ]));
    s.push_str("<h3>Versions</h3>");
    let mut versions = vec![("dbrace".to_string(), results.dbrace_version.clone())];
    let mut seen = BTreeSet::new();
    for c in &results.cells {
        for r in c.repeats.iter().filter(|r| !r.engine_version.is_empty()) {
            if seen.insert((c.engine.clone(), r.engine_version.clone())) {
                versions.push((c.engine.clone(), r.engine_version.clone()));
            }
        }
    }
    let v: Vec<(&str, String)> = versions.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    s.push_str(&facts(&v));
    s.push_str("</div><div><h3>Run</h3>");
    let mut run = vec![
        ("status", format!("{:?}", results.status).to_lowercase()),
        ("started", results.started_at.clone()),
        ("finished", results.finished_at.clone().unwrap_or_else(|| "—".into())),
    ];
    run.extend(crate::workload::options::fields_of(results).into_iter().map(|f| (f.label, f.value)));
    s.push_str(&facts(&run));
    s.push_str("</div></div>");

    s.push_str(r#"<h3>Locations</h3><table class="grid"><tr><th>location</th><th>path</th><th>filesystem</th><th class="num">free</th><th class="num">fsync median</th><th class="num">fsync max</th><th class="num">probes</th></tr>"#);
    for l in &results.locations {
        let (med, max, ops) = match &l.fsync {
            Some(f) => {
                (format!("{:.3} ms", f.median_us / 1000.0), format!("{:.3} ms", f.max_us / 1000.0), f.ops.to_string())
            }
            None => ("—".into(), "—".into(), "—".into()),
        };
        let _ = write!(
            s,
            r#"<tr><td>{}</td><td>{}</td><td>{}</td><td class="num">{}</td><td class="num">{med}</td><td class="num">{max}</td><td class="num">{ops}</td></tr>"#,
            l.kind,
            esc(&l.path.display().to_string()),
            esc(&l.fs_type),
            gib(l.free_bytes)
        );
    }
    s.push_str("</table><p class=\"lead\">fsync: 8 KiB write + fdatasync, timed at the start of the run — the price of one durable commit there.</p>");
    s.push_str(&setup(results));
    s.push_str(&settings(results));
    s.push_str("</section>");
    s
}

/// Seconds as milliseconds with the decimals that matter: SQLite connects in well under one.
fn ms(s: f64) -> String {
    let ms = s * 1e3;
    let decimals = if ms >= 100.0 {
        0
    } else if ms >= 10.0 {
        1
    } else {
        2
    };
    format!("{ms:.decimals$}")
}

/// "212 ms" for one value, "212 ms (190–251)" for several: the median and range.
fn seconds(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    match v.as_slice() {
        [] => "—".into(),
        [one] => format!("{} ms", ms(*one)),
        all => {
            let n = all.len();
            let median = if n % 2 == 1 { all[n / 2] } else { (all[n / 2 - 1] + all[n / 2]) / 2.0 };
            format!("{} ms ({}–{})", ms(median), ms(all[0]), ms(all[n - 1]))
        }
    }
}

/// Per cell, what its repeats spent before measuring: the server's start and the load
/// where a repeat launched its instance, the clients' connections in every repeat.
fn setup(results: &Results) -> String {
    let mut s = String::from(
        r#"<h3>Setup per cell</h3><table class="grid setup"><tr><th>cell</th><th class="num">repeats</th><th class="num">server start</th><th class="num">connect</th><th class="num">load</th></tr>"#,
    );
    for c in &results.cells {
        let reps: Vec<_> = c.repeats.iter().filter(|r| r.status.measured()).collect();
        let _ = write!(
            s,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&c.id),
            reps.len(),
            seconds(reps.iter().filter(|r| !r.kept).map(|r| r.start_s).collect()),
            seconds(reps.iter().filter_map(|r| r.connect_s).collect()),
            seconds(reps.iter().filter(|r| !r.kept).map(|r| r.load_s).collect()),
        );
    }
    s.push_str("</table><p class=\"lead\">Per measured repeat, median (range): server start is launch to settings read back and load is creating and loading the data set, over the repeats that launched an instance (the others ran on the one the cell kept); connect is opening the clients' connections, a server's eight at a time. None of it is in the measured time.</p>");
    s
}

/// Per engine, the settings read back from it under each profile; rows that differ
/// between profiles are marked, since they are what the comparison is about.
fn settings(results: &Results) -> String {
    let mut engines: Vec<&str> = Vec::new();
    for c in &results.cells {
        if !engines.contains(&c.engine.as_str()) {
            engines.push(&c.engine);
        }
    }
    let mut s = String::from("<h3>Settings in effect</h3>");
    for e in engines {
        // profile -> (profile summary, settings of its first repeat that has them)
        let mut columns: Vec<(&str, String, &BTreeMap<String, String>)> = Vec::new();
        for c in results.cells.iter().filter(|c| c.engine == e) {
            if columns.iter().any(|col| col.0 == c.profile.name) {
                continue;
            }
            if let Some(r) = c.repeats.iter().find(|r| !r.settings.is_empty()) {
                let p = &c.profile;
                let mut summary = format!("{}, {:?}", p.location, p.durability).to_lowercase();
                if p.unlogged {
                    summary.push_str(", unlogged");
                }
                columns.push((&c.profile.name, summary, &r.settings));
            }
        }
        if columns.is_empty() {
            let _ = write!(s, "<p class=\"lead\">{}: no repeat read its settings back.</p>", esc(e));
            continue;
        }
        let keys: BTreeSet<&String> = columns.iter().flat_map(|c| c.2.keys()).collect();
        let _ = write!(s, r#"<table class="grid settings"><tr><th>{}</th>"#, esc(e));
        for (name, summary, _) in &columns {
            let _ = write!(s, "<th>{}<br><span class=\"sub\">{}</span></th>", esc(name), esc(summary));
        }
        s.push_str("</tr>");
        for k in keys {
            let vals: Vec<&str> = columns.iter().map(|c| c.2.get(k).map_or("—", String::as_str)).collect();
            let differs = vals.iter().any(|v| *v != vals[0]);
            let _ = write!(s, "<tr{}><td>{}</td>", if differs { r#" class="differs""# } else { "" }, esc(k));
            for v in vals {
                let _ = write!(s, "<td>{}</td>", esc(v));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    s.push_str("<p class=\"lead\">Read back from each engine after the profile was applied; highlighted rows differ between profiles.</p>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_times_are_a_median_and_a_range() {
        assert_eq!(seconds(vec![]), "—");
        assert_eq!(seconds(vec![0.25]), "250 ms");
        assert_eq!(seconds(vec![0.3, 0.1, 0.2]), "200 ms (100–300)");
        assert_eq!(seconds(vec![0.004, 0.0005, 0.0125, 0.0011]), "2.55 ms (0.50–12.5)");
    }
}
