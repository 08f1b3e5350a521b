//! `dbrace serve`'s flags.

use super::{AccessArgs, LocationArgs};
use clap::Args;
use std::path::PathBuf;

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
    #[arg(value_name = "ENGINE", required_unless_present = "files", help = super::exec::exposed_help("The engine [default with --compose: its service's]"))]
    pub engine: Option<String>,
    /// The profile (see `dbrace engines`)
    #[arg(long, short = 'p', default_value = "ram-nosync", value_name = "PROFILE")]
    pub profile: String,
    /// Applied once the server is up (a schema, seed data): SQL, or for mongo a JSON array
    /// of commands
    #[arg(long, value_name = "FILE")]
    pub setup: Option<PathBuf>,
    /// Where the server answers.
    #[command(flatten)]
    pub access: AccessArgs,
    /// The user's Compose file (`-p as-written` serves its service as the file writes it).
    #[command(flatten)]
    pub compose: super::ComposeArgs,
    /// How to print the connection on stdout
    #[arg(long, short = 'f', value_enum, default_value = "env")]
    pub format: ServeFormat,
    /// Where data lives.
    #[command(flatten)]
    pub locations: LocationArgs,
    /// How managed servers run.
    #[command(flatten)]
    pub launcher: super::LauncherArgs,
}
