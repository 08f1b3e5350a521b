//! A throwaway server process: its own process group (a Ctrl-C at the terminal reaches
//! dbrace, not the server), killed if dbrace dies (parent-death signal), output to a log
//! file, its pid left in the data directory for the reaper, stopped on drop.

use crate::error::Result;
use crate::instance::user::RunAs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// File in a data directory holding the server's pid, for the reaper.
pub const PID_FILE: &str = ".dbrace-server-pid";

/// A running server; stopped (then killed) when dropped.
pub struct Server {
    child: Child,
    log: PathBuf,
    stop_signal: i32,
}

impl Server {
    /// Start `cmd` in `dir`, as `user` when given, its output in `dir/server.log`.
    /// `death_signal` is what the server gets if dbrace dies; `stop_signal` stops it.
    pub fn start(
        mut cmd: Command,
        dir: &Path,
        user: Option<&RunAs>,
        death_signal: i32,
        stop_signal: i32,
    ) -> Result<Server> {
        let log = dir.join("server.log");
        let out = std::fs::File::create(&log).map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        if let Some(u) = user {
            let _ = std::os::unix::fs::chown(&log, Some(u.uid), Some(u.gid));
            cmd.uid(u.uid).gid(u.gid);
        }
        cmd.stdin(Stdio::null()).stdout(out).stderr(err).process_group(0);
        // SAFETY: prctl is async-signal-safe; it runs in the child between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, death_signal as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let program = format!("{:?}", cmd.get_program());
        let child = cmd.spawn().map_err(|e| failed!("cannot start {program}: {e}"))?;
        let _ = std::fs::write(dir.join(PID_FILE), child.id().to_string());
        Ok(Server { child, log, stop_signal })
    }

    /// Wait until `ready` succeeds, failing with the log's tail if the server exits or
    /// `timeout` passes.
    pub fn wait_ready<T>(&mut self, timeout: Duration, mut ready: impl FnMut() -> Option<T>) -> Result<T> {
        let start = Instant::now();
        loop {
            if let Some(v) = ready() {
                return Ok(v);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(failed!("the server exited at start ({status}): {}", self.log_tail()));
            }
            crate::signals::check()?;
            if start.elapsed() > timeout {
                return Err(failed!("the server was not ready after {} s: {}", timeout.as_secs(), self.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the server has exited (a zombie nobody has waited for yet counts), e.g. a
    /// server `serve` keeps that was killed from outside.
    pub fn exited(&self) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
        matches!(state, None | Some("Z" | "X"))
    }

    /// Fail, with the log's tail, when the server has exited.
    pub fn alive(&self) -> Result<()> {
        if self.exited() { Err(failed!("the server exited: {}", self.log_tail())) } else { Ok(()) }
    }

    /// A failed connection to this server: a failed run, with the log's tail.
    pub fn unreachable(&self, e: impl std::fmt::Display) -> crate::error::Error {
        failed!("cannot connect to the throwaway server: {e}; {}", self.log_tail())
    }

    /// The last lines of the server's log, on one line.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(3).collect();
        let tail = lines.into_iter().rev().collect::<Vec<_>>().join(" | ");
        format!("log {}: {tail}", self.log.display())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        // SAFETY: signalling our own child and, as a last resort, its process group.
        unsafe { libc::kill(pid, self.stop_signal) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A port nobody listens on now (the kernel's choice from the ephemeral range, so never a
/// system server's 5432, 3306 or 6379).
pub fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| failed!("no free TCP port on 127.0.0.1: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| failed!("no free TCP port: {e}"))
}

/// Refuse a port on 127.0.0.1 that something already listens on, before a server starts.
pub fn check_port(port: u16) -> Result<()> {
    match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(port_taken(port)),
        Err(e) => Err(bad_input!("cannot listen on 127.0.0.1:{port}: {e}; choose another --port")),
    }
}

/// The error for a port the user chose that something else listens on.
pub fn port_taken(port: u16) -> crate::error::Error {
    bad_input!("port {port} on 127.0.0.1 is taken (something listens there); stop it or choose another --port")
}

/// 24 random letters and digits from the kernel, for a throwaway server's password.
pub fn random_password() -> Result<String> {
    random_token(24)
}

/// `len` random letters and digits from the kernel: a throwaway server's password, or a
/// name nobody else picks.
pub fn random_token(len: usize) -> Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = vec![0u8; len];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .map_err(|e| failed!("cannot read /dev/urandom: {e}"))?;
    Ok(bytes.iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect())
}
