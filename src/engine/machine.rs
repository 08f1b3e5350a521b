//! The options every launch shares, built once from the command line (`Machine`) and
//! passed down by reference, and one launch of an engine (`Launch`): nothing reaches an
//! engine through a process global, so two values in one process never mix.

use super::Transport;
use super::access::{Access, Listen};
use crate::instance::Storage;
use crate::options::protocol::Protocol;
use crate::profile::Profile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How this machine's servers are found, run and reached.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    /// Directories of server binaries given on the command line (`--pg-bin`, `--mysql-bin`).
    pub bin_dirs: BinDirs,
    /// `--transport`: how `run`'s clients reach a throwaway server.
    pub transport: Transport,
    /// `--protocol`: how PostgreSQL statements travel.
    pub protocol: Protocol,
    /// `--launcher`, `--run-as` and the docker options: how managed servers run.
    pub launcher: crate::launcher::How,
    /// `--image ENGINE=IMAGE`: the image an engine's containers run, by engine name.
    pub images: BTreeMap<String, String>,
}

impl Machine {
    /// The binaries directory given for `engine`, if any.
    pub fn bin_dir(&self, engine: &str) -> Option<&Path> {
        self.bin_dirs.0.get(engine).map(PathBuf::as_path)
    }

    /// The image `engine`'s containers run: `--image`'s, else the engine's `default`.
    pub fn image<'a>(&'a self, engine: &str, default: &'a str) -> &'a str {
        self.images.get(engine).map_or(default, String::as_str)
    }

    /// `--run-as`, if given.
    pub fn run_as(&self) -> Option<&str> {
        self.launcher.run_as.as_deref()
    }
}

/// The flag an engine takes for the directory of its server binaries.
#[derive(Clone, Copy, Debug)]
pub struct BinFlag {
    /// The long option, without dashes: `pg-bin`.
    pub long: &'static str,
    /// Its help line.
    pub help: &'static str,
}

/// Binaries directories by engine name: each engine's `bin_flag`, as clap options.
#[derive(Clone, Debug, Default)]
pub struct BinDirs(pub BTreeMap<&'static str, PathBuf>);

impl clap::FromArgMatches for BinDirs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut dirs = BTreeMap::new();
        for e in super::all() {
            if let Some(f) = e.facts().bin_flag
                && let Some(d) = m.get_one::<PathBuf>(f.long)
            {
                dirs.insert(e.name(), d.clone());
            }
        }
        Ok(BinDirs(dirs))
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for BinDirs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        super::all().iter().filter_map(|e| e.facts().bin_flag).fold(cmd, |cmd, f| {
            let arg = clap::Arg::new(f.long).long(f.long).value_name("DIR").help(f.help);
            cmd.arg(arg.value_parser(clap::value_parser!(PathBuf)))
        })
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// Nobody's account: `run`'s servers let dbrace in as their engine's default.
static NO_ACCESS: Access = Access { port: None, user: None, password: None, database: None };

/// One launch of an engine: what `Engine::launch` and `Engine::expose` are given.
#[derive(Clone, Copy)]
pub struct Launch<'a> {
    /// The profile, as the engine runs it.
    pub profile: &'a Profile,
    /// Managed, or a `--url` server.
    pub target: &'a super::Target,
    /// The instance's directories.
    pub storage: &'a Storage,
    /// Where a throwaway server listens.
    pub listen: Listen,
    /// The account a user's tools reach (exec, serve); nobody's for `run`.
    pub access: &'a Access,
    /// The machine's options.
    pub machine: &'a Machine,
}

impl<'a> Launch<'a> {
    /// A launch for `run`: listening as `--transport` says, no account of the user's.
    pub fn run(profile: &'a Profile, target: &'a super::Target, storage: &'a Storage, machine: &'a Machine) -> Self {
        let listen = match machine.transport {
            Transport::Socket => Listen::Socket,
            Transport::Tcp => Listen::Tcp(None),
        };
        Launch { profile, target, storage, listen, access: &NO_ACCESS, machine }
    }

    /// A launch handed to a user's tools: the `--url` server, or a managed one on 127.0.0.1
    /// as `access` says.
    pub fn exposed(
        profile: &'a Profile,
        target: &'a super::Target,
        storage: &'a Storage,
        access: &'a Access,
        machine: &'a Machine,
    ) -> Self {
        Launch { profile, target, storage, listen: Listen::Tcp(access.port), access, machine }
    }

    /// The data directory, which a managed server of `engine` needs.
    pub fn data_dir(&self, engine: &str) -> crate::error::Result<&'a crate::instance::DataDir> {
        self.storage.data.as_ref().ok_or_else(|| failed!("a managed {engine} needs a data directory"))
    }
}
