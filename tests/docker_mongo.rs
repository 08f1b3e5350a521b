//! `--launcher docker` for mongo: containers of the local test image (SecantusDB behind
//! the official mongo image's contract, from scripts/test-images). Its server has no unix
//! socket, so the cells run with `--transport tcp`; the socket path is refused with that
//! fix. These tests need a Docker daemon and the images; without them they fail with the
//! fix, never pass.

mod common;

use common::docker::{MONGO_IMAGE, containers_of, require_docker, settle_killed, volumes_of, wait_for};
use common::{Sandbox, read_json};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Python with pymongo that scripts/test installs.
const PYTHON: &str = "/opt/dbrace-test-venv/bin/python";

/// Nothing of dbrace process `pid` left: no container, no volume, no data directory.
fn nothing_left(sb: &Sandbox, pid: u32) {
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(volumes_of(pid).is_empty(), "left behind: {:?}", volumes_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run `workloads` under `profiles` once each in mongo containers over TCP, with `extra`
/// flags; the results, after checking every repeat passed its verify in a container.
fn run(sb: &Sandbox, profiles: &str, workloads: &str, extra: &[&str]) -> serde_json::Value {
    let out = sb.out("r.json");
    let mut c = sb.cmd(&["run", "-q", "--out", out.to_str().unwrap()]);
    c.args(["-e", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "--transport", "tcp", "-p", profiles])
        .args(["-w", workloads, "--repeat", "1", "-T", "1s", "--warmup", "0s"])
        .args(extra);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r = read_json(&out);
    for cell in r["cells"].as_array().unwrap() {
        for rep in cell["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{rep}");
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
            let s = &rep["settings"];
            assert_eq!(s["launcher"], "docker", "{s}");
            assert_eq!(s["image"], MONGO_IMAGE.split_once('=').unwrap().1, "{s}");
            assert!(s["image_id"].as_str().unwrap().starts_with("sha256:"), "{s}");
            assert_eq!(s["network"], "host", "{s}");
            assert!(s["transport"].as_str().unwrap().starts_with("tcp 127.0.0.1:"), "{s}");
            // Read back from the server that answered: the stand-in says it is.
            assert_eq!(s["server_process"], "secantus", "{s}");
            assert_eq!(s["write_concern"], "{w: 1, j: true}", "{s}");
        }
    }
    r
}

/// The mounts a cell of `profile` recorded.
fn mounts<'a>(r: &'a serde_json::Value, profile: &str) -> Vec<&'a str> {
    let cells = r["cells"].as_array().unwrap().iter().filter(|c| c["profile"]["name"] == profile);
    cells
        .flat_map(|c| c["repeats"].as_array().unwrap())
        .map(|rep| rep["settings"]["mounts"].as_str().unwrap())
        .collect()
}

#[test]
fn disk_and_ram_verify_in_containers_from_the_template() {
    require_docker();
    let sb = Sandbox::new();
    let r = run(&sb, "disk,ram", "insert-commit,ycsb-b", &[]);
    assert_eq!(r["cells"].as_array().unwrap().len(), 4);
    for rep in r["cells"].as_array().unwrap().iter().flat_map(|c| c["repeats"].as_array().unwrap()) {
        assert_eq!(rep["settings"]["docker_init"], "template", "{}", rep["settings"]);
        assert!(rep["start_s"].as_f64().unwrap() > 0.0, "{rep}");
    }
    for m in mounts(&r, "disk") {
        assert!(m.starts_with("/data/db ") && m.contains(" bind ") && !m.contains("tmpfs"), "{m}");
    }
    // With a template, ram is its copy in the ram location: a host tmpfs, bind-mounted.
    for m in mounts(&r, "ram") {
        assert!(m.starts_with("/data/db tmpfs bind "), "{m}");
    }
}

