//! The subcommands' bodies, one file each: glue between the CLI and the library.

mod charts;
mod clean;
mod compare;
mod engines;
mod merge;
mod report;
mod run;
mod suggest;

use crate::cli::Command;
use crate::error::Result;
use clean::clean;
use compare::compare_cmd;
use engines::engines;
use merge::merge_cmd;
use report::report_cmd;
use run::run;
use suggest::suggest;

/// Run a parsed command; the process exit code on success.
pub fn dispatch(cmd: Command) -> Result<i32> {
    match cmd {
        Command::Run(a) => run(*a),
        Command::Report(a) => report_cmd(a),
        Command::Compare(a) => compare_cmd(a),
        Command::Merge(a) => merge_cmd(a),
        Command::Engines(a) => engines(a),
        Command::Clean(a) => clean(a),
        Command::Exec(a) => crate::exec::run(*a),
        Command::Serve(a) => crate::serve::run(a),
        Command::Suggest(a) => suggest(a),
        Command::Completions(a) => crate::completions::run(a),
        Command::Man(a) => crate::man::run(a),
    }
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}
