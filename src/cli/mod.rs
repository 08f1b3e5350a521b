//! Command-line definitions: the subcommands, one file each for those with many flags,
//! and the argument groups several of them share.

mod compare;
mod exec;
mod merge;
mod report;
mod run;
mod serve;
mod suggest;

pub use compare::CompareArgs;
pub use exec::ExecArgs;
pub use merge::MergeArgs;
pub use report::ReportArgs;
pub use run::RunArgs;
pub use serve::{ServeArgs, ServeFormat};
pub use suggest::SuggestArgs;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

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
    /// Add up the results files of a run's shards (`run --shard I/N`) into one, on stdout.
    Merge(MergeArgs),
    /// Show the engines usable here, the disk and ram locations and their fsync latency.
    Engines(EnginesArgs),
    /// Remove what killed runs left behind: servers, data directories, scratch files.
    Clean(CleanArgs),
    /// Time your own command (a test suite) against a throwaway server under each profile.
    Exec(Box<ExecArgs>),
    /// Start one tuned throwaway server, print how to reach it, remove it on Ctrl-C.
    Serve(ServeArgs),
    /// Write the configuration that gives a profile in your own tools: Compose, GitHub
    /// Actions, Testcontainers, docker run, the server's configuration file.
    Suggest(SuggestArgs),
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
    #[arg(long, value_name = "USER", help = run_as_help())]
    pub run_as: Option<String>,
    // Each engine's flag for the directory of its server binaries (--pg-bin, --mysql-bin).
    #[command(flatten)]
    pub bin_dirs: crate::engine::BinDirs,
}

/// How managed servers run, for the commands that start them (run, exec, serve).
#[derive(Args, Debug, Clone, Default)]
pub struct LauncherArgs {
    /// How managed servers run: the machine's binaries, or containers (docs/docker.md)
    #[arg(long, value_enum, default_value = "native")]
    pub launcher: crate::launcher::Kind,
    /// The image an engine's containers run under --launcher docker, repeatable [default: postgres=postgres:17]
    #[arg(long = "image", value_name = "ENGINE=IMAGE", value_parser = parse_image)]
    pub images: Vec<(String, String)>,
    /// How a container's data directory begins: a copy of a template the image's init made once per image, or the image's init every time
    #[arg(long, value_enum, default_value = "template")]
    pub docker_init: crate::launcher::container::Init,
    /// Where a container's disk data lives: a bind-mounted directory of the disk location, or a named volume [default: bind; volume where Docker runs in a VM (Docker Desktop)]
    #[arg(long, value_enum, default_value_t = crate::launcher::container::Disk::here(), hide_default_value = true)]
    pub docker_disk: crate::launcher::container::Disk,
    /// How a container's TCP port reaches 127.0.0.1: the host's network, or published on 127.0.0.1 only [default: host; publish where Docker runs in a VM (Docker Desktop)]
    #[arg(long, value_enum, default_value_t = crate::launcher::container::TcpPath::here(), hide_default_value = true)]
    pub docker_network: crate::launcher::container::TcpPath,
    /// Every profile's throwaway server runs with TLS, as if its name ended in +tls: a
    /// certificate from a CA made for the instance, which dbrace's clients verify
    #[arg(long)]
    pub tls: bool,
}

/// A database service of the user's Compose file as the server (docs/compose.md).
#[derive(Args, Debug, Clone, Default)]
pub struct ComposeArgs {
    /// Run the database service of this Compose file, with its image, port, account and
    /// command, as an `as-written` cell and under each profile; repeatable, merged in
    /// order as `docker compose -f` merges them
    #[arg(long = "compose", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// With --compose: the service to run, when the file has several databases
    #[arg(long, value_name = "NAME")]
    pub service: Option<String>,
}

impl ComposeArgs {
    /// The service these flags name (of `engine` when given), if they name a file.
    pub fn chosen(&self, engine: Option<&str>) -> crate::error::Result<Option<crate::compose::Chosen>> {
        if self.files.is_empty() {
            return match &self.service {
                Some(s) => {
                    Err(bad_input!("--service {s} names a service of a Compose file; give the file with --compose"))
                }
                None => Ok(None),
            };
        }
        crate::compose::read(&self.files, self.service.as_deref(), engine).map(Some)
    }
}

/// `ENGINE=IMAGE`, for an engine dbrace knows.
fn parse_image(s: &str) -> Result<(String, String), String> {
    let (engine, image) = s.split_once('=').ok_or("expected ENGINE=IMAGE, e.g. postgres=postgres:13-alpine")?;
    if image.is_empty() {
        return Err("no image after '='; e.g. postgres=postgres:13-alpine".into());
    }
    let names: Vec<&str> = crate::engine::all().iter().map(|e| e.name()).collect();
    if !names.contains(&engine) {
        return Err(format!("unknown engine '{engine}'; engines: {}", names.join(", ")));
    }
    Ok((engine.to_string(), image.to_string()))
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
    /// Database, created if missing [default: postgres for postgres, dbrace for mysql and mongo, 0 for redis]
    #[arg(long, value_name = "NAME")]
    pub database: Option<String>,
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
    /// How servers would run: with --launcher docker, usable means its image is here.
    #[command(flatten)]
    pub launcher: LauncherArgs,
}

/// `--run-as`'s help: the package users of the engines' servers.
fn run_as_help() -> String {
    let users: Vec<&str> =
        crate::engine::all().iter().filter_map(|e| e.facts().server_user).map(|u| u.default).collect();
    format!("As root, run servers as this user [default: the package's user: {}]", users.join(", "))
}
