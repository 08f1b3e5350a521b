//! `--launcher docker`: postgres servers as containers of a local test image. These tests
//! need a Docker daemon and the images scripts/test-images builds; without them they fail
//! with the fix, never pass.

mod common;

use common::docker::{MARIADB_IMAGE, PG_IMAGE, REDIS_IMAGE, containers_of, require_docker, settle_killed, wait_for};
use common::{Sandbox, read_json};
use std::process::Command;

/// Run insert-commit once per profile of `engine` in containers of `image`
/// (`ENGINE=IMAGE`), check what every container cell records, hand each cell's profile,
/// settings and repeat to `check`, and see that nothing is left behind.
fn in_containers(image: &str, profiles: &str, check: impl Fn(&str, &serde_json::Value, &serde_json::Value)) {
    require_docker();
    let (engine, name) = image.split_once('=').unwrap();
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", engine, "--launcher", "docker", "--image", image, "-p", profiles])
        .args(["-w", "insert-commit", "--repeat", "1", "-T", "0.2s"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    assert!(child.wait().unwrap().success());
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), profiles.split(',').count(), "a cell per profile");
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{rep}");
        let (s, profile) = (&rep["settings"], c["profile"]["name"].as_str().unwrap());
        assert_eq!(s["launcher"], "docker", "{s}");
        assert_eq!(s["image"], name, "{s}");
        let mount = if profile == "ram" { "tmpfs" } else { "bind" };
        assert!(s["mounts"].as_str().unwrap().contains(mount), "{profile}: {s}");
        // The server's counters, and its processes by the container's control group, their
        // CPU from the group's own accounting: nanoseconds, where the processes' /proc
        // ticks would be whole hundredths of a second.
        let k = &rep["counters"];
        assert!(k["server"].as_object().is_some_and(|s| !s.is_empty()), "{profile}: {k}");
        let cpu = k["processes"]["cpu_s"].as_f64().unwrap_or_else(|| panic!("{profile}: no processes' CPU: {k}"));
        assert!(cpu > 0.0, "{profile}: {k}");
        assert!(((cpu * 100.0).round() - cpu * 100.0).abs() > 1e-9, "{profile}: {cpu} s is /proc's, not the group's");
        check(profile, s, rep);
    }
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn postgres_in_containers_on_disk_ram_and_nosync() {
    in_containers(PG_IMAGE, "disk,ram,nosync", |profile, s, rep| {
        assert!(s["image_id"].as_str().unwrap().starts_with("sha256:"), "{s}");
        // The default transport: the socket, from the host, of a container with no network.
        assert!(s["transport"].as_str().unwrap().starts_with("socket /"), "{s}");
        assert_eq!(s["network"], "none", "{s}");
        let fsync = if profile == "nosync" { "off" } else { "on" };
        assert_eq!(s["fsync"], fsync, "{profile}: {s}");
        assert!(rep["start_s"].as_f64().unwrap() > 0.0, "{rep}");
    });
}

#[test]
fn redis_in_containers_on_disk_ram_and_nosync() {
    in_containers(REDIS_IMAGE, "disk,ram,nosync", |profile, s, _| {
        assert_eq!(s["appendfsync"], if profile == "nosync" { "no" } else { "always" }, "{profile}: {s}");
    });
}

