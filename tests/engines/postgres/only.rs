//! PostgreSQL's own tests, beyond the conformance suite: the run-as user, the protocols,
//! relative locations.

use super::{ENGINE, require_binaries};
use crate::common::{Sandbox, is_root, read_json, user_ids};
use std::process::Command;

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
    // SAFETY: geteuid(2) takes nothing and cannot fail.
    let mut uid = unsafe { libc::geteuid() };
    if uid == 0 {
        let (u, g) = user_ids("postgres");
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
    assert!(sb.no_servers(ENGINE.server_process));
}

#[test]
fn a_missing_run_as_user_is_bad_input() {
    require_binaries();
    if !is_root() {
        return; // --run-as matters only to root; as anyone else servers run as that user
    }
    let sb = Sandbox::new();
    let o = sb.cmd(&["run", "-q", "-e", "postgres", "--run-as", "no_such_user_dbrace"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--run-as no_such_user_dbrace: no such user"), "{err}");
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
