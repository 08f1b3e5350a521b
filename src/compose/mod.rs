//! `--compose FILE`: a database service of the user's own Compose file as the source of a
//! server (docs/compose.md). The files are read as `docker compose` reads them, the
//! database service found by its image, and its image, published port, account and
//! command's settings become the cells' — each profile's, and one `as-written` cell that
//! keeps the file's own tuning. Nothing is started from the file and nothing written to it.

pub mod chosen;
mod command;
mod dotenv;
mod init;
mod interpolate;
mod keys;
pub mod project;
pub mod service;

pub use chosen::{AS_WRITTEN, Chosen};

use crate::engine::access::Access;
use crate::engine::machine::Machine;
use crate::error::Result;
use crate::profile::Profile;
use crate::session::Setup;
use std::path::PathBuf;

/// `names` with the `as-written` cell first (the baseline), unless they place it.
pub fn with_as_written(mut names: Vec<String>) -> Vec<String> {
    if !names.iter().any(|n| n == AS_WRITTEN) {
        names.insert(0, AS_WRITTEN.into());
    }
    names
}

/// The database service `files` hold (`service` when named, of `engine` when given).
pub fn read(files: &[PathBuf], service: Option<&str>, engine: Option<&str>) -> Result<Chosen> {
    let project = project::load(files)?;
    chosen::choose(&project, service, engine)
}

impl Chosen {
    /// `machine` as it runs this service: its image in a container, with its variables.
    pub fn machine(&self, mut machine: Machine) -> Machine {
        machine.launcher = machine.launcher.in_containers();
        machine.images.insert(self.engine.name().to_string(), self.image.clone());
        machine.launcher.env.insert(self.engine.name().to_string(), self.env.clone());
        machine.launcher.resources.insert(self.engine.name().to_string(), self.resources.clone());
        machine
    }

    /// The access the flags `given` ask for, the service's where they are silent.
    pub fn access(&self, given: Access) -> Access {
        let file = &self.access;
        Access {
            port: given.port.or(file.port),
            user: given.user.or_else(|| file.user.clone()),
            password: given.password.or_else(|| file.password.clone()),
            database: given.database.or_else(|| file.database.clone()),
        }
    }

    /// The profiles of `names` (`as-written` among them, or not), each with the settings
    /// of the command every cell keeps.
    pub fn profiles(&self, names: &[String], machine: &Machine) -> Result<Vec<Profile>> {
        self.check_settings(machine)?;
        let mut out = Vec::new();
        for n in names {
            let mut p = match n == AS_WRITTEN {
                true => self.as_written()?,
                false => Profile::named(n)?,
            };
            p.settings.splice(0..0, self.kept.iter().cloned());
            out.push(p);
        }
        Ok(out)
    }

    /// What every server gets once up: the service's SQL init scripts, then `given`
    /// (`--setup`).
    pub fn setup(&self, given: Option<Setup>) -> Result<Option<Setup>> {
        let Some(first) = self.init.first() else { return Ok(given) };
        let mut text = init::text(&self.init)?;
        let path = match given {
            Some(g) => {
                text.push_str(&g.text);
                g.path
            }
            None => first.parent().unwrap_or(first).to_path_buf(),
        };
        Setup::checked(path, text, self.engine).map(Some)
    }

    /// The cell that runs the service as written: its data where the file puts it, the
    /// image's own durability settings and its command's over them.
    fn as_written(&self) -> Result<Profile> {
        let mut p = Profile::named(if self.on_tmpfs { "ram" } else { "disk" })?;
        p.name = AS_WRITTEN.into();
        let defaults = self.contract.defaults.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        p.settings = defaults.filter(|(k, _)| !self.tuned.iter().any(|(t, _)| t == k)).collect();
        p.settings.extend(self.tuned.iter().cloned());
        Ok(p)
    }

    /// Refuse a command setting the engine does not know, naming it.
    fn check_settings(&self, machine: &Machine) -> Result<()> {
        for (k, _) in self.kept.iter().chain(&self.tuned) {
            if !self.engine.knows_setting(k, machine) {
                return Err(bad_input!(
                    "services.{}.command sets '{k}', which is not a {} setting; fix or drop it",
                    self.service,
                    self.engine.name()
                ));
            }
        }
        Ok(())
    }
}
