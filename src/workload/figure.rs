//! A workload's headline figures: what the report shows under the table and the results
//! file keeps in each cell's summary beside tps (tpcc's tpmC), derived from what every
//! cell measures, so that no report or results code knows a workload by name.

/// One headline figure of a workload.
#[derive(Debug)]
pub struct Figure {
    /// Its key in a cell's summary (and `compare --fail-if-…`): `tpmc`.
    pub key: &'static str,
    /// Its name after a number: `tpmC`.
    pub unit: &'static str,
    /// What it counts, in words for the line under the table.
    pub about: &'static str,
    /// Its CSV columns: median and interval.
    pub columns: [&'static str; 3],
    /// How it is derived from the cell's measurement.
    pub from: Derived,
}

/// How a figure is derived.
#[derive(Clone, Copy, Debug)]
pub enum Derived {
    /// One transaction type's rate times a factor: tpmC is 60 × New-Order's tps.
    TypeRate {
        /// The transaction type.
        name: &'static str,
        /// The factor (60: per minute).
        times: f64,
    },
}

/// The headline figures of the workload named `name` (none for one without, or unknown).
pub fn of(name: &str) -> &'static [Figure] {
    super::all().iter().find(|w| w.name() == name).map_or(&[], |w| w.figures())
}
