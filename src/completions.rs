//! `dbrace completions SHELL`: the shell's completion script for dbrace, on stdout.

use crate::cli::{Cli, CompletionsArgs};
use crate::error::Result;
use clap::CommandFactory;
use std::io::Write;

/// Print the completion script of `a.shell`.
pub fn run(a: CompletionsArgs) -> Result<i32> {
    // Into a buffer first: clap_complete panics on a failed write, stdout may be full.
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut Cli::command(), "dbrace", &mut script);
    std::io::stdout().write_all(&script).map_err(|e| failed!("cannot write the completion script: {e}"))?;
    Ok(0)
}
