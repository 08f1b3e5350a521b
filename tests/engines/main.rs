//! Every server engine against the conformance suite (conformance/), instantiated by one
//! `conformance!` table in the engine's folder, beside the tests only that engine has.
//! A new engine: a folder with its table, and one line below.

#[path = "../common/mod.rs"]
mod common;
#[macro_use]
mod conformance;

mod mongo;
mod mysql;
mod postgres;
mod redis;
mod tls_run;
mod wrong_server;
