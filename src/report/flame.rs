//! The HTML report's flame graphs: per cell sampled with `--hotspots`, its server's call
//! stacks drawn by inferno (no script, so the page stays static), embedded inline.

use super::charts::svg::esc;
use super::row::Row;
use std::fmt::Write;

/// The flame graphs section; empty when no cell was sampled.
pub fn section(rows: &[Row]) -> String {
    let sampled: Vec<(&Row, &crate::hotspots::Hotspots)> =
        rows.iter().filter_map(|r| r.hotspots.as_ref().map(|h| (r, h))).collect();
    if sampled.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        r#"<section id="hotspots"><h2>Where the server's CPU went</h2><p class="lead">Per cell run with <code>--hotspots</code>: perf's samples of the server's processes over the measured phases, each stack from the outermost frame at the bottom to where the CPU was at the top; a frame's width is its share of the samples (the notes under the table mark the kernel's functions with _[k]). Under it, where the server names them, what its client sessions were waiting for when polled from a side connection, CPU meaning nothing.</p>"#,
    );
    for (r, h) in sampled {
        let _ = write!(s, "<h3>{}</h3>", esc(&r.id));
        if h.samples > 0 {
            let _ = write!(s, "<div class=\"flame\">{}</div>", graph(&r.id, h));
        }
        if let Some(waits) = super::notes::waits_text(h) {
            let _ = write!(s, "<p>Sessions waiting: {}</p>", esc(&waits));
        }
    }
    s.push_str("</section>");
    s
}

/// One cell's flame graph as inline SVG, or why it could not be drawn.
fn graph(id: &str, h: &crate::hotspots::Hotspots) -> String {
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = format!("{id}: {} samples", h.samples);
    opt.count_name = "samples".into();
    opt.no_javascript = true;
    opt.deterministic = true;
    let lines = h.folded_lines();
    let mut out = Vec::new();
    match inferno::flamegraph::from_lines(&mut opt, lines.iter().map(String::as_str), &mut out) {
        Ok(()) => inline(&String::from_utf8_lossy(&out)),
        Err(e) => format!("<p class=\"empty\">no flame graph: {}</p>", esc(&e.to_string())),
    }
}

/// An SVG document as an element of the page: its XML declaration, doctype, script
/// element and handler dropped (without its code, inferno still writes the script's
/// settings and calls it on load).
fn inline(svg: &str) -> String {
    let svg = svg.find("<svg").map_or("", |i| &svg[i..]).replacen(r#" onload="init(evt)""#, "", 1);
    match (svg.find("<script"), svg.find("</script>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &svg[..a], &svg[b + "</script>".len()..]),
        _ => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotspots::Hotspots;

    #[test]
    fn a_sampled_cell_gets_a_static_flame_graph() {
        let h = Hotspots {
            samples: 3,
            perf_cpu_s: None,
            stacks: vec![("postgres;PostgresMain;base_yyparse".into(), 2), ("postgres;do_fsync_[k]".into(), 1)],
            ..Hotspots::default()
        };
        let svg = graph("postgres/disk/insert-commit/c1", &h);
        assert!(svg.starts_with("<svg") && svg.contains("base_yyparse"), "{svg}");
        // inferno colours a kernel frame as one and drops its "_[k]".
        assert!(svg.contains("do_fsync (1 samples"), "{svg}");
        assert!(!svg.contains("<script") && !svg.contains("onload"), "the page stays without script: {svg}");
    }
}
