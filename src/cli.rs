//! Command-line definitions.

use crate::options::parse::{bounded, parse_clients, parse_records, parse_scale, parse_table_size, parse_tables};
use crate::report::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

pub use crate::stats::DEFAULT_REPEAT;

/// Race databases and their storage configurations side by side on your own machine.
#[derive(Parser, Debug)]
#[command(name = "dbrace", version = crate::version::VERSION, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Measure a matrix of cells (engine × profile × workload × clients) and print one table.
    Run(Box<RunArgs>),
    /// Re-render a results file written by `dbrace run --out`.
    Report(ReportArgs),
    /// Compare the cells of two results files: new/old tps with a significance test.
    Compare(CompareArgs),
    /// Show the engines usable here, the disk and ram locations and their fsync latency.
    Engines(EnginesArgs),
    /// Remove what killed runs left behind: servers, data directories, scratch files.
    Clean(CleanArgs),
    /// Time your own command (a test suite) against a throwaway server under each profile.
    Exec(Box<ExecArgs>),
    /// Start one tuned throwaway server, print how to reach it, remove it on Ctrl-C.
    Serve(ServeArgs),
    /// Print a shell's completion script: bash, zsh, fish, elvish or powershell.
    Completions(CompletionsArgs),
    /// Print dbrace's man page (roff), or write a page per subcommand with --dir.
    Man(ManArgs),
}

/// Where instances keep their data.
#[derive(Args, Debug, Clone)]
pub struct LocationArgs {
    /// Directory for `disk` profiles (must not be tmpfs) [default: ~/.cache/dbrace/data; as root /var/tmp/dbrace/data]
    #[arg(long, value_name = "DIR")]
    pub disk_dir: Option<PathBuf>,
    /// Directory for `ram` profiles (must be tmpfs) [default: /dev/shm/dbrace]
    #[arg(long, value_name = "DIR")]
    pub ram_dir: Option<PathBuf>,
    /// As root, run servers as this user [default: the package's user: postgres, mysql, redis]
    #[arg(long, value_name = "USER")]
    pub run_as: Option<String>,
    // Each engine's flag for the directory of its server binaries (--pg-bin, --mysql-bin).
    #[command(flatten)]
    pub bin_dirs: crate::engine::BinDirs,
}

