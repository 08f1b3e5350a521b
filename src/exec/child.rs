//! One run of the user's command: spawned from its argv in a process group of its own,
//! stdin empty, its output to a file (or dbrace's stderr), timed — wall clock, and the user
//! and system CPU of the command and every child it waited for — and stopped with its whole
//! group on `--timeout` or a signal to dbrace.

use crate::error::Result;
use crate::platform::{process, signal};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where the command's output goes.
#[derive(Clone, Copy, Debug)]
pub enum Output<'a> {
    /// A file, truncated first; its tail explains a failure.
    File(&'a Path),
    /// dbrace's stderr, as it comes (`--show-output`).
    Stderr,
}

/// What to run and how.
pub struct Spawn<'a> {
    /// The command and its arguments.
    pub argv: &'a [String],
    /// Variables set for it (over dbrace's own environment).
    pub env: &'a [(String, String)],
    /// Variables removed from its environment.
    pub unset: &'a [&'static str],
    /// Where its stdout and stderr go.
    pub output: Output<'a>,
    /// Stop it after this long.
    pub timeout: Option<Duration>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (not one of ours).
    Signaled(i32),
    /// It ran past `--timeout` and was stopped.
    TimedOut,
    /// dbrace was asked to stop (this signal) and stopped it.
    Interrupted(i32),
}

impl Ending {
    /// Whether the run succeeded.
    pub fn ok(self) -> bool {
        self == Ending::Exited(0)
    }
}

/// A finished run.
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    /// From spawn to exit.
    pub wall: Duration,
    /// User CPU of the command and the children it waited for.
    pub user: Duration,
    /// System CPU of the command and the children it waited for.
    pub system: Duration,
    /// How it ended.
    pub ending: Ending,
}

/// After SIGTERM, how long the command's group has before SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// Run the command to its end, a timeout, or a signal to dbrace.
pub fn run(s: &Spawn) -> Result<Timed> {
    let mut cmd = command(s)?;
    let start = Instant::now();
    let child = spawn(&mut cmd, &s.argv[0])?;
    let pid = child.id();
    let (end, stopped) = wait_or_stop(pid, start, s.timeout);
    // What the command left running in its group goes too, before its pid (the group's
    // id) can be reused: a leftover must not run on into the next run.
    process::signal_group(pid, signal::KILL);
    let reaped = process::reap(pid).map_err(|e| failed!("cannot wait for the command: {e}"))?;
    drop(child);
    let ending = stopped.unwrap_or(match reaped.ending {
        Ok(code) => Ending::Exited(code),
        Err(sig) => Ending::Signaled(sig),
    });
    Ok(Timed { wall: end - start, user: reaped.user, system: reaped.system, ending })
}

/// The command as `s` asks for it, stdin empty, in a process group of its own that dies with dbrace.
fn command(s: &Spawn) -> Result<Command> {
    let mut cmd = Command::new(&s.argv[0]);
    cmd.args(&s.argv[1..]);
    for k in s.unset {
        cmd.env_remove(k);
    }
    cmd.envs(s.env.iter().map(|(k, v)| (k, v)));
    cmd.stdin(Stdio::null());
    let (out, err) = output_pipes(s.output)?;
    cmd.stdout(out).stderr(err);
    // A group of its own: a timeout or Ctrl-C stops the whole tree it started, and the
    // terminal's Ctrl-C reaches dbrace alone, which stops it in order. If dbrace dies, so
    // does the command, rather than run against a server gone.
    process::own_group(&mut cmd, signal::TERM);
    Ok(cmd)
}

/// The command's stdout and stderr: both into the file, or both onto dbrace's stderr.
fn output_pipes(output: Output) -> Result<(Stdio, Stdio)> {
    match output {
        Output::File(path) => {
            let f = std::fs::File::create(path).map_err(|e| failed!("cannot create {}: {e}", path.display()))?;
            let g = f.try_clone().map_err(|e| failed!("cannot create {}: {e}", path.display()))?;
            Ok((Stdio::from(f), Stdio::from(g)))
        }
        Output::Stderr => {
            let dup = || process::stderr_copy().map_err(|e| failed!("cannot share stderr: {e}"));
            Ok((dup()?, dup()?))
        }
    }
}

