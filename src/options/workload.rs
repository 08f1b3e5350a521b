//! What every workload may read (`WorkloadOptions`, each workload's own options composed)
//! and what its verify gives back (`Verdict`): both are recorded in results files.

use super::own::{OptionField, OwnOptions};
use super::{counters, insert_commit, oltp, tpcb, tpcc, ycsb};
use serde::{Deserialize, Serialize};

/// Options every workload may read. A workload with options of its own registers them
/// here, one field and one name in `parts!`: the field is flattened into `dbrace run`'s
/// flags (so `--config` knows them) and into the results file's `options`.
#[derive(clap::Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkloadOptions {
    /// pgbench's tables (`--scale`).
    #[command(flatten)]
    #[serde(flatten)]
    pub tpcb: tpcb::TpcbOptions,
    /// The oltp workloads' (`--tables`, `--table-size`).
    #[command(flatten)]
    #[serde(flatten)]
    pub oltp: oltp::OltpOptions,
    /// The ycsb workloads' (`--records`, `--distribution`).
    #[command(flatten)]
    #[serde(flatten)]
    pub ycsb: ycsb::YcsbOptions,
    /// tpcc's (`--warehouses`, `--tpcc-mix`).
    #[command(flatten)]
    #[serde(flatten)]
    pub tpcc: tpcc::TpccOptions,
    /// insert-commit's (`--rows-per-commit`).
    #[command(flatten)]
    #[serde(flatten)]
    pub insert_commit: insert_commit::InsertCommitOptions,
    /// The counters workloads': their flags (`CountersArgs`) have a heading of their own,
    /// their clock follows the run's pace, and results keep them only when one ran.
    #[arg(skip)]
    #[serde(skip)]
    pub counters: counters::CountersOptions,
    /// Per-statement (per-operation) latency while measured (`--report-per-statement`,
    /// a flag of the script workloads that ycsb reads too).
    #[arg(skip)]
    #[serde(skip)]
    pub per_statement: bool,
}

/// `parts` and `parts_mut` from one list of `WorkloadOptions`' fields, so that a
/// workload's options are named once.
macro_rules! parts {
    ($($field:ident),*) => {
        /// Each workload's own options, in the order reports list them.
        fn parts(&self) -> Vec<&dyn OwnOptions> {
            vec![$(&self.$field),*]
        }

        /// The same, to set one.
        fn parts_mut(&mut self) -> Vec<&mut dyn OwnOptions> {
            vec![$(&mut self.$field),*]
        }
    };
}

impl WorkloadOptions {
    parts!(tpcb, oltp, ycsb, tpcc, insert_commit);

    /// The options `--sweep` can vary, by their command-line names.
    pub fn sweep_keys(&self) -> Vec<&'static str> {
        self.parts().iter().flat_map(|p| p.sweep_keys()).copied().collect()
    }

    /// Set one option from its command-line name and text, checked as the flag is.
    pub fn set(&mut self, key: &str, value: &str) -> std::result::Result<(), String> {
        let keys = self.sweep_keys().join(", ");
        match self.parts_mut().into_iter().find(|p| p.sweep_keys().contains(&key)) {
            Some(part) => part.set(key, value),
            None => Err(format!("unknown workload option '{key}'; options: {keys}")),
        }
    }

    /// The options of one cell of a results file: these, with the value its sweep gave
    /// it, which its profile's name ends with (`disk+rows-per-commit=10`).
    pub fn of_cell(&self, profile: &str) -> WorkloadOptions {
        let mut cell = self.clone();
        let label = profile.rsplit_once('+').and_then(|(_, label)| label.split_once('='));
        // A sweep over a setting (`+shared_buffers=1GB`) leaves the options as they are.
        match label {
            Some((key, value)) if cell.set(key, value).is_ok() => cell,
            _ => self.clone(),
        }
    }

    /// Each workload's own options as reports list them (see `OwnOptions::fields`).
    pub fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        self.parts().iter().flat_map(|p| p.fields(ran)).collect()
    }
}

/// The outcome of a workload's consistency check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the invariant holds.
    pub ok: bool,
    /// What was compared, in numbers.
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// The flags' defaults are the options' defaults, and a sweep sets what the flag sets.
    #[test]
    fn flags_defaults_and_sweeps_agree() {
        let cmd = WorkloadOptions::augment_args(clap::Command::new("run"));
        let given = |args: &[&str]| {
            let m = cmd.clone().try_get_matches_from(std::iter::once("run").chain(args.iter().copied())).unwrap();
            WorkloadOptions::from_arg_matches(&m).unwrap()
        };
        let flags = given(&[]);
        let default = WorkloadOptions::default();
        let all = |o: WorkloadOptions| (o.tpcb, o.oltp, o.ycsb, o.tpcc, o.insert_commit);
        assert_eq!(all(flags), all(default.clone()));
        assert_eq!(default.sweep_keys(), ["scale", "tables", "table-size", "records", "warehouses", "rows-per-commit"]);
        let values = [
            ("scale", "3"),
            ("tables", "2"),
            ("table-size", "500"),
            ("records", "70"),
            ("warehouses", "2"),
            ("rows-per-commit", "10"),
        ];
        for (key, value) in values {
            let mut swept = WorkloadOptions::default();
            swept.set(key, value).unwrap();
            let flag = given(&[&format!("--{key}={value}")]);
            assert_eq!(all(swept), all(flag), "{key}");
        }
        assert!(WorkloadOptions::default().set("tables", "0").unwrap_err().contains("at least 1"));
        assert!(WorkloadOptions::default().set("rows-per-commit", "0").unwrap_err().contains("at least 1"));
        let e = WorkloadOptions::default().set("distribution", "uniform").unwrap_err();
        assert_eq!(
            e,
            "unknown workload option 'distribution'; options: scale, tables, table-size, records, warehouses, rows-per-commit"
        );
    }

    /// A cell takes the value its sweep gave it, else the run's.
    #[test]
    fn a_cell_takes_its_swept_value_else_the_runs() {
        let mut run = WorkloadOptions::default();
        run.insert_commit.rows_per_commit = 7;
        let rows = |profile: &str| run.of_cell(profile).insert_commit.rows_per_commit;
        assert_eq!(rows("disk+rows-per-commit=10"), 10);
        assert_eq!(rows("ram+tls+rows-per-commit=100"), 100);
        assert_eq!((rows("disk"), rows("disk+tls"), rows("disk+shared_buffers=1GB")), (7, 7, 7));
        assert_eq!((rows("disk+rows-per-commit-x=10"), rows("disk+rows-per-commit=0")), (7, 7));
        assert_eq!(run.of_cell("disk+scale=10").tpcb.scale, 10);
    }
}
