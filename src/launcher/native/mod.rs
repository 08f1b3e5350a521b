//! The native launcher: the machine's own binaries, each server in a process group of its
//! own (a Ctrl-C at the terminal reaches dbrace, not the server), killed if dbrace dies
//! (parent-death signal), output to a log file, its pid left in the instance directory
//! for the reaper, stopped on drop.

mod launch;
mod process;

pub use launch::launch;

use super::{Launcher, Recipe, Server, Step};
use crate::error::Result;
use std::process::Command;

/// Runs recipes as processes of this machine.
pub struct Native;

/// A step as a command, run as its user.
fn command(step: &Step) -> Command {
    let mut cmd = Command::new(&step.program);
    cmd.args(&step.args).envs(step.env.iter().map(|(k, v)| (k, v)));
    if let Some(u) = &step.user {
        crate::platform::process::run_as(&mut cmd, u.uid, u.gid);
    }
    cmd
}

/// Run an init step (initdb, mariadb-install-db) to its end; its output.
fn init(step: &Step) -> Result<std::process::Output> {
    command(step).output().map_err(|e| failed!("cannot run {}: {e}", step.program.display()))
}

impl Launcher for Native {
    fn name(&self) -> &'static str {
        "native"
    }
    fn start(&self, recipe: &Recipe) -> Result<Server> {
        let running = process::Process::start(command(&recipe.server), recipe)?;
        Ok(Server::new(Box::new(running)))
    }
}
