//! The TOML config: any file `run --config FILE` may name becomes command-line words or
//! one line of bad input, without a panic; the words it gives are read by the CLI without
//! a panic too.

use crate::harness::{Input, corpus, fuzz, inputs, one_line, scratch};
use clap::{CommandFactory, Parser};
use dbrace::cli::Cli;
use std::ffi::OsString;

/// TOML's syntax and values of the options' kinds.
const SYNTAX: &[&str] = &[
    " = ",
    "=",
    "\n",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "#",
    ".",
    "true",
    "false",
    "1",
    "-1",
    "0",
    "1.5",
    "1e400",
    "nan",
    "inf",
    "9223372036854775807",
    "1979-05-27T07:32:00Z",
    "\"2s\"",
    "\"3%\"",
    "\"sqlite\"",
    "\"postgres\"",
    "\"disk\"",
    "\"tpcb\"",
    "\"script:x.sql\"",
    "\\u00e9",
    "\\",
    "\u{0}",
];

/// Keys of the file: the long options of `dbrace run`, some as TOML would spell them.
fn tokens() -> &'static [&'static str] {
    let cmd = Cli::command().find_subcommand("run").cloned().unwrap();
    let mut out: Vec<&'static str> = SYNTAX.to_vec();
    for long in cmd.get_arguments().filter_map(|a| a.get_long()) {
        out.push(Box::leak(format!("\n{long} = ").into_boxed_str()));
        out.push(Box::leak(long.replace('-', "_").into_boxed_str()));
    }
    Box::leak(out.into_boxed_slice())
}

#[test]
fn toml_config() {
    let seeds: Vec<Input> = corpus("config").into_iter().map(|(_, b)| b).collect();
    let path = scratch("fuzz.toml");
    fuzz("config", inputs(&seeds, tokens()), |input| {
        std::fs::write(&path, input).unwrap();
        // A few options given on the command line too, which win over the file's.
        let argv: Vec<OsString> = ["dbrace", "run", "-c2", "--config", path.to_str().unwrap(), "--repeat=1"]
            .into_iter()
            .map(OsString::from)
            .collect();
        match dbrace::config::expand(argv) {
            Ok(words) => {
                // Options together may still conflict (clap says so); they must not panic.
                let _ = Cli::try_parse_from(words);
                true
            }
            Err(e) => {
                one_line(&e.to_string(), input);
                false
            }
        }
    });
}
