//! What `dbrace run` asks the plan for, as its flags give it: the engines, profiles and
//! workloads, the clients, the settings and the sweep that vary them, the URLs of
//! existing servers and the baseline. The plan reads it as it is.

use crate::options::parse::parse_clients;

/// Engines, profiles and workloads of `dbrace run` with no arguments; a default engine
/// that cannot run here (no server binaries) is left out with a note.
pub const DEFAULT_ENGINES: &[&str] = &["sqlite", "postgres", "memory"];
/// Profiles of the default matrix.
pub const DEFAULT_PROFILES: &[&str] = &["disk", "ram", "async", "nosync", "unlogged"];
/// Workloads of the default matrix: the commit-bound one, where profiles differ most; one
/// workload keeps the default budget's rounds short enough to settle its comparisons.
pub const DEFAULT_WORKLOADS: &[&str] = &["insert-commit"];

/// The flags that choose the cells.
#[derive(clap::Args, Clone, Debug)]
pub struct Asked {
    #[arg(long, short = 'e', value_delimiter = ',', value_name = "LIST", help = engine_help())]
    pub engine: Vec<String>,
    /// Profiles, comma-separated: disk, ram, async, nosync, ram-nosync, unlogged, wal-ram, flushed, each
    /// followed by +KEY=VALUE settings and +tls (disk+fsync=off), or NAME=PROFILE for one
    /// under another name (cache=disk+fsync=off; disk2=disk: an A/A control)
    /// [default: disk,ram,async,nosync,unlogged]
    #[arg(long, short = 'p', value_delimiter = ',', value_name = "LIST")]
    pub profile: Vec<String>,
    #[arg(long, short = 'w', value_delimiter = ',', value_name = "LIST", help = workload_help())]
    pub workload: Vec<String>,
    /// Concurrent clients, a connection each; a list makes one cell per value
    #[arg(long, short = 'c', value_delimiter = ',', default_value = "1", value_name = "N[,N…]",
          allow_hyphen_values = true, value_parser = parse_clients)]
    pub clients: Vec<u32>,
    /// Raw engine setting, repeatable: KEY=VALUE, or ENGINE.KEY=VALUE for one engine
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Baseline for ratios: PROFILE or ENGINE:PROFILE [default: the first profile]
    #[arg(long, value_name = "PROFILE")]
    pub baseline: Option<String>,
    /// An existing server to run against instead of a throwaway one, e.g.
    /// postgres://USER:PASSWORD@HOST:PORT/DB, mysql://… or redis://[USER:PASSWORD@]HOST:PORT/DB
    /// (the password never appears in output)
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,
    /// One cell per value of a setting, the engine restarted for each: KEY=a,b,c
    /// (e.g. shared_buffers=128MB,1GB); ratios are against the first value
    #[arg(long, value_name = "KEY=a,b,c")]
    pub sweep: Option<String>,
}

impl Default for Asked {
    /// Nothing chosen: the default engines, profiles and workloads, at one client.
    fn default() -> Self {
        Asked {
            engine: Vec::new(),
            profile: Vec::new(),
            workload: Vec::new(),
            clients: vec![1],
            set: Vec::new(),
            baseline: None,
            url: Vec::new(),
            sweep: None,
        }
    }
}

/// `--engine`'s help: every engine, and the default ones.
fn engine_help() -> String {
    format!(
        "Engines, comma-separated: {} [default: {}, of them those whose servers are installed]",
        crate::engine::names(|_| true),
        DEFAULT_ENGINES.join(", ")
    )
}

/// `--workload`'s help: every workload the registry has, then the two that are not in it.
fn workload_help() -> String {
    let names: Vec<String> = crate::workload::all().iter().map(|w| w.name().to_string()).collect();
    format!(
        "Workloads, comma-separated: {}, counters (counters-write + counters-read), script:FILE[@WEIGHT] (pgbench's script format; all script: entries form one mix) [default: insert-commit]",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// Nothing asked on the command line is `Asked::default()`.
    #[test]
    fn no_flags_ask_the_default() {
        let m = Asked::augment_args(clap::Command::new("run")).try_get_matches_from(["run"]).unwrap();
        let flags = Asked::from_arg_matches(&m).unwrap();
        let d = Asked::default();
        assert_eq!((&flags.engine, &flags.profile, &flags.workload), (&d.engine, &d.profile, &d.workload));
        assert_eq!((&flags.clients, &flags.set, &flags.url), (&d.clients, &d.set, &d.url));
        assert_eq!((&flags.baseline, &flags.sweep), (&d.baseline, &d.sweep));
    }
}
