//! Where the time goes: each cell's time split by what it was spent on, the bound
//! model's shares (report/bound.rs, docs/explain.md) as one stacked bar per cell, each
//! segment with its percent and what bounds the cell named at the bar's end. Colour
//! names a resource here, not a profile.

use super::axis::{self, Scale};
use super::svg::{Anchor, INK, MUTED, Svg, esc, n};
use super::{Group, Panel, WIDTH, cell_rows, font, swatches};
use crate::report::Row;
use crate::report::bound::{Bound, Shares};

const ROW: f64 = 26.0;
const BAR: f64 = 18.0;

/// The resources in the order their segments stack, as the model names them, each with
/// its colour and the colour of a label on it.
const PARTS: [(&str, &str, &str); 6] = [
    ("storage", "#c0392b", "#fff"),
    ("server CPU", "#2e5e8c", "#fff"),
    ("client", "#86afd6", INK),
    ("disk reads", "#9a6a2f", "#fff"),
    ("CPU wait", "#8e6bb0", "#fff"),
    ("round trips", "#cfd5db", INK),
];

/// The shares in the order of `PARTS`.
pub fn parts(s: &Shares) -> [f64; 6] {
    [s.storage, s.server_cpu, s.client, s.disk_reads, s.cpu_wait, s.round_trips]
}

/// The panel of one group, if any of its cells has a bound (counters and a throughput).
pub fn draw(g: &Group, rows: &[Row]) -> Option<Panel> {
    let rows: Vec<&Row> = g.cells.iter().map(|(i, _)| &rows[*i]).collect();
    if rows.iter().all(|r| r.bound.is_none()) {
        return None;
    }
    let mut svg = Svg::new(WIDTH, 0.0);
    svg.title(&format!("Where the time goes — {}", g.name()), "share of each cell's time, from its counters");
    let keys: Vec<(&str, &str)> = PARTS.iter().map(|p| (p.0, p.1)).collect();
    let top = swatches(&mut svg, &keys, 16.0, 50.0, WIDTH - 20.0) + 8.0;
    let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.engine.as_str(), r.profile.as_str())).collect();
    let end_w = PARTS.iter().map(|p| font::text_width(&format!("→ {}", p.0), 12.0) * 1.04).fold(0.0, f64::max);
    let right = WIDTH - 16.0 - end_w - 10.0;
    let layout = cell_rows(&mut svg, &names, top, ROW, right);
    svg.height = layout.bottom + 50.0;
    let scale = Scale { lo: 0.0, hi: 1.0, from: layout.left, to: right, log: false };
    let ticks: Vec<(f64, String)> =
        [0.0, 0.25, 0.5, 0.75, 1.0].iter().map(|t| (*t, format!("{}%", t * 100.0))).collect();
    let caption = "share of the cell's time · at one client the shares split each transaction's time";
    axis::bottom(&mut svg, &scale, &ticks, layout.bottom, top - 4.0, caption);

    let mut marks = 0;
    for (r, mid) in rows.iter().zip(&layout.mids) {
        match &r.bound {
            Some(b) => {
                bar(&mut svg, &scale, *mid, r, b);
                marks += 1;
            }
            None => {
                let why = if r.tps.is_none() { "not measured" } else { "no counters" };
                svg.text((layout.left + 4.0, mid + 4.0), why, 12.0, Anchor::Start, MUTED, r#" class="missing""#);
            }
        }
    }
    let label = format!("Where the time goes, {}", g.name());
    Some(Panel { height: svg.height, svg: svg.finish("bound", marks, &label) })
}

/// One cell's stacked bar at `mid`: a segment per share with its percent where it fits,
/// the bound named after it.
fn bar(svg: &mut Svg, scale: &Scale, mid: f64, r: &Row, b: &Bound) {
    let cell = format!("{} {}", r.engine, r.profile);
    let mut at = 0.0;
    for ((name, fill, ink), share) in PARTS.iter().zip(parts(&b.shares)) {
        if share <= 0.0 {
            continue;
        }
        let (x0, x1) = (scale.px(at), scale.px(at + share));
        at += share;
        let pct = percent(share);
        let mut tip = format!("{cell}: {name} {pct} of its time");
        if *name == "storage" {
            tip.push_str(&format!(" (fsync wait {})", b.fsync_from));
        }
        if *name == b.bound {
            tip.push_str(", the largest: it bounds the cell");
        }
        svg.raw(&format!(
            r#"<rect class="segment" data-part="{}" x="{}" y="{}" width="{}" height="{}" fill="{fill}"><title>{}</title></rect>"#,
            esc(name),
            n(x0),
            n(mid - BAR / 2.0),
            n((x1 - x0).max(0.5)),
            n(BAR),
            esc(&tip)
        ));
        if font::text_width(&pct, 11.0) + 6.0 <= x1 - x0 {
            svg.text(((x0 + x1) / 2.0, mid + 4.0), &pct, 11.0, Anchor::Middle, ink, r#" pointer-events="none""#);
        }
    }
    let end = scale.px(at.max(1.0)) + 8.0;
    let why = format!("{cell} is bound by {}: its largest share of the time", b.bound);
    svg.raw(&format!(
        r#"<text class="bound" x="{}" y="{}" font-size="12" font-weight="bold" fill="{INK}">{}<title>{}</title></text>"#,
        n(end),
        n(mid + 4.0),
        esc(&format!("→ {}", b.bound)),
        esc(&why)
    ));
}

/// A share as a whole percent, "<1%" for a sliver.
fn percent(share: f64) -> String {
    match share * 100.0 {
        p if p > 0.0 && p < 1.0 => "<1%".into(),
        p => format!("{p:.0}%"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_are_the_models_names_in_its_order() {
        let s =
            Shares { storage: 0.1, server_cpu: 0.2, client: 0.3, disk_reads: 0.05, cpu_wait: 0.15, round_trips: 0.2 };
        assert_eq!(parts(&s), [0.1, 0.2, 0.3, 0.05, 0.15, 0.2]);
        // Every name the model can give a bound is a segment of the bar.
        let b = crate::report::bound::bound(&crate::report::bound::Inputs {
            cost: &crate::report::cost::Cost { fsyncs: Some(1.0), fsync_us: Some(1000.0), ..Default::default() },
            tps: 500.0,
            clients: 1,
            cores: 2,
            probe_us: None,
            probe_cpu_us: None,
            embedded: false,
        })
        .unwrap();
        assert!(PARTS.iter().any(|p| p.0 == b.bound), "{}", b.bound);
        assert_eq!((percent(0.004), percent(0.5), percent(0.0)), ("<1%".into(), "50%".into(), "0%".into()));
    }
}