/// `dbrace run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Engines, comma-separated: sqlite, memory, postgres, mysql, redis
    /// [default: sqlite, postgres (when installed), memory]
    #[arg(long, short = 'e', value_delimiter = ',', value_name = "LIST")]
    pub engine: Vec<String>,
    /// Profiles, comma-separated: disk, ram, async, nosync, ram-nosync, unlogged, wal-ram [default: disk,ram,async,nosync,unlogged]
    #[arg(long, short = 'p', value_delimiter = ',', value_name = "LIST")]
    pub profile: Vec<String>,
    /// Workloads, comma-separated: insert-commit, tpcb, select-only, simple-update, oltp-rw,
    /// oltp-ro, oltp-wo, ycsb-a … ycsb-f, counters (metrics tracks and reads: counters-write +
    /// counters-read), script:FILE[@WEIGHT] (pgbench's script format; all script: entries form
    /// one mix) [default: insert-commit]
    #[arg(long, short = 'w', value_delimiter = ',', value_name = "LIST")]
    pub workload: Vec<String>,
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
    /// Concurrent clients, a connection each; a list makes one cell per value
    #[arg(long, short = 'c', value_delimiter = ',', default_value = "1", value_name = "N[,N…]",
          allow_hyphen_values = true, value_parser = parse_clients)]
    pub clients: Vec<u32>,
    /// Measured time per repeat, e.g. 10s, 500ms, 2m (a bare number is seconds)
    #[arg(long, short = 'T', value_name = "TIME", default_value = "0.3s", allow_hyphen_values = true,
          value_parser = parse_positive_duration, conflicts_with = "transactions")]
    pub duration: Duration,
    /// Measured transactions per client, instead of a duration
    #[arg(long, short = 't', value_name = "N", allow_hyphen_values = true, value_parser = parse_count)]
    pub transactions: Option<u64>,
    /// Unmeasured warm-up before each measurement
    #[arg(long, value_name = "TIME", default_value = "0.1s", allow_hyphen_values = true, value_parser = parse_duration)]
    pub warmup: Duration,
    /// Open loop: schedule TPS transactions per second over the clients as Poisson arrivals
    /// (pgbench's -R); latency counts from each transaction's scheduled start
    #[arg(long, value_name = "TPS", allow_hyphen_values = true, value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// With --rate: count transactions finishing later than MS milliseconds as late, and skip
    /// those already that late when their turn comes (pgbench's -L)
    #[arg(long, value_name = "MS", allow_hyphen_values = true, value_parser = parse_latency_limit)]
    pub latency_limit: Option<Duration>,
    /// Repeats per cell, interleaved across cells (A B C A B C …) [default: 5]
    #[arg(long, short = 'r', value_name = "N", allow_hyphen_values = true, value_parser = parse_repeat)]
    pub repeat: Option<u32>,
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
    /// Keep each repeat's transactions, errors and latency histogram per TIME of its
    /// measured phase in the results file (pgbench's --aggregate-interval)
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_log_interval)]
    pub log_interval: Option<Duration>,
    /// The confidence every interval aims at, e.g. 95% or 0.9 (docs/statistics.md)
    #[arg(long, value_name = "LEVEL", default_value = "95%", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: f64,
    /// pgbench scale: 100,000 accounts per unit
    #[arg(long, short = 's', value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_scale)]
    pub scale: u32,
    /// sysbench's --tables: tables sbtest1..N of the oltp workloads
    #[arg(long, value_name = "N", default_value = "1", allow_hyphen_values = true, value_parser = parse_tables)]
    pub tables: u32,
    /// sysbench's --table-size: rows per table of the oltp workloads
    #[arg(long, value_name = "N", default_value = "10000", allow_hyphen_values = true, value_parser = parse_table_size)]
    pub table_size: u64,
    /// YCSB's recordcount: records loaded into usertable by the ycsb workloads
    #[arg(long, value_name = "N", default_value = "10000", allow_hyphen_values = true, value_parser = parse_records)]
    pub records: u64,
    /// YCSB's requestdistribution for the ycsb workloads: zipfian, uniform or latest
    /// [default: latest for ycsb-d, zipfian for the others, as YCSB's workload files]
    #[arg(long, value_name = "DIST")]
    pub distribution: Option<crate::options::ycsb::Distribution>,
    /// An existing server to run against instead of a throwaway one, e.g.
    /// postgres://USER:PASSWORD@HOST:PORT/DB, mysql://… or redis://[USER:PASSWORD@]HOST:PORT/DB
    /// (the password never appears in output)
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,
    /// One cell per value of a setting, the engine restarted for each: KEY=a,b,c
    /// (e.g. shared_buffers=128MB,1GB); ratios are against the first value
    #[arg(long, value_name = "KEY=a,b,c")]
    pub sweep: Option<String>,
    /// How clients reach a throwaway server: its unix socket, or TCP on 127.0.0.1
    /// (a free port, a random password)
    #[arg(long, value_enum, default_value = "socket")]
    pub transport: crate::engine::Transport,
    /// How PostgreSQL statements travel, as pgbench's -M
    #[arg(long, value_enum, default_value = "prepared")]
    pub protocol: crate::engine::postgres::client::Protocol,
    /// Raw engine setting, repeatable: KEY=VALUE, or ENGINE.KEY=VALUE for one engine
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Baseline for ratios: PROFILE or ENGINE:PROFILE [default: the first profile]
    #[arg(long, value_name = "PROFILE")]
    pub baseline: Option<String>,
    /// Output format of the summary on stdout
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Write the full results (every repeat, histograms, timelines, settings) to FILE.json
    /// [default: ~/.cache/dbrace/results/<time>.json]
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Seed for the clients' random generators [default: from the clock]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
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
}

/// `dbrace report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results file written by `dbrace run --out`
    pub file: PathBuf,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Baseline for ratios: PROFILE or ENGINE:PROFILE [default: the run's baseline]
    #[arg(long, value_name = "PROFILE")]
    pub baseline: Option<String>,
    /// The confidence every interval aims at, e.g. 95% or 0.9 [default: the run's]
    #[arg(long, value_name = "LEVEL", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: Option<f64>,
    /// HTML report and charts.
    #[command(flatten)]
    pub charts: ChartArgs,
}

/// The HTML report and single charts, for `run` and `report`.
#[derive(Args, Debug, Clone)]
pub struct ChartArgs {
    /// Also write a self-contained HTML report with charts to FILE (opens offline)
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write one chart (--chart) as an SVG or PNG file (by the extension)
    #[arg(long, value_name = "FILE.svg|png")]
    pub plot: Option<PathBuf>,
    /// The chart --plot writes
    #[arg(long, value_enum, default_value = "tps", requires = "plot")]
    pub chart: crate::report::charts::Kind,
}

/// `dbrace compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference results file (e.g. from the main branch)
    pub old: PathBuf,
    /// The results file to judge against it
    pub new: PathBuf,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    /// Exit 1 when a cell is significantly slower by more than this, e.g. 5%
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true, value_parser = crate::compare::parse_percent)]
    pub fail_if_slower: Option<f64>,
    /// The confidence of the ratio intervals and verdicts, e.g. 95% or 0.9 [default: the new file's]
    #[arg(long, value_name = "LEVEL", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: Option<f64>,
}

