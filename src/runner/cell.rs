//! What the runner measures: one cell of the matrix, as the plan builds it.

use crate::engine::{Engine, Target};
use crate::profile::Profile;
use crate::workload::Workload;
use crate::workload::WorkloadOptions;
use std::borrow::Cow;

/// One combination: engine × profile × workload × clients.
pub struct Cell {
    /// The engine.
    pub engine: &'static dyn Engine,
    /// The profile as this engine runs it, with its raw settings.
    pub profile: Profile,
    /// The workload.
    pub workload: std::sync::Arc<dyn Workload>,
    /// Concurrent clients, a connection each.
    pub clients: u32,
    /// How the engine is reached.
    pub target: Target,
    /// The workload's options (data set size), as swept for this cell.
    pub options: WorkloadOptions,
}

impl Cell {
    /// A stable name: engine/profile/workload/cN.
    pub fn id(&self) -> String {
        format!("{}/{}/{}/c{}", self.engine.name(), self.profile.name, self.workload.name(), self.clients)
    }

    /// The profile a throwaway server of this cell starts with: the engine's connection
    /// limit raised for `clients` when they would reach its default (the value is then
    /// among the settings read back and recorded), unless `--set` gave one.
    pub fn launch_profile(&self, clients: usize) -> Cow<'_, Profile> {
        // The load's and verify's connection, a reconnect, the superuser's reserved slots.
        const SPARE: u32 = 10;
        let want = clients as u32 + SPARE;
        match self.engine.facts().connection_limit {
            Some((key, default))
                if matches!(self.target, Target::Managed)
                    && want > default
                    && !self.profile.settings.iter().any(|(k, _)| k == key) =>
            {
                let mut p = self.profile.clone();
                p.settings.push((key.to_string(), want.to_string()));
                Cow::Owned(p)
            }
            _ => Cow::Borrowed(&self.profile),
        }
    }
}
