//! A workload's headline figures: what the report shows under the table and the results
//! file keeps in each cell's summary beside tps (tpcc's tpmC, insert-commit's rows/s),
//! derived from what every cell measures, so that no report or results code knows a
//! workload by name.

use super::options::WorkloadOptions;

/// One headline figure of a workload.
#[derive(Debug)]
pub struct Figure {
    /// Its key in a cell's summary (and `compare --fail-if-…`): `tpmc`.
    pub key: &'static str,
    /// Its name after a number: `tpmC`.
    pub unit: &'static str,
    /// What it counts, in words for the line under the table.
    pub about: &'static str,
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
    /// The cell's tps times what each transaction holds of something, an option of the
    /// cell's: rows/s is tps × rows per commit. Shown once some cell holds more than one
    /// (at one it is the tps again).
    Each(Each),
}

/// What each transaction holds several of: insert-commit's rows.
#[derive(Clone, Copy, Debug)]
pub struct Each {
    /// How many, from the cell's options.
    pub count: fn(&WorkloadOptions) -> u32,
    /// Its key beside the figure, in the summary and the CSV: `rows_per_commit`.
    pub key: &'static str,
    /// What one is, and several: `row`, `rows`.
    pub names: (&'static str, &'static str),
    /// What holds them, after "per": `commit`.
    pub per: &'static str,
}

impl Each {
    /// "10 rows per commit".
    pub fn said(&self, n: u32) -> String {
        let name = if n == 1 { self.names.0 } else { self.names.1 };
        format!("{n} {name} per {}", self.per)
    }
}

impl Figure {
    /// Its CSV columns: median and interval, named after its key (`tpmc_median`).
    pub fn columns(&self) -> [String; 3] {
        ["median", "ci_lo", "ci_hi"].map(|end| format!("{}_{end}", self.key))
    }

    /// What its transactions hold several of, for a figure derived so.
    pub fn each(&self) -> Option<&Each> {
        match &self.from {
            Derived::Each(each) => Some(each),
            Derived::TypeRate { .. } => None,
        }
    }
}

/// The headline figures of the workload named `name` (none for one without, or unknown).
pub fn of(name: &str) -> &'static [Figure] {
    super::all().iter().find(|w| w.name() == name).map_or(&[], |w| w.figures())
}

/// What a transaction of the workload named `name` holds several of, if it says.
pub fn each_of(name: &str) -> Option<&'static Each> {
    of(name).iter().find_map(Figure::each)
}
