//! What every workload may read (`WorkloadOptions`, each workload's own options composed,
//! as results files record them).

use crate::error::Result;
use crate::options::counters;
use crate::options::own::{OptionField, OwnOptions};
use crate::results::Results;
use serde::{Deserialize, Serialize};

/// `WorkloadOptions` from one list of the workloads with options of their own, a line
/// each (`field: path`, the type in the workload's folder): the field is flattened into
/// `dbrace run`'s flags (so `--config` knows them) and into the results file's `options`,
/// and `parts` lists it.
macro_rules! registered {
    ($($field:ident: $type:ty),* $(,)?) => {
        /// Options every workload may read: each registered workload's own, and two that
        /// the run sets.
        #[derive(clap::Args, Clone, Debug, Default, Serialize, Deserialize)]
        pub struct WorkloadOptions {
            $(
                #[allow(missing_docs)]
                #[command(flatten)]
                #[serde(flatten)]
                pub $field: $type,
            )*
            /// The counters workloads': their flags (`CountersArgs`) have a heading of
            /// their own, their clock follows the run's pace, and results keep them only
            /// when one ran.
            #[arg(skip)]
            #[serde(skip)]
            pub counters: counters::CountersOptions,
            /// Per-statement (per-operation) latency while measured
            /// (`--report-per-statement`, a flag of the script workloads that ycsb reads too).
            #[arg(skip)]
            #[serde(skip)]
            pub per_statement: bool,
        }

        impl WorkloadOptions {
            /// Each workload's own options, in the order reports list them.
            fn parts(&self) -> Vec<&dyn OwnOptions> {
                vec![$(&self.$field),*]
            }

            /// The same, to set one.
            fn parts_mut(&mut self) -> Vec<&mut dyn OwnOptions> {
                vec![$(&mut self.$field),*]
            }
        }
    };
}

registered! {
    tpcb: super::tpcb::options::TpcbOptions,
    oltp: super::oltp::options::OltpOptions,
    ycsb: super::ycsb::options::YcsbOptions,
    tpcc: super::tpcc::options::TpccOptions,
    insert_commit: super::insert_commit::options::InsertCommitOptions,
}

impl WorkloadOptions {
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
        if let Some((key, value)) = profile.rsplit_once('+').and_then(|(_, label)| label.split_once('=')) {
            // A sweep over a setting (`+shared_buffers=1GB`) is no option: `set` refuses
            // it and changes nothing, as it does a value it cannot take.
            cell.set(key, value).ok();
        }
        cell
    }

    /// These as a results file records them.
    pub fn recording(&self) -> serde_json::Map<String, serde_json::Value> {
        // Numbers and names: they always serialize, to an object.
        serde_json::to_value(self).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default()
    }

    /// Each workload's own options as reports list them (see `OwnOptions::fields`).
    pub fn fields(&self, ran: &dyn Fn(&str) -> bool) -> Vec<OptionField> {
        self.parts().iter().flat_map(|p| p.fields(ran)).collect()
    }
}

/// The options a results file recorded (`RunOptions::workload`), with each workload's
/// defaults where the file is older than its options.
pub fn recorded(file: &serde_json::Map<String, serde_json::Value>) -> Result<WorkloadOptions> {
    serde_json::from_value(serde_json::Value::Object(file.clone()))
        .map_err(|e| bad_input!("the results file's workload options are not dbrace's: {e}"))
}

/// Every option of a results file's run in words, in the order reports list them, with
/// the own options of the workloads it ran (`RunOptions::fields`).
pub fn fields_of(results: &Results) -> Vec<OptionField> {
    let ran = |prefix: &str| results.cells.iter().any(|c| c.workload.starts_with(prefix));
    let own = match recorded(&results.options.workload) {
        Ok(options) => options.fields(&ran),
        Err(e) => vec![OptionField { label: "workload options", value: e.to_string(), measures: true }],
    };
    results.options.fields(own)
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

    /// A run's options as a results file keeps them.
    fn run_options(json: &str) -> crate::results::RunOptions {
        serde_json::from_str(json).unwrap()
    }

    /// The options of a workload family are listed only when one of its workloads ran;
    /// seed and baseline are listed but do not change what a cell measures.
    #[test]
    fn option_fields_follow_the_workloads_run() {
        let o = run_options(
            r#"{"duration_s": 0.3, "transactions": null, "warmup_s": 0.1, "repeat": 5, "scale": 1, "seed": 7, "baseline": "ram", "rate": 500.0}"#,
        );
        let listed = |ran: &str| o.fields(recorded(&o.workload).unwrap().fields(&|p| p == ran));
        let labels = |f: &[OptionField]| f.iter().map(|f| f.label).collect::<Vec<_>>();
        let none = listed("");
        assert!(!labels(&none).iter().any(|l| l.starts_with("oltp") || l.starts_with("ycsb")), "{none:?}");
        let ycsb = listed("ycsb");
        let records = ycsb.iter().find(|f| f.label == "ycsb records").unwrap();
        assert_eq!((records.value.as_str(), records.measures), ("10000", true));
        let rate = ycsb.iter().find(|f| f.label == "rate").unwrap();
        assert_eq!(rate.value, "500 tps");
        assert!(ycsb.iter().filter(|f| ["seed", "baseline", "repeats"].contains(&f.label)).all(|f| !f.measures));
        assert_eq!(none[0], OptionField { label: "measured", value: "0.3 s per repeat".into(), measures: true });
        assert!(!labels(&none).contains(&"rows per commit"), "{none:?}");
        let inserts = listed("insert-commit");
        let rows = inserts.iter().find(|f| f.label == "rows per commit").unwrap();
        assert_eq!((rows.value.as_str(), rows.measures), ("1", true));
    }

    /// Each workload's own options sit at the top level of `options`, in their order,
    /// beside the driving options, read back with the defaults older files lack; `scale`
    /// is still required.
    #[test]
    fn workload_options_keep_their_keys() {
        let head = r#"{"duration_s":0.3,"transactions":null,"warmup_s":0.1,"repeat":5,"#;
        let old = run_options(&format!(r#"{head}"scale":2,"seed":7,"baseline":"ram"}}"#));
        let mut o = recorded(&old.workload).unwrap();
        assert_eq!((o.tpcb.scale, o.oltp.tables, o.insert_commit.rows_per_commit), (2, 1, 1));
        o.ycsb.distribution = Some(crate::workload::ycsb::options::Distribution::Latest);
        o.insert_commit.rows_per_commit = 10;
        let text =
            serde_json::to_string(&crate::results::RunOptions { workload: o.recording(), ..old.clone() }).unwrap();
        let driving = r#"{"duration_s":0.3,"transactions":null,"warmup_s":0.1,"confidence":0.95,"seed":7,"#;
        let own =
            r#""scale":2,"tables":1,"table_size":10000,"records":10000,"distribution":"latest","rows_per_commit":10"#;
        assert_eq!(text, format!(r#"{driving}"repeat":5,{own},"baseline":"ram"}}"#));
        assert_eq!(recorded(&run_options(&text).workload).unwrap().insert_commit.rows_per_commit, 10);
        let counters = Some(counters::CountersOptions::default());
        let with = serde_json::to_string(&crate::results::RunOptions { counters, ..run_options(&text) }).unwrap();
        assert!(with.contains(r#""rows_per_commit":10,"counters":{"keys":100,"#), "{with}");
        let e = recorded(&run_options(&format!(r#"{head}"seed":7,"baseline":"ram"}}"#)).workload).unwrap_err();
        assert!(e.to_string().contains("missing field `scale`"), "{e}");
    }
}