#[test]
fn fresh_containers_init_the_root_user_themselves_on_a_tmpfs_and_a_volume() {
    require_docker();
    let sb = Sandbox::new();
    let r = run(&sb, "ram", "insert-commit", &["--docker-init", "fresh"]);
    let m = mounts(&r, "ram");
    assert!(m.iter().all(|m| m.starts_with("/data/db tmpfs ") && !m.contains("bind")), "docker's own tmpfs: {m:?}");
    let r = run(&sb, "disk", "ycsb-a", &["--docker-init", "fresh", "--docker-disk", "volume"]);
    let m = mounts(&r, "disk");
    assert!(m.iter().all(|m| m.starts_with("/data/db volume dbrace-")), "{m:?}");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn the_socket_path_is_refused_with_the_fix_for_an_image_without_one() {
    require_docker();
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let o = sb
        .cmd(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "-p", "ram", "-w", "insert-commit"])
        .args(["--repeat", "1", "-T", "1s", "--warmup", "0s"])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot listen on a unix socket") && err.contains("--transport tcp"), "{err}");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn exec_hands_pymongo_the_containers_mongodb_uri() {
    require_docker();
    let sb = Sandbox::new();
    let seen = sb.out("seen");
    let script = format!(
        "import os, pymongo\n\
         u = os.environ['MONGODB_URI']; assert u == os.environ['DATABASE_URL']\n\
         db = pymongo.MongoClient(u, serverSelectionTimeoutMS=5000).get_default_database()\n\
         db.t.insert_one({{'a': 1}})\n\
         open({seen:?}, 'a').write('%s %d %s\\n' % (db.name, db.t.count_documents({{}}), u.split('@')[1]))",
        seen = seen.display().to_string()
    );
    let args = ["exec", "-q", "-e", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "-p", "disk,ram"];
    let mut c = sb.spawn(&[&args[..], &["-r", "1", "--warmup", "0", "--", PYTHON, "-c", &script]].concat());
    let child = c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    let lines = std::fs::read_to_string(&seen).unwrap_or_default();
    assert!(o.status.success(), "{}\n{lines}", text(&o.stderr));
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 2, "one run per profile: {lines:?}");
    for l in lines {
        // A fresh server each run: the command's one document is the only one.
        assert!(l.starts_with("dbrace 1 127.0.0.1:") && l.ends_with("/dbrace?authSource=admin"), "{l}");
    }
    nothing_left(&sb, pid);
}

#[test]
fn serve_prints_a_mongodb_uri_pymongo_reaches_and_sigterm_removes_the_container() {
    require_docker();
    let sb = Sandbox::new();
    let mut child = sb
        .spawn(&["serve", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "-p", "ram"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut exports = String::new();
    child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
    let line = exports.lines().find(|l| l.starts_with("export MONGODB_URI=")).unwrap_or_else(|| panic!("{exports}"));
    let url = line.split_once('=').unwrap().1.trim_matches('\'');
    assert!(url.starts_with("mongodb://dbrace:") && url.contains("@127.0.0.1:"), "{exports}");
    let probe = "import sys, pymongo; c = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000); \
                 print(c.admin.command('serverStatus')['process'], c.get_default_database().t.insert_one({}).acknowledged)";
    let o = Command::new(PYTHON).args(["-c", probe]).arg(url).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), "secantus True", "the container's server");
    assert_eq!(containers_of(pid).len(), 1, "{:?}", containers_of(pid));
    common::signal(pid as i32, libc::SIGTERM);
    let start = Instant::now();
    let status = child.wait().unwrap();
    assert!(start.elapsed() < Duration::from_secs(30), "stopped promptly");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    let password = url.split_once("dbrace:").unwrap().1.split_once('@').unwrap().0;
    assert!(!err.contains(password), "the password is not on stderr: {err}");
    nothing_left(&sb, pid);
}

/// A long mongo run in containers (on volumes for disk), in the background.
fn long_run(sb: &Sandbox) -> (Child, std::path::PathBuf) {
    let out = sb.out("long.json");
    let child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "--transport", "tcp"])
        .args(["-p", "disk,ram", "--docker-disk", "volume", "-w", "insert-commit", "-T", "0.5s", "--warmup", "0s"])
        .args(["-r", "50"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, out)
}

#[test]
fn sigterm_mid_run_leaves_nothing() {
    require_docker();
    let sb = Sandbox::new();
    let (mut child, out) = long_run(&sb);
    let pid = child.id();
    sb.wait_past_preflight(&out);
    wait_for("a measured container", || !containers_of(pid).is_empty());
    common::signal(pid as i32, libc::SIGTERM);
    assert_eq!(child.wait().unwrap().code(), Some(143));
    assert_eq!(read_json(&out)["status"], "interrupted");
    nothing_left(&sb, pid);
}

#[test]
fn what_sigkill_leaves_is_removed_by_clean() {
    require_docker();
    let sb = Sandbox::new();
    let (mut child, out) = long_run(&sb);
    let pid = child.id();
    sb.wait_past_preflight(&out);
    wait_for("a measured container", || !containers_of(pid).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    settle_killed(pid);
    let clean = sb.cmd(&["clean"]).assert().success();
    let said = text(&clean.get_output().stdout);
    assert!(containers_of(pid).is_empty(), "not removed: {:?}: {said}", containers_of(pid));
    assert!(volumes_of(pid).is_empty(), "not removed: {:?}: {said}", volumes_of(pid));
    assert!(sb.leftovers().is_empty(), "not reaped {:?}: {said}", sb.leftovers());
}
