//! dbrace: race databases and their storage configurations side by side.

#[macro_use]
pub mod error;

pub mod baseline;
// Above stats, compare and exec: it checks their verdicts by simulation.
#[cfg(test)]
mod calibration;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod completions;
pub mod compose;
pub mod config;
pub mod counters;
pub mod engine;
pub mod exec;
pub mod fiber;
pub mod host;
pub mod hotspots;
pub mod instance;
pub mod jobs;
pub mod launcher;
pub mod man;
pub mod noise;
pub mod options;
pub mod padding;
pub mod plan;
pub mod platform;
pub mod profile;
pub mod redact;
pub mod report;
pub mod results;
pub mod rng;
pub mod runner;
pub mod serve;
pub mod session;
pub mod signals;
pub mod startup;
pub mod stats;
pub mod suggest;
pub mod version;
pub mod workload;