/// Where a throwaway server answers, for commands that hard-code their connection.
#[derive(Args, Debug, Clone)]
pub struct AccessArgs {
    /// TCP port on 127.0.0.1 [default: a free one]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub port: Option<u16>,
    /// Account the server answers to, created with every privilege [default: dbrace]
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,
    /// The account's password [default: random]; given to the command, kept in no results file
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Database, created if missing [default: postgres for postgres, dbrace for mysql, 0 for redis]
    #[arg(long, value_name = "NAME")]
    pub database: Option<String>,
}

/// `dbrace exec`.
#[derive(Args, Debug)]
#[command(after_help = "Example: dbrace exec --profile disk,ram,ram-nosync --setup schema.sql -- pytest -q")]
pub struct ExecArgs {
    /// The engine whose throwaway servers the command runs against: postgres, mysql, redis,
    /// or sqlite (a database file in the profile's location)
    #[arg(long, short = 'e', default_value = "postgres", value_name = "ENGINE")]
    pub engine: String,
    /// Profiles, comma-separated; the first is the baseline (see `dbrace engines`)
    #[arg(long, short = 'p', value_delimiter = ',', default_value = "disk,ram-nosync", value_name = "LIST")]
    pub profile: Vec<String>,
    /// Timed runs per profile, interleaved across profiles (A B C A B C …)
    #[arg(long, short = 'r', value_name = "N", default_value_t = DEFAULT_REPEAT, allow_hyphen_values = true, value_parser = parse_repeat)]
    pub repeat: u32,
    /// The confidence of the speed intervals and verdicts, e.g. 95% or 0.9 (docs/statistics.md)
    #[arg(long, value_name = "LEVEL", default_value = "95%", allow_hyphen_values = true, value_parser = crate::stats::parse_level)]
    pub confidence: f64,
    /// Untimed runs per profile before the timed ones, so that compilers and caches warming
    /// up are not credited to the first profile
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_warmup_runs)]
    pub warmup: u32,
    /// SQL applied to every server once it is up (a schema, seed data)
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
    /// The command and its arguments, after --; run from its argv, never through a shell
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// How `dbrace serve` prints the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ServeFormat {
    /// `export NAME='value'` lines for a shell.
    Env,
    /// One JSON object.
    Json,
}

/// `dbrace serve`.
#[derive(Args, Debug)]
#[command(after_help = "Example: dbrace serve postgres --setup schema.sql > db.env & sleep 1; . ./db.env; psql")]
pub struct ServeArgs {
    /// The engine: postgres, mysql, redis or sqlite
    #[arg(value_name = "ENGINE")]
    pub engine: String,
    /// The profile (see `dbrace engines`)
    #[arg(long, short = 'p', default_value = "ram-nosync", value_name = "PROFILE")]
    pub profile: String,
    /// SQL applied once the server is up (a schema, seed data)
    #[arg(long, value_name = "FILE")]
    pub setup: Option<PathBuf>,
    /// Where the server answers.
    #[command(flatten)]
    pub access: AccessArgs,
    /// How to print the connection on stdout
    #[arg(long, short = 'f', value_enum, default_value = "env")]
    pub format: ServeFormat,
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
}

/// `dbrace clean`.
#[derive(Args, Debug)]
pub struct CleanArgs {
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
}

/// `dbrace completions`.
#[derive(Args, Debug)]
#[command(after_help = "Install, e.g.: dbrace completions bash > ~/.local/share/bash-completion/completions/dbrace")]
pub struct CompletionsArgs {
    /// The shell to complete dbrace in
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `dbrace man`.
#[derive(Args, Debug)]
#[command(after_help = "Install, e.g.: dbrace man --dir ~/.local/share/man/man1")]
pub struct ManArgs {
    /// Write dbrace.1 and a page per subcommand (dbrace-run.1, …) into DIR instead of
    /// printing dbrace.1
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `dbrace engines`.
#[derive(Args, Debug)]
pub struct EnginesArgs {
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
}

/// Parse a duration: a number with an optional unit (ms, s, m, h); bare numbers are seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a duration; write e.g. 10s, 500ms or 2m"))?;
    let scale = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        u => return Err(format!("unknown unit '{u}' in '{s}'; use ms, s, m or h")),
    };
    if v < 0.0 {
        return Err(format!("'{s}' must not be negative"));
    }
    const WEEK: f64 = 7.0 * 24.0 * 3600.0;
    match v * scale {
        secs if secs <= WEEK => Ok(Duration::from_secs_f64(secs)),
        _ => Err(format!("'{s}' is longer than a week; give a shorter time")),
    }
}

fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() { Err(format!("'{s}' must be greater than zero")) } else { Ok(d) }
}

/// `--progress`: a duration (bare numbers are seconds) of at least 0.1 s, the
/// coordinator sampling every 20 ms.
fn parse_progress(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d >= Duration::from_millis(100) => Ok(d),
        _ => Err(format!("progress lines need an interval of at least 0.1 s (got {s}); e.g. --progress 1")),
    }
}

/// `--log-interval`: a duration greater than zero (bare numbers are seconds).
fn parse_log_interval(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d > Duration::ZERO => Ok(d),
        _ => Err(format!("the log interval must be greater than 0 s (got {s}); e.g. --log-interval 1")),
    }
}

/// A rate in transactions per second: positive and finite (fractions allowed, as pgbench).
fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1e9 => Ok(v),
        Ok(v) if v > 1e9 => Err(format!("rate must be at most 1e9 transactions per second (got {s})")),
        Ok(_) => Err(format!("rate must be greater than 0 transactions per second (got {s}); e.g. --rate 500")),
        Err(_) => Err(format!("rate must be a number of transactions per second (got '{s}'); e.g. --rate 500")),
    }
}

/// A latency limit: milliseconds when bare (as pgbench's -L), or a duration with a unit.
fn parse_latency_limit(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let d = match t.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 => return Ok(Duration::from_secs_f64(ms / 1e3)),
        Ok(_) => Duration::ZERO,
        Err(_) => parse_duration(t)?,
    };
    if d.is_zero() {
        Err(format!("latency limit must be greater than 0 ms (got {s}); e.g. --latency-limit 10"))
    } else {
        Ok(d)
    }
}

fn parse_count(s: &str) -> Result<u64, String> {
    bounded(s, "transactions", u64::MAX >> 1)
}

fn parse_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "repeat", 1000).map(|v| v as u32)
}

fn parse_min_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "min-repeat", 1000).map(|v| v as u32)
}

fn parse_max_repeat(s: &str) -> Result<u32, String> {
    bounded(s, "max-repeat", 1000).map(|v| v as u32)
}

/// A precision as a percentage of the median, e.g. 3% (a bare number is a percentage too).
fn parse_precision(s: &str) -> Result<f64, String> {
    crate::compare::parse_percent(s).map_err(|e| format!("{e}; e.g. --precision 3% for ±3% of the median"))
}

fn parse_warmup_runs(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if v <= 100 => Ok(v),
        _ => Err(format!("warmup must be a number of runs from 0 to 100 (got '{s}')")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3 parsecs").is_err());
        assert!(parse_positive_duration("0s").is_err());
        assert!(parse_duration("100000000000000000000").unwrap_err().contains("week"));
    }

    #[test]
    fn rates_and_limits() {
        assert_eq!(parse_rate("200").unwrap(), 200.0);
        assert_eq!(parse_rate("0.5").unwrap(), 0.5);
        assert!(parse_rate("0").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("-3").unwrap_err().contains("greater than 0"));
        assert!(parse_rate("NaN").is_err());
        assert!(parse_rate("inf").unwrap_err().contains("at most"));
        assert!(parse_rate("fast").unwrap_err().contains("a number"));
        assert_eq!(parse_latency_limit("10").unwrap(), Duration::from_millis(10));
        assert_eq!(parse_latency_limit("0.5").unwrap(), Duration::from_micros(500));
        assert_eq!(parse_latency_limit("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_latency_limit("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_latency_limit("0").unwrap_err().contains("greater than 0"));
        assert!(parse_latency_limit("-1").unwrap_err().contains("greater than 0"));
        assert!(parse_latency_limit("soon").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_clients("4").unwrap(), 4);
        assert!(parse_clients("0").unwrap_err().contains("at least 1"));
        assert!(parse_clients("-2").is_err());
        assert!(parse_clients("two").is_err());
        assert!(parse_clients("20000").unwrap_err().contains("at most 10000"));
        assert!(parse_repeat("5000").is_err());
        assert!(parse_min_repeat("0").unwrap_err().contains("min-repeat must be at least 1"));
        assert!(parse_max_repeat("1001").unwrap_err().contains("max-repeat must be at most 1000"));
    }

    #[test]
    fn precisions_are_percentages_of_the_median() {
        assert_eq!(parse_precision("3%").unwrap(), 0.03);
        assert_eq!(parse_precision("0.5").unwrap(), 0.005);
        for bad in ["0", "0%", "150%", "100", "-3%", "sharp", ""] {
            assert!(parse_precision(bad).unwrap_err().contains("--precision 3%"), "{bad}");
        }
    }
}
