//! Option types and value parsers shared by the CLI, the plan, the workloads and the
//! results schema. A leaf: nothing here imports a module that uses it. A workload's own
//! options live in its folder (src/workload/NAME/options.rs), registered in
//! `workload::options::WorkloadOptions`; the counters workloads' stay here, since results
//! files keep them apart.

pub mod buckets;
pub mod counters;
pub mod driving;
pub mod own;
pub mod parse;
pub mod protocol;
pub mod shard;
