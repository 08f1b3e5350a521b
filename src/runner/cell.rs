//! What the runner measures: one cell of the matrix, as the plan builds it.

use crate::engine::{Engine, Target};
use crate::options::workload::WorkloadOptions;
use crate::profile::Profile;
use crate::workload::Workload;

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
}
