//! A throwaway server handed to a user's own tools, shared by `exec` and `serve`: a copy of
//! the template in the profile's location, listening on 127.0.0.1, the `--setup` SQL
//! applied; stopped and its directories removed when dropped.

use crate::engine::access::{Access, Exposed};
use crate::engine::{Connection, Engine, Interface, Launch, Machine};
use crate::error::Result;
use crate::instance::{Locations, Storage};
use crate::profile::Profile;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The `--setup` SQL, read before any server starts.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The file it came from.
    pub path: PathBuf,
    /// Its text, sent as it is (one multi-statement query).
    pub sql: String,
}

impl Setup {
    /// Read `path` for `engine`; refused when the engine speaks no SQL or the file is unreadable.
    pub fn read(path: &Path, engine: &dyn Engine) -> Result<Setup> {
        if engine.interface() != Interface::Sql {
            return Err(bad_input!(
                "--setup takes SQL, which {} does not speak; load data with --prepare CMD (it sees the connection variables)",
                engine.name()
            ));
        }
        let sql =
            std::fs::read_to_string(path).map_err(|e| bad_input!("cannot read --setup {}: {e}", path.display()))?;
        Ok(Setup { path: path.to_path_buf(), sql })
    }
}

/// What a session is started with.
pub struct Spec<'a> {
    /// The engine.
    pub engine: &'static dyn Engine,
    /// The profile, as the engine runs it.
    pub profile: &'a Profile,
    /// Where the server listens and whom it lets in.
    pub access: &'a Access,
    /// SQL applied once the server is up.
    pub setup: Option<&'a Setup>,
    /// The disk and ram locations.
    pub locations: &'a Locations,
    /// How this machine's servers are found and run.
    pub machine: &'a Machine,
}

/// A running throwaway server and how to reach it.
pub struct Session {
    // Declared first so it is dropped first: the server stops before its files go.
    exposed: Exposed,
    storage: Storage,
    /// From launch (template copied) to ready: started, account made, settings read back.
    pub ready_s: f64,
    /// Time the `--setup` SQL took.
    pub setup_s: f64,
}

impl Session {
    /// Start a server as `spec` says and apply its setup SQL.
    pub fn start(spec: &Spec) -> Result<Session> {
        let storage = Storage::create(spec.profile, spec.locations)?;
        let start = Instant::now();
        let exposed = spec.engine.expose(&Launch::exposed(spec.profile, &storage, spec.access, spec.machine))?;
        let ready_s = start.elapsed().as_secs_f64();
        let mut session = Session { exposed, storage, ready_s, setup_s: 0.0 };
        if let Some(setup) = spec.setup {
            let start = Instant::now();
            session.apply(setup)?;
            session.setup_s = start.elapsed().as_secs_f64();
        }
        Ok(session)
    }

    fn apply(&self, setup: &Setup) -> Result<()> {
        let Connection::Sql(mut c) = self.exposed.instance.connect()? else {
            return Err(bad_input!("--setup takes SQL, which this engine does not speak"));
        };
        c.batch(&setup.sql).map_err(|e| {
            let msg = e.to_string().replace(&self.exposed.password, "***");
            bad_input!("--setup {} failed: {msg}; fix the file", setup.path.display())
        })
    }

    /// The variables to export: the URL, and those the engine's own clients read.
    pub fn env(&self) -> &[(String, String)] {
        &self.exposed.env
    }

    /// Variables to remove from a command's environment.
    pub fn unset(&self) -> &'static [&'static str] {
        self.exposed.unset
    }

    /// The connection URL, password included.
    pub fn url(&self) -> &str {
        &self.exposed.url
    }

    /// The connection URL with the password as `***`.
    pub fn redacted(&self) -> &str {
        &self.exposed.redacted
    }

    /// The password, to scrub from anything kept.
    pub fn password(&self) -> &str {
        &self.exposed.password
    }

    /// The server's data directory.
    pub fn data_dir(&self) -> Option<&Path> {
        self.storage.data.as_ref().map(|d| d.path())
    }

    /// The engine version that runs.
    pub fn version(&self) -> String {
        self.exposed.instance.version()
    }

    /// The settings in effect, read back from the server.
    pub fn settings(&self) -> std::collections::BTreeMap<String, String> {
        self.exposed.instance.settings()
    }

    /// Fail when the server has exited.
    pub fn alive(&self) -> Result<()> {
        self.exposed.instance.alive()
    }
}

/// `text` with every occurrence of `secret` replaced by `***`.
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() { text.to_string() } else { text.replace(secret, "***") }
}
