//! One server process of the native launcher.

use crate::error::Result;
use crate::launcher::{Recipe, Running};
use crate::platform::{files, process, signal};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server process; stopped (then killed with its group) when dropped.
pub struct Process {
    child: Child,
    log: PathBuf,
    stop_signal: i32,
}

impl Process {
    /// Start `cmd` as `recipe` says, its output in `server.log` of the instance directory.
    pub fn start(mut cmd: Command, recipe: &Recipe) -> Result<Process> {
        let log = recipe.dir.join("server.log");
        let out = std::fs::File::create(&log).map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        if let Some(u) = &recipe.server.user {
            let _ = files::chown(&log, u.uid, u.gid);
        }
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        process::own_group(&mut cmd, recipe.death_signal);
        let program = format!("{:?}", cmd.get_program());
        let child = cmd.spawn().map_err(|e| failed!("cannot start {program}: {e}"))?;
        // The program's name beside the pid: the reaper knows a zombie server by it.
        let name = recipe.server.program.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let _ = std::fs::write(recipe.dir.join(crate::instance::datadir::PID_FILE), format!("{} {name}", child.id()));
        Ok(Process { child, log, stop_signal: recipe.stop_signal })
    }
}

impl Running for Process {
    fn exit_status(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }
    fn exited(&self) -> bool {
        crate::launcher::exited(&self.child)
    }
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
    fn log_path(&self) -> &Path {
        &self.log
    }
    fn usage(&self) -> Option<crate::counters::Usage> {
        crate::launcher::usage::usage(&crate::launcher::usage::Processes::Tree(self.child.id()))
    }
    fn processes(&self) -> Option<crate::launcher::usage::Processes> {
        Some(crate::launcher::usage::Processes::Tree(self.child.id()))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let pid = self.child.id();
        process::signal(pid, self.stop_signal);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // The group is our child's own, not yet reaped.
        process::signal_group(pid, signal::KILL);
        let _ = self.child.wait();
    }
}
