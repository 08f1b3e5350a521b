//! Latency by transaction type: for each group whose workload mixes types, one latency
//! percentile panel per type, drawn as the latency chart draws a group, from that type's
//! histograms of every cell's measured repeats, the group's panels on one scale.

use super::{Group, Panel, Style, latency};
use crate::error::Result;
use crate::results::{CellResult, TypeTally, add_types};
use hdrhistogram::Histogram;

/// The panels of one group, a type each in the order first seen; none when its
/// workload runs one type.
pub fn draw(g: &Group, style: &Style) -> Result<Vec<Panel>> {
    let mut per_cell: Vec<(&CellResult, Vec<(String, TypeTally)>)> = Vec::new();
    for (_, c) in &g.cells {
        let measured = c.repeats.iter().filter(|r| r.status.measured()).map(|r| r.types.as_slice());
        per_cell.push((*c, add_types(measured)?));
    }
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in per_cell.iter().flat_map(|(_, types)| types) {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    // One scale for the group's types, so a slow type looks slow beside a fast one.
    let span = latency::span(per_cell.iter().flat_map(|(_, types)| types.iter().map(|(_, t)| &t.hist)));
    Ok(names
        .iter()
        .map(|name| {
            let hists: Vec<(&CellResult, Histogram<u64>)> = per_cell
                .iter()
                .filter_map(|(c, types)| types.iter().find(|(n, _)| n == name).map(|(_, t)| (*c, t.hist.clone())))
                .collect();
            latency::panel(&hists, style, (&format!("{} · {name}", g.name()), "types"), &span)
        })
        .collect())
}
