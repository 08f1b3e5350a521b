//! `dbrace exec`'s flags.

use super::{AccessArgs, LocationArgs};
use crate::options::parse::{parse_positive_duration, parse_repeat, parse_warmup_runs};
use crate::report::Format;

/// `--max-repeat` of exec when not given: what a suite's runs get at most before the rounds
/// stop with comparisons unsettled.
pub const DEFAULT_MAX_RUNS: u32 = 20;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `dbrace exec`.
#[derive(Args, Debug)]
#[command(after_help = "Example: dbrace exec --profile disk,ram,ram-nosync --setup schema.sql -- pytest -q")]
pub struct ExecArgs {
    #[arg(long, short = 'e', value_name = "ENGINE", help = exposed_help("The engine whose throwaway servers the command runs against [default: postgres, or the --compose service's]"))]
    pub engine: Option<String>,
    /// Profiles, comma-separated, or NAME=PROFILE for a copy under another name; the first
    /// is the baseline (see `dbrace engines`)
    /// [default: disk,ram-nosync; with --url, disk alone]
    #[arg(long, short = 'p', value_delimiter = ',', value_name = "LIST")]
    pub profile: Vec<String>,
    /// An existing server to run the command against instead of throwaway ones, as it is
    /// configured: one profile (disk), a fresh database per run where the engine has
    /// databases (postgres, mysql, mongo); its scheme names the engine
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Timed runs per profile, in rounds of every profile in a random order [default: rounds
    /// until every profile's comparison with the baseline is settled, at most --max-repeat]
    #[arg(long, short = 'r', value_name = "N", allow_hyphen_values = true, value_parser = parse_repeat)]
    pub repeat: Option<u32>,
    /// Without --repeat: the most timed runs a profile gets before the rounds stop
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RUNS, allow_hyphen_values = true, value_parser = parse_repeat)]
    pub max_repeat: u32,
    /// Without --repeat: start no round that would end more than TIME after the first timed one
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_positive_duration)]
    pub budget: Option<Duration>,
    /// The confidence of the speed intervals and verdicts, e.g. 95% or 0.9 (docs/statistics.md)
    #[arg(long, value_name = "LEVEL", default_value = "95%", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: f64,
    /// Untimed runs per profile before the timed ones, so that compilers and caches warming
    /// up are not credited to the first profile
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_warmup_runs)]
    pub warmup: u32,
    /// Applied to every server once it is up (a schema, seed data): SQL, or for mongo a JSON
    /// array of commands
    #[arg(long, value_name = "FILE")]
    pub setup: Option<PathBuf>,
    /// A command run once per server before its runs, untimed (migrations, seeds); split into
    /// words as a shell would, run without one
    #[arg(long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// One server per profile for all its runs, instead of a fresh one per run
    #[arg(long)]
    pub reuse: bool,
    /// Where the servers answer.
    #[command(flatten)]
    pub access: AccessArgs,
    /// The user's Compose file.
    #[command(flatten)]
    pub compose: super::ComposeArgs,
    /// Stop a run that takes longer than this (its whole process group); it counts as failed
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_positive_duration)]
    pub timeout: Option<Duration>,
    /// Exit 0 even when runs fail (failed runs are still shown, and never averaged in)
    #[arg(long, short = 'i')]
    pub ignore_failure: bool,
    /// Pass the command's output through (to stderr) instead of keeping it for failures
    #[arg(long)]
    pub show_output: bool,
    /// Output format of the report on stdout: table (as hyperfine), markdown, csv (one row
    /// per run) or json (every run and the summary)
    #[arg(long, short = 'f', value_enum, default_value = "table", hide_possible_values = true)]
    pub format: Format,
    /// Also write every run and the summary as JSON to FILE
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// No per-run lines on stderr
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
    /// How managed servers run.
    #[command(flatten)]
    pub launcher: super::LauncherArgs,
    /// The command and its arguments, after --; run from its argv, never through a shell
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// An engine option's help: `what`, then the engines whose servers a user's tools get
/// (sqlite's is a database file in the profile's location).
pub fn exposed_help(what: &str) -> String {
    format!("{what}: {}", crate::engine::names(|e| e.facts().exposes))
}
