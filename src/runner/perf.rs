//! `perf record` of the whole machine for a server's processes: started, and answering
//! on its control fifo, before the clients connect, so its task events name the backends
//! and threads the server starts for them; stopped and read with `perf script` once the
//! repeat is over; only the server's samples stamped (on the monotonic clock) within the
//! measured phase are kept. Sampling every CPU rather than the server's tasks: per-task
//! events are switched in and out with their task, and in a VM, where that reprograms a
//! timer each time, that halved a commit-bound cell's tps (per-CPU events cost it none).

use crate::hotspots::{Hotspots, folded};
use crate::instance::datadir::scratch;
use crate::platform::{process, procs};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Samples a second of a thread on a CPU: odd, so they do not beat with the server's
/// timers.
pub const FREQUENCY: u32 = 999;

/// How long perf may take to attach and answer.
const READY_WITHIN: Duration = Duration::from_secs(10);

/// How long perf may take to write its samples once told to stop.
const STOP_WITHIN: Duration = Duration::from_secs(10);

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// A perf attached to a server, and its files.
pub struct Recorder {
    child: Option<Child>,
    /// The measured phase on the monotonic clock, as it begins and ends.
    window: (Option<f64>, Option<f64>),
    files: [PathBuf; 4],
    /// The server's processes as perf started: theirs and their descendants' samples are
    /// the ones kept.
    roots: Vec<u32>,
}

impl Recorder {
    /// perf attached to `pids`, its files dbrace's scratch files in `dir` (a killed run's
    /// are removed by the next). Why it cannot run, in one line with the fix, when it
    /// cannot.
    pub fn start(pids: &[u32], dir: &Path) -> Result<Recorder, String> {
        if pids.is_empty() {
            return Err("the server's processes are not dbrace's to sample (a --url server, an embedded engine)".into());
        }
        let files = ["data", "err", "ctl", "ack"].map(|e| scratch(dir, &format!("perf-{e}")));
        let err = std::fs::File::create(&files[1]).map_err(|e| e.to_string())?;
        let [ctl, ack] = [&files[2], &files[3]].map(|f| fifo(f));
        let mut cmd = Command::new("perf");
        let freq = FREQUENCY.to_string();
        cmd.args(["record", "-e", "cpu-clock", "-F", &freq, "-g", "-k", "monotonic", "-a"]);
        cmd.arg("--control").arg(format!("fifo:{},{}", files[2].display(), files[3].display()));
        cmd.arg("-o").arg(&files[0]);
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(err);
        process::own_group(&mut cmd, SIGTERM);
        let child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "perf is not installed; apt-get install linux-perf".to_string(),
            _ => format!("cannot start perf: {e}"),
        })?;
        let mut r = Recorder { child: Some(child), window: (None, None), files, roots: pids.to_vec() };
        let (Ok(ctl), Ok(ack)) = (ctl, ack) else { return Err("cannot make perf's control fifos".into()) };
        r.await_ready(ctl, ack)?;
        Ok(r)
    }

    /// Wait until perf answers a ping (it is attached), failing with its own words when it
    /// exits instead (a refused perf_event_open).
    fn await_ready(&mut self, mut ctl: File, ack: File) -> Result<(), String> {
        let (tx, rx) = std::sync::mpsc::channel();
        // A blocked read has no deadline of its own: the reader is left behind if perf
        // never answers, and its fifo is removed with the recorder.
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = tx.send(BufReader::new(ack).read_line(&mut line).map(|_| line));
        });
        let _ = ctl.write_all(b"ping\n");
        let deadline = Instant::now() + READY_WITHIN;
        while Instant::now() < deadline {
            if let Ok(Ok(line)) = rx.recv_timeout(Duration::from_millis(50)) {
                return if line.starts_with("ack") { Ok(()) } else { Err(format!("perf answered '{}'", line.trim())) };
            }
            if self.child.as_mut().is_some_and(|c| c.try_wait().ok().flatten().is_some()) {
                return Err(self.refused());
            }
        }
        Err(format!("perf did not attach within {} s", READY_WITHIN.as_secs()))
    }

    /// Why perf exited at start, in its own words, with the fix.
    fn refused(&mut self) -> String {
        self.child = None;
        let said = std::fs::read_to_string(&self.files[1]).unwrap_or_default();
        let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim().to_string();
        format!("perf could not sample the server ({first}); as root: sysctl kernel.perf_event_paranoid=0")
    }

    /// The measured phase begins (`true`) or ends: the samples kept lie between.
    pub fn measuring(&mut self, on: bool) {
        let now = crate::platform::cpu::monotonic_s();
        if on { self.window.0 = now } else { self.window.1 = now }
    }

    /// Stop perf and read what it sampled.
    pub fn finish(mut self) -> Result<Hotspots, String> {
        let child = self.child.take().ok_or("perf is not running")?;
        let pid = child.id();
        process::signal(pid, SIGINT);
        let deadline = Instant::now() + STOP_WITHIN;
        while !procs::exited(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        if !procs::exited(pid) {
            process::signal(pid, 9);
        }
        let reaped = process::reap(pid).map_err(|e| format!("perf: {e}"))?;
        let perf_cpu_s = Some((reaped.user + reaped.system).as_secs_f64());
        let out = Command::new("perf")
            .args(["script", "--show-task-events", "-i"])
            .arg(&self.files[0])
            .args(["-F", "comm,pid,tid,time,ip,sym,dso"])
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("perf script: {e}"))?;
        let (Some(from), Some(to)) = self.window else { return Err("no measured phase was marked".into()) };
        let (stacks, samples) = folded::fold(&String::from_utf8_lossy(&out.stdout), (from, to), &self.roots);
        Ok(Hotspots { samples, perf_cpu_s, stacks, ..Hotspots::default() })
    }
}

/// A fifo at `path`, opened for reading and writing so that neither end blocks on opening.
fn fifo(path: &Path) -> std::io::Result<File> {
    let made = Command::new("mkfifo").arg(path).stderr(Stdio::null()).status()?;
    if !made.success() {
        return Err(std::io::Error::other("mkfifo failed"));
    }
    std::fs::OpenOptions::new().read(true).write(true).open(path)
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}
