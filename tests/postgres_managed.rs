//! Throwaway PostgreSQL servers: every profile, settings read back, data where the profile
//! says, nothing left behind after a normal end, Ctrl-C or SIGKILL. scripts/test installs
//! the server binaries when they are missing.

mod common;

use common::{Sandbox, read_json};
use std::process::Command;
use std::time::{Duration, Instant};

const PG: &[&str] = &["postgres"];

fn require_binaries() {
    let found = std::fs::read_dir("/usr/lib/postgresql").map(|mut d| d.next().is_some()).unwrap_or(false);
    assert!(
        found,
        "PostgreSQL server binaries missing: run scripts/test, which installs them (apt-get install postgresql)"
    );
}

#[test]
fn every_profile_runs_verifies_and_reads_back() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("pg.json");
    sb.cmd(&[
        "run",
        "-q",
        "-e",
        "postgres",
        "-p",
        "disk,ram,async,nosync,ram-nosync,unlogged,wal-ram",
        "-w",
        "tpcb,insert-commit",
    ])
    .args(["-c", "2", "-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
    .assert()
    .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 14);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 100);
    }
    let s = |p: &str| {
        cells.iter().find(|c| c["id"] == format!("postgres/{p}/tpcb/c2")).unwrap()["repeats"][0]["settings"].clone()
    };
    let (disk, ram) = (sb.disk.path().to_string_lossy().to_string(), sb.ram.path().to_string_lossy().to_string());
    assert!(s("disk")["data_directory"].as_str().unwrap().starts_with(&disk), "{}", s("disk"));
    assert!(s("ram")["data_directory"].as_str().unwrap().starts_with(&ram), "{}", s("ram"));
    // wal-ram: data on disk, the WAL really on tmpfs.
    assert!(s("wal-ram")["data_directory"].as_str().unwrap().starts_with(&disk), "{}", s("wal-ram"));
    let wal = s("wal-ram")["pg_wal"].as_str().unwrap().to_string();
    assert!(wal.starts_with(&ram) && wal.ends_with("(tmpfs)"), "{wal}");
    let disk_fs = r["locations"][0]["fs_type"].as_str().unwrap();
    assert!(s("disk")["pg_wal"].as_str().unwrap().ends_with(&format!("({disk_fs})")), "{}", s("disk"));
    assert_eq!((s("disk")["fsync"].as_str(), s("disk")["synchronous_commit"].as_str()), (Some("on"), Some("on")));
    assert_eq!(s("async")["synchronous_commit"], "off");
    assert_eq!(s("async")["fsync"], "on");
    for p in ["nosync", "ram-nosync"] {
        assert_eq!((s(p)["fsync"].as_str(), s(p)["full_page_writes"].as_str()), (Some("off"), Some("off")), "{p}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(PG));
}

#[test]
fn a_set_value_reaches_the_server_and_a_bad_one_is_bad_input() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("pg.json");
    sb.cmd(&["run", "-q", "-e", "postgres", "-p", "ram", "-w", "insert-commit", "--set", "shared_buffers=64MB"])
        .args(["-T", "0.2s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(read_json(&out)["cells"][0]["repeats"][0]["settings"]["shared_buffers"], "64MB");
    let o = sb.cmd(&["run", "-q", "-e", "postgres", "-p", "ram", "--set", "shared_buffers=lots"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("shared_buffers") && err.contains("--set"), "{err}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

/// As a user other than root (`postgres`, when the suite runs as root) servers run as that
/// user, from a template in its own cache, and dbrace announces nothing.
#[test]
fn a_non_root_user_runs_its_servers_itself() {
    require_binaries();
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    let sb = Sandbox::new();
    let home = tempfile::Builder::new().prefix("dbrace-test-home-").tempdir_in("/var/tmp").unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("dbrace"));
    let mut uid = unsafe { libc::geteuid() };
    if uid == 0 {
        let name = std::ffi::CString::new("postgres").unwrap();
        let pw = unsafe { libc::getpwnam(name.as_ptr()) };
        assert!(!pw.is_null(), "no 'postgres' user: install postgresql (scripts/test does)");
        let (u, g) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
        for d in [home.path(), sb.disk.path(), sb.ram.path()] {
            std::os::unix::fs::chown(d, Some(u), Some(g)).unwrap();
        }
        cmd.uid(u).gid(g).env("USER", "postgres");
        uid = u;
    }
    let out = home.path().join("pg.json");
    cmd.env("XDG_CACHE_HOME", home.path()).env("HOME", home.path());
    cmd.args(["run", "-q", "-e", "postgres", "-p", "disk,ram", "-w", "tpcb", "-c", "2", "-t", "50", "--warmup", "0s"]);
    cmd.args(["-r", "1", "--out", out.to_str().unwrap(), "--disk-dir"]).arg(sb.disk.path()).arg("--ram-dir");
    cmd.arg(sb.ram.path());
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("refuses root"), "{err}");
    let r = read_json(&out);
    for c in r["cells"].as_array().unwrap() {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
    }
    let templates: Vec<_> = std::fs::read_dir(home.path().join("dbrace/templates")).unwrap().flatten().collect();
    assert_eq!(templates.len(), 1, "{templates:?}");
    assert_eq!(templates[0].metadata().unwrap().uid(), uid, "the template belongs to the user who ran dbrace");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(PG));
}

#[test]
fn a_missing_run_as_user_is_bad_input() {
    require_binaries();
    if unsafe { libc::geteuid() } != 0 {
        return; // --run-as matters only to root; as anyone else servers run as that user
    }
    let sb = Sandbox::new();
    let o = sb.cmd(&["run", "-q", "-e", "postgres", "--run-as", "no_such_user_dbrace"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--run-as no_such_user_dbrace: no such user"), "{err}");
}

#[test]
fn interrupted_and_killed_runs_leave_no_server_and_no_directory() {
    require_binaries();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let sb = Sandbox::new();
        let out = sb.out("pg.json");
        let mut child =
            sb.spawn_run(&out, &["-e", "postgres", "-p", "disk,ram", "-w", "tpcb", "-T", "0.5s", "-r", "20"]);
        let start = Instant::now();
        while sb.no_servers(PG) {
            assert!(start.elapsed() < Duration::from_secs(30), "no server started");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        if signal != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + signal));
        }
        // The parent-death signal takes the server down even after SIGKILL.
        let start = Instant::now();
        while !(sb.no_servers(PG)) {
            assert!(start.elapsed() < Duration::from_secs(10), "server left running after signal {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
        if signal == libc::SIGKILL {
            sb.clean_reaps_a_killed_run();
        }
        assert!(sb.leftovers().is_empty(), "signal {signal} left {:?}", sb.leftovers());
    }
}

#[test]
fn a_server_killed_mid_run_fails_its_cell_and_the_run_goes_on() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("pg.json");
    let child = sb.spawn_run(&out, &["-e", "postgres", "-p", "disk,ram", "-w", "insert-commit", "-T", "2s", "-r", "1"]);
    sb.wait_past_preflight(&out);
    let start = Instant::now();
    let pid = loop {
        let ps = Command::new("ps").args(["-eo", "pid=,comm=,args="]).output().unwrap();
        let text = String::from_utf8_lossy(&ps.stdout).to_string();
        let disk = sb.disk.path().to_string_lossy().to_string();
        if let Some(l) = text.lines().find(|l| l.split_whitespace().nth(1) == Some("postgres") && l.contains(&disk)) {
            break l.split_whitespace().next().unwrap().parse::<i32>().unwrap();
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no disk server");
        std::thread::sleep(Duration::from_millis(20));
    };
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(1), "a failed cell makes the run fail");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells[0]["repeats"][0]["status"], "failed", "{}", cells[0]);
    assert!(!cells[0]["repeats"][0]["error"].as_str().unwrap().is_empty());
    assert_eq!(cells[1]["repeats"][0]["status"], "ok", "{}", cells[1]);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn every_protocol_runs_and_is_recorded() {
    require_binaries();
    let sb = Sandbox::new();
    for protocol in ["simple", "extended", "prepared"] {
        let out = sb.out(&format!("{protocol}.json"));
        sb.cmd(&["run", "-q", "-e", "postgres", "-p", "ram", "-w", "tpcb", "--protocol", protocol, "-t", "50"])
            .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
            .assert()
            .success();
        let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
        assert_eq!(rep["settings"]["protocol"], protocol);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{protocol}: {}", rep["verify"]);
    }
}

#[test]
fn tcp_transport_uses_a_free_port_and_a_password_nobody_sees() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("tcp.json");
    let run = sb
        .cmd(&["run", "-e", "postgres", "-p", "ram", "-w", "insert-commit", "--transport", "tcp", "-t", "50"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    let via = r["cells"][0]["repeats"][0]["settings"]["transport"].as_str().unwrap().to_string();
    assert!(via.starts_with("tcp 127.0.0.1:") && !via.ends_with(":5432"), "{via}");
    // The client really authenticated with the random password: the role has one now
    // (SCRAM over TCP refuses a role without), and the run verified.
    assert!(r["cells"][0]["repeats"][0]["verify"]["ok"].as_bool().unwrap());
    assert_eq!(run.get_output().status.code(), Some(0));
}

/// Locations given as relative paths are where the user meant, for dbrace and the server
/// alike (the server's socket once went to a path relative to its own directory).
#[test]
fn relative_locations_are_taken_from_the_working_directory() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("relative.json");
    let name = |d: &tempfile::TempDir| d.path().file_name().unwrap().to_owned();
    assert_cmd::Command::cargo_bin("dbrace")
        .unwrap()
        .env("XDG_CACHE_HOME", sb.cache.path())
        .env_remove("HOME")
        .current_dir(sb.disk.path().parent().unwrap())
        .arg("run")
        .arg("--disk-dir")
        .arg(name(&sb.disk))
        .arg("--ram-dir")
        .arg(std::path::Path::new("/dev/shm").join(name(&sb.ram)))
        .args(["-q", "-e", "postgres", "-p", "disk", "-w", "insert-commit", "-t", "20", "--warmup", "0s", "-r", "1"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(rep["status"], "ok", "{rep}");
    let disk = sb.disk.path().to_string_lossy().to_string();
    assert!(rep["settings"]["data_directory"].as_str().unwrap().starts_with(&disk), "{}", rep["settings"]);
    assert_eq!(r["locations"][0]["path"].as_str(), Some(disk.as_str()));
}
