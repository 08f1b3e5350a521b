//! The user an engine's servers run as when dbrace runs as root: declared by each engine
//! (its server's name and the package's user), chosen with `--run-as`.

use crate::error::Result;
use crate::instance::user::{self, RunAs};

/// Who an engine's servers run as.
#[derive(Clone, Copy, Debug)]
pub struct ServerUser {
    /// The server's name in messages: PostgreSQL, MariaDB, redis-server.
    pub server: &'static str,
    /// The package's own user: postgres, mysql, redis.
    pub default: &'static str,
    /// Whether the server refuses root (Redis does not, but need not have it).
    pub refuses_root: bool,
}

impl ServerUser {
    /// The user, given `--run-as` (`chosen`): nobody else when we are not root.
    pub fn resolve(&self, chosen: Option<&str>) -> Result<Option<RunAs>> {
        if self.refuses_root {
            user::for_server(chosen, self.server, self.default)
        } else {
            user::unprivileged(chosen, self.default)
        }
    }

    /// `resolve` as a server is launched: the first launch of each server in a process
    /// says who it runs as, since that is not who the user is.
    pub fn for_launch(&self, chosen: Option<&str>) -> Result<Option<RunAs>> {
        let run_as = self.resolve(chosen)?;
        let notice = match (&run_as, self.refuses_root) {
            (Some(u), true) => Some(format!("{} refuses root; its servers run as user '{}'", self.server, u.name)),
            (Some(u), false) if user::is_root() => Some(format!("{} runs as user '{}', not root", self.server, u.name)),
            (None, false) if user::is_root() => {
                Some(format!("{} runs as root (no '{}' user; --run-as USER picks one)", self.server, self.default))
            }
            _ => None,
        };
        if let Some(n) = notice {
            // Once per server and process: a notice, not a setting.
            static SAID: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
            let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
            if !said.contains(&self.server) {
                said.push(self.server);
                eprintln!("dbrace: {n}");
            }
        }
        Ok(run_as)
    }

    /// ", runs as USER" for `dbrace engines`, or nothing when the server runs as dbrace.
    pub fn described(&self, chosen: Option<&str>) -> Result<String> {
        Ok(match self.resolve(chosen)? {
            Some(u) => format!(", runs as {}", u.name),
            None if user::is_root() && !self.refuses_root => format!(", runs as root: no '{}' user", self.default),
            None => String::new(),
        })
    }
}
