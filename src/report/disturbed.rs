//! The line under the table that names the cells whose repeats the machine disturbed,
//! and how: the hypervisor's steal, or other processes' CPU.

use crate::noise::{Noise, OTHERS, STEAL};
use crate::results::Results;

/// `disturbed: postgres/disk/insert-commit/c1 (3 of 9 repeats: CPU steal up to 42%); …`,
/// or nothing when no measured repeat was.
pub fn line(results: &Results) -> Option<String> {
    let mut cells = Vec::new();
    for c in &results.cells {
        let measured: Vec<&Noise> =
            c.repeats.iter().filter(|r| r.status.measured()).filter_map(|r| r.noise.as_ref()).collect();
        let hit: Vec<&&Noise> = measured.iter().filter(|n| n.disturbed()).collect();
        if hit.is_empty() {
            continue;
        }
        let steal = hit.iter().map(|n| n.steal).fold(0.0, f64::max);
        let others = hit.iter().filter_map(|n| n.others_cpu).fold(0.0, f64::max);
        let mut why = Vec::new();
        if steal >= STEAL {
            why.push(format!("CPU steal up to {:.0}%", steal * 100.0));
        }
        if others >= OTHERS {
            why.push(format!("other processes up to {others:.1} CPU"));
        }
        cells.push(format!("{} ({} of {} repeats: {})", c.id, hit.len(), measured.len(), why.join(", ")));
    }
    (!cells.is_empty()).then(|| {
        format!(
            "disturbed: {}; the machine was busy elsewhere while they were measured, which slows a repeat and widens its cell's intervals (docs/statistics.md)",
            cells.join("; ")
        )
    })
}