#[test]
fn a_missing_image_is_bad_input_in_one_line() {
    require_docker();
    let sb = Sandbox::new();
    let run = sb
        .cmd(&[
            "run",
            "-e",
            "postgres",
            "--launcher",
            "docker",
            "--image",
            "postgres=dbrace-test/nothing:0",
            "-p",
            "ram",
        ])
        .args(["-w", "insert-commit", "--repeat", "1", "-T", "0.2s", "--out", sb.out("r.json").to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("image dbrace-test/nothing:0 is not on this machine"), "{err}");
    assert!(err.contains("--image postgres=IMAGE"), "{err}");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
    let run =
        sb.cmd(&["run", "-e", "postgres", "--launcher", "docker", "--image", "cassandra=cassandra:5"]).assert().code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(err.contains("unknown engine 'cassandra'"), "{err}");
}

#[test]
fn mariadb_in_containers_on_disk_ram_nosync_and_wal_ram() {
    in_containers(MARIADB_IMAGE, "disk,ram,nosync,wal-ram", |profile, s, _| {
        let flush = if profile == "nosync" { "0" } else { "1" };
        assert_eq!(s["innodb_flush_log_at_trx_commit"], flush, "{profile}: {s}");
        if profile == "wal-ram" {
            assert!(s["mounts"].as_str().unwrap().contains("/var/lib/mysql-redo tmpfs"), "{s}");
            assert_eq!(s["innodb_log_group_home_dir"], "/var/lib/mysql-redo", "{s}");
        }
    });
}

/// A long docker run, in the background: (child, results file).
fn long_run(sb: &Sandbox) -> (std::process::Child, std::path::PathBuf) {
    let out = sb.out("r.json");
    let child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", "postgres", "--launcher", "docker", "--image", PG_IMAGE, "-p", "disk,ram"])
        .args(["-w", "insert-commit", "-T", "0.5s", "--warmup", "0s", "-r", "50"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    (child, out)
}

#[test]
fn sigterm_mid_run_leaves_no_container() {
    require_docker();
    let sb = Sandbox::new();
    let (mut child, out) = long_run(&sb);
    let pid = child.id();
    sb.wait_past_preflight(&out);
    wait_for("a measured container", || !containers_of(pid).is_empty());
    common::signal(pid as i32, libc::SIGTERM);
    assert_eq!(child.wait().unwrap().code(), Some(143));
    assert_eq!(read_json(&out)["status"], "interrupted");
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn a_container_left_by_sigkill_is_removed_by_clean() {
    require_docker();
    let sb = Sandbox::new();
    let (mut child, _) = long_run(&sb);
    let pid = child.id();
    wait_for("a container", || !containers_of(pid).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    settle_killed(pid);
    let clean = sb.cmd(&["clean"]).assert().success();
    let said = String::from_utf8_lossy(&clean.get_output().stdout).to_string();
    assert!(containers_of(pid).is_empty(), "not removed: {:?}: {said}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "not reaped {:?}: {said}", sb.leftovers());
}

#[test]
fn a_container_killed_mid_run_fails_its_repeat_with_its_log_and_the_run_goes_on() {
    require_docker();
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", "postgres", "--launcher", "docker", "--image", PG_IMAGE, "-p", "ram"])
        .args(["-w", "insert-commit", "-r", "3", "-T", "2s", "--warmup", "0s"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    sb.wait_past_preflight(&out);
    wait_for("a measured container", || !containers_of(pid).is_empty());
    let name = containers_of(pid).remove(0);
    assert!(Command::new("docker").args(["kill", &name]).output().unwrap().status.success());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let r = read_json(&out);
    let repeats = r["cells"][0]["repeats"].as_array().unwrap();
    assert_eq!(repeats.len(), 3, "{r}");
    let failed: Vec<_> = repeats.iter().filter(|rep| rep["status"] != "ok").collect();
    assert_eq!(failed.len(), 1, "{repeats:?}");
    assert!(failed[0]["error"].as_str().unwrap().contains("server.log"), "{}", failed[0]);
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn no_docker_or_no_daemon_is_bad_input_with_the_fix() {
    let sb = Sandbox::new();
    let args = ["run", "-e", "postgres", "--launcher", "docker", "-p", "ram", "-w", "insert-commit", "-T", "0.2s"];
    let empty = tempfile::tempdir().unwrap();
    let run = sb.cmd(&args).env("PATH", empty.path()).assert().code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(err.contains("docker not found; install it (apt-get install docker.io)"), "{err}");
    let run = sb.cmd(&args).env("DOCKER_HOST", "unix:///nonexistent/docker.sock").assert().code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(err.contains("no Docker daemon answers") && err.contains("dockerd"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// The filesystem type of `path` inside container `name`, as the server there sees it.
fn fs_inside(name: &str, path: &str) -> Option<String> {
    let out = Command::new("docker").args(["exec", name, "stat", "-f", "-c", "%T", path]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn ram_is_a_tmpfs_inside_the_container_from_a_template_and_fresh() {
    require_docker();
    let cases = [
        (PG_IMAGE, "/var/lib/postgresql/data", "template"),
        (PG_IMAGE, "/var/lib/postgresql/data", "fresh"),
        (MARIADB_IMAGE, "/var/lib/mysql", "template"),
        (MARIADB_IMAGE, "/var/lib/mysql", "fresh"),
        (REDIS_IMAGE, "/data", "template"),
    ];
    for (image, datadir, init) in cases {
        let sb = Sandbox::new();
        let out = sb.out("r.json");
        let engine = image.split_once('=').unwrap().0;
        let mut child = sb
            .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
            .args(["-e", engine, "--launcher", "docker", "--image", image, "--docker-init", init, "-p", "ram"])
            .args(["-w", "insert-commit", "-T", "3s", "--warmup", "0s", "-r", "1"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        // A template's maker runs on the templates directory, on disk: the cell's own
        // container is the one whose data directory is a tmpfs.
        let what = format!("{engine} {init}: a container whose {datadir} is a tmpfs");
        wait_for(&what, || containers_of(pid).iter().any(|n| fs_inside(n, datadir).as_deref() == Some("tmpfs")));
        assert!(child.wait().unwrap().success(), "{engine} {init}");
        assert_eq!(read_json(&out)["cells"][0]["repeats"][0]["status"], "ok", "{engine} {init}");
        assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    }
}
