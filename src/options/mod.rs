//! Option types and value parsers shared by the CLI, the plan, the workloads and the
//! results schema. A leaf: nothing here imports a module that uses it.

pub mod buckets;
pub mod counters;
pub mod parse;
pub mod protocol;
pub mod shard;
pub mod workload;
pub mod ycsb;
