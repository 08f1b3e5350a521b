//! `dbrace suggest`'s flags.

use clap::Args;
use std::path::PathBuf;

/// `dbrace suggest`.
#[derive(Args, Debug)]
#[command(after_help = "Example: dbrace suggest -e postgres -p ram-nosync -f compose > docker-compose.override.yml")]
pub struct SuggestArgs {
    /// The engine: postgres, mysql, redis or mongo [default with --compose: its service's]
    #[arg(long, short = 'e', value_name = "ENGINE", required_unless_present = "files")]
    pub engine: Option<String>,
    /// The profile to keep (see docs/durability.md)
    #[arg(long, short = 'p', value_name = "PROFILE")]
    pub profile: String,
    /// The image [default: the --compose service's, else the engine's: postgres:17, mariadb:11, redis:7]
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
    /// Your Compose file: the override is for its database service, keeping its command's
    /// other settings; repeatable, merged in order
    #[arg(long = "compose", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// With --compose: the service, when the file has several databases [default without: db]
    #[arg(long, value_name = "NAME", requires = "files")]
    pub service: Option<String>,
    /// What to write
    #[arg(long, short = 'f', value_enum, default_value = "all")]
    pub format: crate::suggest::Format,
}
