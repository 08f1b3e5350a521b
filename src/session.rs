//! A throwaway server handed to a user's own tools, shared by `exec` and `serve`: a copy of
//! the template in the profile's location, listening on 127.0.0.1, the `--setup` file
//! applied; stopped and its directories removed when dropped.

use crate::engine::access::{Access, Exposed};
use crate::engine::{Engine, Launch, Machine, Target};
use crate::error::Result;
use crate::instance::{Locations, Storage};
use crate::profile::Profile;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The `--setup` file, read and checked before any server starts.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The file it came from.
    pub path: PathBuf,
    /// Its text, in the engine's setup language: SQL sent as it is (one multi-statement
    /// query), mongo's JSON commands run one by one.
    pub text: String,
}

impl Setup {
    /// Read `path` for `engine`; refused when the engine takes no setup, the file is
    /// unreadable or the engine finds it wrong.
    pub fn read(path: &Path, engine: &dyn Engine) -> Result<Setup> {
        if engine.facts().setup_language.is_none() {
            return Err(bad_input!(
                "{} takes no --setup (it is {}); load data with --prepare CMD (it sees the connection variables)",
                engine.name(),
                setup_languages()
            ));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| bad_input!("cannot read --setup {}: {e}", path.display()))?;
        Setup::checked(path.to_path_buf(), text, engine)
    }

    /// `text` from `path` as a setup, once `engine` finds it right.
    pub fn checked(path: PathBuf, text: String, engine: &dyn Engine) -> Result<Setup> {
        engine.check_setup(&text).map_err(|why| bad_input!("--setup {}: {why}; fix the file", path.display()))?;
        Ok(Setup { path, text })
    }
}

/// Which engines take which `--setup`: "SQL for sqlite, postgres, mysql; … for mongo".
fn setup_languages() -> String {
    let mut by: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in crate::engine::all().iter().filter(|e| e.facts().exposes) {
        let Some(lang) = e.facts().setup_language else { continue };
        match by.iter_mut().find(|(l, _)| *l == lang) {
            Some((_, names)) => names.push(e.name()),
            None => by.push((lang, vec![e.name()])),
        }
    }
    by.iter().map(|(l, names)| format!("{l} for {}", names.join(", "))).collect::<Vec<_>>().join("; ")
}

/// What a session is started with.
pub struct Spec<'a> {
    /// The engine.
    pub engine: &'static dyn Engine,
    /// The profile, as the engine runs it.
    pub profile: &'a Profile,
    /// A managed server, or the `--url` server (a fresh database on it where it has them).
    pub target: &'a Target,
    /// Where the server listens and whom it lets in.
    pub access: &'a Access,
    /// The setup file applied once the server is up.
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
    /// Time the `--setup` file took.
    pub setup_s: f64,
}

impl Session {
    /// Start a server as `spec` says and apply its setup file.
    pub fn start(spec: &Spec) -> Result<Session> {
        let storage = match spec.target {
            Target::Managed => Storage::create(spec.profile, spec.locations)?,
            Target::Url(_) => Storage::default(),
        };
        let start = Instant::now();
        let launch = Launch::exposed(spec.profile, spec.target, &storage, spec.access, spec.machine);
        let exposed = spec.engine.expose(&launch)?;
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
        let Some(applied) = self.exposed.instance.connect()?.setup(&setup.text) else {
            return Err(bad_input!("--setup: this engine takes none"));
        };
        applied.map_err(|e| {
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

    /// A reader of the server's counters and its processes' usage, for a command's run.
    pub fn probe(&self) -> crate::runner::counters::Probe<'_> {
        crate::runner::counters::Probe::open(&*self.exposed.instance, &self.storage, None)
    }

    /// Fail when the server has exited.
    pub fn alive(&self) -> Result<()> {
        self.exposed.instance.alive()
    }
}
