//! What an engine is, as one const value: everything the plan, the CLI, `dbrace engines`,
//! compose and suggest read of it without starting anything.

use super::image::Image;
use super::kit::ServerUser;
use super::{BinFlag, Capability, Interface};

/// An engine's static facts.
#[derive(Debug)]
pub struct Facts {
    /// Its name on the command line.
    pub name: &'static str,
    /// The kind of client it hands out.
    pub interface: Interface,
    /// What its clients offer beyond their interface's basic operations; a workload that
    /// needs more is not paired with it.
    pub capabilities: &'static [Capability],
    /// The settings `--set` may change, in words, for `dbrace engines`.
    pub setting_keys: &'static [&'static str],
    /// URL schemes `--url` may give for it (none: managed only).
    pub url_schemes: &'static [&'static str],
    /// The flag naming the directory of its server binaries (`--pg-bin`), if it takes one.
    pub bin_flag: Option<BinFlag>,
    /// Its image, for the docker launcher, `--compose` and `suggest`; none when it runs
    /// no container.
    pub image: Option<&'static Image>,
    /// The setting that caps its throwaway server's connections and the server's default,
    /// when that default is low enough for `--clients` to pass (PostgreSQL's 100).
    pub connection_limit: Option<(&'static str, u32)>,
    /// Whether its throwaway servers can run with TLS (`+tls` profiles, `--tls`).
    pub serves_tls: bool,
    /// The user its throwaway servers run as when dbrace is root (`--run-as`).
    pub server_user: Option<&'static ServerUser>,
    /// Whether it has a server to hand to a user's own tools (`exec`, `serve`).
    pub exposes: bool,
    /// What a `--setup` file (exec, serve) holds for it, in words; none when it takes none.
    pub setup_language: Option<&'static str>,
    /// Whether it runs in dbrace's own process, in its clients' threads (no server).
    pub embedded: bool,
}

impl Facts {
    /// The facts every engine starts from: a name and an interface, and for SQL the
    /// `--setup` a SQL server judges, sent as it is.
    pub const fn new(name: &'static str, interface: Interface) -> Facts {
        Facts {
            name,
            interface,
            capabilities: &[],
            setting_keys: &[],
            url_schemes: &[],
            bin_flag: None,
            image: None,
            connection_limit: None,
            serves_tls: false,
            server_user: None,
            exposes: false,
            embedded: false,
            setup_language: match interface {
                Interface::Sql => Some("SQL"),
                Interface::Kv | Interface::Doc => None,
            },
        }
    }
}
