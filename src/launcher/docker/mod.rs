//! The docker launcher: a recipe's `Container` run through the `docker` command (argv,
//! never a shell string) with no network and the server's socket in a bind-mounted
//! directory, or with host networking and the server bound to 127.0.0.1 by its own
//! arguments. Each container is named `dbrace-<pid>-<start time>-<n>`, labelled with its
//! owner (pid, start time and pid namespace) so the reaper knows it, attached to a `docker
//! run` process of ours whose output is the server's log, and removed with its anonymous
//! volumes when dropped, then the named volumes of `--docker-disk volume` it ran on
//! (`volume.rs`).

mod cgroup;
mod cli;
mod container;
mod launch;
mod layout;
mod name;
pub mod reap;
mod volume;

pub use cli::{Image, Versions, bridge, fetch_hint, image, inspect, versions};
pub use launch::launch;
pub use volume::Volume;

use super::{Launcher, Recipe, Server};
use crate::error::Result;

/// Runs recipes as containers.
pub struct Docker;

impl Launcher for Docker {
    fn name(&self) -> &'static str {
        "docker"
    }
    fn start(&self, recipe: &Recipe) -> Result<Server> {
        let Some(c) = &recipe.container else {
            return Err(bad_input!("--launcher docker: this engine has no container recipe yet"));
        };
        Ok(Server::new(Box::new(container::Running::start(c, recipe)?)))
    }
}
