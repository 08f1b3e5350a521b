//! Starting a throwaway server on the port its listener gives, again on another port
//! when someone took ours between our look and the server's bind.

use super::{Launcher, Listen, Recipe, Server};
use crate::error::{Error, Result};
use std::time::Duration;

/// A server that is ready.
pub struct Started<P, T> {
    /// The server.
    pub server: Server,
    /// What the recipe was written with (where clients reach it).
    pub probe: P,
    /// What the readiness check returned (a first connection).
    pub ready: T,
    /// The TCP port on 127.0.0.1, when it listens there.
    pub port: Option<u16>,
}

/// Start a server as `listen` says: `recipe` writes the recipe for a port (none: a
/// socket only) with what clients need to reach it, `ready` tries that until the server
/// serves, within `within`. A lost port of our choosing is chosen again, up to three
/// starts; `fail` explains a start that failed for good.
pub fn listening<P, T>(
    launcher: &dyn Launcher,
    listen: Listen,
    within: Duration,
    mut recipe: impl FnMut(Option<u16>) -> Result<(Recipe, P)>,
    mut ready: impl FnMut(&P) -> Option<T>,
    fail: impl Fn(&Server, Error) -> Error,
) -> Result<Started<P, T>> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let port = listen.port()?;
        let (r, probe) = recipe(port)?;
        let mut server = launcher.start(&r)?;
        match server.wait_ready(within, || ready(&probe)) {
            Ok(ready) => return Ok(Started { server, probe, ready, port }),
            Err(e) if attempt < 3 && listen.may_retry() && server.log_tail().contains("already in use") => drop(e),
            Err(e) => return Err(fail(&server, e)),
        }
    }
}

/// The usual `fail`: a port the user chose that was taken is theirs to free.
pub fn taken(listen: Listen) -> impl Fn(&Server, Error) -> Error {
    move |server, e| listen.taken(&server.log_tail(), e)
}
