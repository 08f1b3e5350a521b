//! Helpers for integration tests: the real binary, with disk and ram locations of the
//! test's own so tests never share data directories.

#![allow(dead_code)]

pub mod docker;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A test's own disk dir (under target/, a real disk), ram dir (under /dev/shm) and cache.
pub struct Sandbox {
    pub disk: TempDir,
    pub ram: TempDir,
    pub cache: TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
        // As root, servers run as `postgres`, which must reach the data: the checkout may
        // sit under root's 0700 home, /var/tmp (on disk) does not.
        let disk_base = if unsafe { libc::geteuid() } == 0 { Path::new("/var/tmp") } else { target };
        let open = |d: TempDir| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            d
        };
        Sandbox {
            disk: open(tempfile::Builder::new().prefix("dbrace-test-disk-").tempdir_in(disk_base).unwrap()),
            ram: open(tempfile::Builder::new().prefix("dbrace-test-ram-").tempdir_in("/dev/shm").unwrap()),
            cache: tempfile::Builder::new().prefix("cache-").tempdir_in(target).unwrap(),
        }
    }

    /// `dbrace` with this sandbox's cache; `run`, `engines`, `clean`, `exec` and `serve` also
    /// get its locations (right after the subcommand: exec's command takes what follows it).
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("dbrace").unwrap();
        // Tests run in GitHub Actions must not append their reports to the job's summary.
        c.env("XDG_CACHE_HOME", self.cache.path()).env_remove("HOME").env_remove("GITHUB_STEP_SUMMARY");
        c.args(self.with_locations(args));
        c
    }

    /// `args` with this sandbox's locations after the subcommand, when it takes them.
    pub fn with_locations(&self, args: &[&str]) -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        if matches!(args.first(), Some(&"run" | &"engines" | &"clean" | &"exec" | &"serve")) {
            let locations = ["--disk-dir".into(), self.disk.path().into(), "--ram-dir".into(), self.ram.path().into()];
            v.splice(1..1, locations);
        }
        v
    }

    /// `dbrace ARGS` (with this sandbox's cache and locations) in the background.
    pub fn spawn(&self, args: &[&str]) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("dbrace"));
        c.env("XDG_CACHE_HOME", self.cache.path()).env_remove("GITHUB_STEP_SUMMARY").args(self.with_locations(args));
        c
    }

    /// `dbrace run ARGS --out OUT` in the background, quiet, in this sandbox's locations.
    pub fn spawn_run(&self, out: &Path, args: &[&str]) -> std::process::Child {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("dbrace"))
            .env("XDG_CACHE_HOME", self.cache.path())
            .args(["run", "-q", "--out", out.to_str().unwrap()])
            .args(args)
            .arg("--disk-dir")
            .arg(self.disk.path())
            .arg("--ram-dir")
            .arg(self.ram.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    /// A path for a results file inside the sandbox.
    pub fn out(&self, name: &str) -> PathBuf {
        self.cache.path().join(name)
    }

    /// After a run was SIGKILLed: `dbrace clean` removes what it left, and leaves nothing.
    /// (A kill that lands between two repeats leaves nothing to remove.)
    pub fn clean_reaps_a_killed_run(&self) {
        let left = self.leftovers();
        let next = self.cmd(&["clean"]).assert().success();
        let said = String::from_utf8_lossy(&next.get_output().stdout).to_string();
        assert!(left.is_empty() || said.contains("removed 1 leftover"), "{left:?}: {said}");
        assert!(self.leftovers().is_empty(), "not reaped {:?}: {said}", self.leftovers());
    }

    /// Data directories and scratch files left in either location.
    pub fn leftovers(&self) -> Vec<PathBuf> {
        [self.disk.path(), self.ram.path()]
            .iter()
            .flat_map(|d| std::fs::read_dir(d).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with("dbrace-run-") || name.starts_with(".dbrace-scratch-")
            })
            .collect()
    }
}

/// Server processes named one of `names` (by executable name: dbrace's own command line
/// names the engine too) whose command line mentions `dir`: (pid, ps line).
pub fn servers_under(names: &[&str], dir: &Path) -> Vec<(i32, String)> {
    let out = std::process::Command::new("ps").args(["-eo", "pid=,comm=,args="]).output().unwrap();
    let needle = dir.to_string_lossy().to_string();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.split_whitespace().nth(1).is_some_and(|c| names.contains(&c)) && l.contains(&needle))
        .map(|l| (l.split_whitespace().next().unwrap().parse().unwrap(), l.to_string()))
        .collect()
}

impl Sandbox {
    /// Whether no server named one of `names` runs in either location.
    pub fn no_servers(&self, names: &[&str]) -> bool {
        servers_under(names, self.disk.path()).is_empty() && servers_under(names, self.ram.path()).is_empty()
    }

    /// Wait until a background run has written its results file: the preflight servers
    /// are gone then, and the next server in a location is a measured one.
    pub fn wait_past_preflight(&self, out: &Path) {
        let start = std::time::Instant::now();
        while !out.exists() {
            assert!(start.elapsed().as_secs() < 60, "no results file: the run did not get past preflight");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Read a results file as JSON.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A repeat's `--log-interval` slices' transactions, the last (perhaps a sliver of the
/// measured time) left out, and their median.
pub fn whole_slices(repeat: &serde_json::Value) -> (Vec<u64>, u64) {
    let mut slices: Vec<u64> =
        repeat["intervals"].as_array().unwrap().iter().map(|i| i["transactions"].as_u64().unwrap()).collect();
    slices.pop();
    let mut sorted = slices.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    (slices, median)
}

/// Short timings so the suite stays fast; correctness, not speed, is asserted.
pub const QUICK: &[&str] = &["-q", "--duration", "0.3s", "--warmup", "0.05s"];

/// Send signal `sig` to process `pid`.
pub fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) takes two integers and touches no memory of this process.
    unsafe { libc::kill(pid, sig) };
}

/// Whether the tests run as root (servers then run as their engine's own user).
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) takes nothing and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The uid and gid of `user` (a server's run-as user, when the tests run as root).
pub fn user_ids(user: &str) -> (u32, u32) {
    let name = std::ffi::CString::new(user).unwrap();
    // SAFETY: getpwnam(3) reads a NUL-terminated name and returns null or a pointer to a
    // static record, read at once and before any other getpw* call.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    assert!(!pw.is_null(), "no '{user}' user: install its server (scripts/test does)");
    // SAFETY: not null, so a valid record (see above).
    unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
}
