//! Engines with a server of their own: what differs between them is a `ServerEngine`, and
//! one implementation of `Engine` holds what they do alike (a data directory when managed,
//! a managed instance or the `--url` server's, the managed one handed to a user's tools).

use super::access::Exposed;
use super::{Engine, Facts, Instance, Launch, Machine, Target};
use crate::error::Result;
use crate::profile::Profile;
use crate::results::Survives;
use std::collections::BTreeMap;

/// A server engine: its facts and the steps that are its own.
pub trait ServerEngine: Sync {
    /// Its static facts.
    const FACTS: &'static Facts;
    /// A throwaway server's instance.
    type Managed: Instance + 'static;
    /// The server's version on this machine, or why it cannot run here.
    fn version(&self, machine: &Machine) -> Result<String>;
    /// Refuse, before anything starts, a profile it cannot run on `target`.
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()>;
    /// Whether `--set key=…` names one of its settings.
    fn knows_setting(&self, key: &str, machine: &Machine) -> bool;
    /// What a commit it acknowledged survives (engine/NAME/durability.rs).
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives;
    /// A throwaway server for the launch's profile, listening as it says.
    fn managed(&self, launch: &Launch) -> Result<Self::Managed>;
    /// A fresh instance on the `--url` server.
    fn on_url(&self, launch: &Launch, url: &str) -> Result<Self::Managed>;
    /// An instance handed to a user's tools: the variables its clients read.
    fn exposed(&self, inst: Self::Managed) -> Result<Exposed>;
    /// The profile it runs for a requested one.
    fn resolve_profile(&self, requested: &Profile) -> Option<Profile> {
        Some(requested.clone())
    }
    /// Why its tables keep a rolled-back transaction's changes under `profile`, if they do.
    fn no_rollback(&self, _profile: &Profile) -> Option<&'static str> {
        None
    }
    /// Refuse a profile whose server cannot be handed to a user's tools.
    fn check_exposed(&self, profile: &Profile, machine: &Machine) -> Result<()> {
        self.check(profile, &Target::Managed, machine)
    }
    /// Refuse a `--setup` text it could not apply: why, in a few words.
    fn check_setup(&self, _text: &str) -> std::result::Result<(), String> {
        Ok(())
    }
}

impl<T: ServerEngine> Engine for T {
    fn facts(&self) -> &'static Facts {
        T::FACTS
    }
    fn version(&self, machine: &Machine) -> Result<String> {
        ServerEngine::version(self, machine)
    }
    fn resolve_profile(&self, requested: &Profile) -> Option<Profile> {
        ServerEngine::resolve_profile(self, requested)
    }
    fn knows_setting(&self, key: &str, machine: &Machine) -> bool {
        ServerEngine::knows_setting(self, key, machine)
    }
    fn no_rollback(&self, profile: &Profile) -> Option<&'static str> {
        ServerEngine::no_rollback(self, profile)
    }
    fn check(&self, profile: &Profile, target: &Target, machine: &Machine) -> Result<()> {
        ServerEngine::check(self, profile, target, machine)
    }
    fn needs_data_dir(&self, _profile: &Profile, target: &Target) -> bool {
        *target == Target::Managed
    }
    fn survives(&self, profile: &Profile, settings: &BTreeMap<String, String>) -> Survives {
        ServerEngine::survives(self, profile, settings)
    }
    fn launch(&self, launch: &Launch) -> Result<Box<dyn Instance>> {
        match launch.target {
            Target::Url(url) => Ok(Box::new(self.on_url(launch, url)?)),
            Target::Managed => Ok(Box::new(self.managed(launch)?)),
        }
    }
    fn check_exposed(&self, profile: &Profile, machine: &Machine) -> Result<()> {
        ServerEngine::check_exposed(self, profile, machine)
    }
    fn expose(&self, launch: &Launch) -> Result<Exposed> {
        let inst = match launch.target {
            Target::Url(url) => self.on_url(launch, url)?,
            Target::Managed => self.managed(launch)?,
        };
        self.exposed(inst)
    }
    fn check_setup(&self, text: &str) -> std::result::Result<(), String> {
        ServerEngine::check_setup(self, text)
    }
}