/// Start the command; bad input when `program` is not there to run.
fn spawn(cmd: &mut Command, program: &str) -> Result<Child> {
    cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad_input!("command '{program}' not found; install it, or give its path"),
        _ => failed!("cannot run '{program}': {e}"),
    })
}

/// Wait for `pid`'s exit, stopping its group on `timeout` or a signal: when, and why it was stopped.
fn wait_or_stop(pid: u32, start: Instant, timeout: Option<Duration>) -> (Instant, Option<Ending>) {
    // Waiting in a thread of its own marks the exit the moment it happens, while this one
    // watches the clock and the signals.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send((process::wait_exit(pid), Instant::now()));
    });
    let mut stopping: Option<(Ending, Instant)> = None;
    let end = loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok((_, end)) => break end,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Instant::now(),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        match stopping {
            None => {
                if let Some(why) = reason_to_stop(start, timeout) {
                    process::signal_group(pid, signal::TERM);
                    stopping = Some((why, Instant::now()));
                }
            }
            Some((_, since)) if since.elapsed() >= GRACE => process::signal_group(pid, signal::KILL),
            Some(_) => {}
        }
    };
    (end, stopping.map(|(why, _)| why))
}

/// Why a command started at `start` should stop now: a signal to dbrace, or its timeout.
fn reason_to_stop(start: Instant, timeout: Option<Duration>) -> Option<Ending> {
    match (crate::signals::pending(), timeout) {
        (Some(sig), _) => Some(Ending::Interrupted(sig)),
        (None, Some(t)) if start.elapsed() >= t => Some(Ending::TimedOut),
        _ => None,
    }
}

/// The last lines of a run's output (at most 20 lines, 4 KiB), for a failure's report.
pub fn tail(path: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    const MAX: u64 = 4096;
    let Ok(mut f) = std::fs::File::open(path) else { return String::new() };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(MAX)));
    let mut bytes = Vec::new();
    let _ = f.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    // A cut first line is dropped, unless it is all there is.
    let skip = usize::from(len > MAX && lines.len() > 1);
    let keep = &lines[skip..];
    keep[keep.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_sh(script: &str, timeout: Option<Duration>, out: &Path) -> Timed {
        let argv = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let env = vec![("DBRACE_TEST_VAR".to_string(), "seen".to_string())];
        run(&Spawn { argv: &argv, env: &env, unset: &["HOME"], output: Output::File(out), timeout }).unwrap()
    }

    #[test]
    fn exit_codes_output_env_and_cpu_of_the_whole_tree() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let t = run_sh("echo $DBRACE_TEST_VAR ${HOME:-nohome}; echo oops >&2; exit 3", None, &out);
        assert_eq!(t.ending, Ending::Exited(3));
        assert_eq!(tail(&out), "seen nohome\noops");
        // A grandchild's CPU counts once its parent waited for it.
        let t = run_sh("sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'", None, &out);
        assert!(t.ending.ok());
        assert!(t.user + t.system > Duration::from_millis(20), "{t:?}");
    }

    #[test]
    fn a_timeout_stops_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let t = run_sh(&script, Some(Duration::from_millis(300)), &out);
        assert_eq!(t.ending, Ending::TimedOut);
        assert!(t.wall < Duration::from_secs(5), "{t:?}");
        let pid: u32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        // The background sleep was in the group: gone (or a zombie of init's, briefly).
        std::thread::sleep(Duration::from_millis(100));
        assert!(crate::platform::procs::exited(pid));
    }

    #[test]
    fn tails_keep_the_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&p, text).unwrap();
        let t = tail(&p);
        assert!(t.starts_with("line 81\n") && t.ends_with("line 100"), "{t}");
        assert_eq!(tail(&dir.path().join("missing")), "");
    }
}
