//! `dbrace run`'s flags.

use super::{ChartArgs, LocationArgs};
use crate::options::parse::{
    parse_max_repeat, parse_min_repeat, parse_positive_duration, parse_progress, parse_repeat, parse_threads,
};
use crate::report::Format;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `dbrace run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The engines, profiles, workloads and clients asked for, and what varies them.
    #[command(flatten)]
    pub asked: crate::plan::Asked,
    /// A script variable, repeatable: NAME=VALUE (pgbench's -D)
    #[arg(long = "define", short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// Print each script command's average latency under the table (pgbench's -r)
    #[arg(long)]
    pub report_per_statement: bool,
    /// What script workloads load before they run: pgbench's tables at --scale, or none
    #[arg(long, value_enum, default_value = "pgbench", value_name = "DATA")]
    pub script_data: crate::workload::script::Data,
    /// SQL run once before a script workload starts, after --script-data (e.g. CREATE TABLE)
    #[arg(long, value_name = "FILE")]
    pub script_init: Option<PathBuf>,
    /// Worker threads that share the clients of a server engine's cell, each running its
    /// clients' connections on one event loop (pgbench's -j); SQLite and the memory store
    /// give every client a thread [default: one per CPU core, at most one per client]
    #[arg(long, short = 'j', value_name = "N", allow_hyphen_values = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
    /// How clients are driven in every cell.
    #[command(flatten)]
    pub driving: crate::options::driving::Driving,
    /// Repeats per cell, in rounds of every cell in a random order, instead of --budget
    #[arg(long, short = 'r', value_name = "N", allow_hyphen_values = true, value_parser = parse_repeat)]
    pub repeat: Option<u32>,
    /// Wall time the rounds may take once every server is up and loaded: rounds go on
    /// while some cell's comparison with its baseline is not settled, and a cell leaves
    /// them once its own are (docs/statistics.md) [default: 50s, unless --repeat or
    /// --precision is given]
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_positive_duration)]
    pub budget: Option<Duration>,
    /// Do not read the server's, its processes' and the disk's counters around each
    /// measured phase (the figures per transaction and the bound column then stay empty)
    #[arg(long)]
    pub no_counters: bool,
    /// Sample where each cell's server spends its CPU during the measured phase, with
    /// Linux perf: the top functions under the table, a flame graph per cell in the HTML
    /// report (docs/explain.md)
    #[arg(long, conflicts_with = "no_counters")]
    pub hotspots: bool,
    /// Instead of --repeat: repeat in interleaved rounds until every cell's interval of the
    /// median is within ±P% of it at 95% confidence (e.g. 3%), or --max-time is spent
    #[arg(long, value_name = "P%", allow_hyphen_values = true, value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// With --precision: start no round that would end after TIME [default: 10m]
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_positive_duration)]
    pub max_time: Option<Duration>,
    /// With --precision: repeats every cell gets before it may stop [default and floor: the
    /// fewest whose interval can hold the level, 6 at 95%]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_min_repeat)]
    pub min_repeat: Option<u32>,
    /// With --precision: the most repeats a cell gets [default: 50, or --min-repeat if larger]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_max_repeat)]
    pub max_repeat: Option<u32>,
    /// Print a line every TIME per running cell on stderr: tps, latency avg and p95 and
    /// errors over the last TIME (pgbench's -P); printed under --quiet too
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_progress)]
    pub progress: Option<Duration>,
    /// Each workload's own options: --scale, --tables, --table-size, --records, --distribution,
    /// --rows-per-commit.
    #[command(flatten)]
    pub workload_options: crate::workload::WorkloadOptions,
    /// How clients reach a throwaway server: its unix socket, or TCP on 127.0.0.1
    /// (a free port, a random password)
    #[arg(long, value_enum, default_value = "socket")]
    pub transport: crate::engine::Transport,
    /// How PostgreSQL statements travel, as pgbench's -M
    #[arg(long, value_enum, default_value = "prepared")]
    pub protocol: crate::options::protocol::Protocol,
    /// Output format of the summary on stdout
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Columns the terminal and Markdown tables add, comma-separated: what bounds each
    /// cell and its costs per transaction, from the counters (docs/explain.md)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "bound", value_name = "COLUMN,...")]
    pub columns: Vec<crate::report::Column>,
    /// Under each cell of the table (and in the CSV), a row per transaction type of a
    /// workload that mixes several (ycsb's operations, a script mix's scripts): its tps,
    /// p50/p95/p99, errors and retries (docs/workloads.md)
    #[arg(long)]
    pub by_type: bool,
    /// Write the full results (every repeat, histograms, timelines, settings) to FILE.json
    /// [default: ~/.cache/dbrace/results/<time>.json]
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// No progress bars or per-repeat lines on stderr (--progress lines still print)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Read options from a TOML file whose keys are these long options
    /// (e.g. engine = ["sqlite", "postgres"]); the command line wins
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// Print the cells this run would measure, its estimated time and the options as a
    /// --config file; start nothing
    #[arg(long)]
    pub dry_run: bool,
    /// The options given, as a --config file (filled in by main).
    #[arg(skip)]
    pub as_config: String,
    /// Options of the counters workloads.
    #[command(flatten)]
    pub counters: crate::options::counters::CountersArgs,
    /// HTML report and charts.
    #[command(flatten)]
    pub charts: ChartArgs,
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
    /// How managed servers run.
    #[command(flatten)]
    pub launcher: super::LauncherArgs,
    /// The user's Compose file.
    #[command(flatten)]
    pub compose: super::ComposeArgs,
}

/// A precision as a percentage of the median, e.g. 3% (a bare number is a percentage too).
fn parse_precision(s: &str) -> Result<f64, String> {
    crate::compare::parse_percent(s).map_err(|e| format!("{e}; e.g. --precision 3% for ±3% of the median"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precisions_are_percentages_of_the_median() {
        assert_eq!(parse_precision("3%").unwrap(), 0.03);
        assert_eq!(parse_precision("0.5").unwrap(), 0.005);
        for bad in ["0", "0%", "150%", "100", "-3%", "sharp", ""] {
            assert!(parse_precision(bad).unwrap_err().contains("--precision 3%"), "{bad}");
        }
    }
}
