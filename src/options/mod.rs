//! Option types and value parsers shared by the CLI, the plan, the workloads and the
//! results schema. A leaf: nothing here imports a module that uses it. A workload's own
//! options live in a file named after it, registered in `workload::WorkloadOptions`.

pub mod buckets;
pub mod counters;
pub mod driving;
pub mod insert_commit;
pub mod oltp;
pub mod own;
pub mod parse;
pub mod protocol;
pub mod shard;
pub mod tpcb;
pub mod tpcc;
pub mod workload;
pub mod ycsb;
