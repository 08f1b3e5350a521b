//! Fuzzing the parsers of what users write: pgbench scripts, the TOML config and the
//! `--url`s of every server engine. The suite runs a short smoke run of each target;
//! `DBRACE_FUZZ_CASES=N` and `DBRACE_FUZZ_SECONDS=S` make it a long one (docs/fuzzing.md).

mod config;
mod harness;
mod script;
mod urls;
