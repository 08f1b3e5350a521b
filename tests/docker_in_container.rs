//! dbrace itself in a container, as docs/docker.md tells a Docker Desktop user to run it:
//! the daemon's socket mounted, the host's network and process ids, and dbrace's shared
//! and ram directories mounted at the same paths, so the daemon finds what dbrace lays out
//! for its servers' containers. The image is the Dockerfile's first stage, built by
//! scripts/dbrace-image from this test's binary on the local Debian base image.

mod common;

use common::docker::{containers_of, require_docker, settle_killed, wait_until};
use std::path::Path;
use std::process::{Command, Stdio};

/// The test images of the engines, as `--image` flags.
const IMAGES: &[&str] = &[
    "--image=postgres=dbrace-test/postgres:15",
    "--image=mysql=dbrace-test/mariadb:10.11",
    "--image=redis=dbrace-test/redis:7",
    "--image=mongo=dbrace-test/mongo:secantus",
];

/// The dbrace image with this test's binary in it.
fn image() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/dbrace-image");
    let out = Command::new(script).arg(assert_cmd::cargo::cargo_bin("dbrace")).output().unwrap();
    assert!(out.status.success(), "scripts/dbrace-image: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `docker run` of the dbrace image named `name` with `args`, as docs/docker.md writes it.
fn dbrace_in_container(image: &str, name: &str, args: &[&str]) -> Command {
    std::fs::create_dir_all("/dev/shm/dbrace").unwrap();
    let mut c = Command::new("docker");
    c.args(["run", "--rm", "--name", name, "--network", "host", "--pid", "host"])
        .args(["-v", "/var/run/docker.sock:/var/run/docker.sock"])
        .args(["-v", "/var/tmp/dbrace:/var/tmp/dbrace", "-v", "/dev/shm/dbrace:/dev/shm/dbrace"])
        .arg(image)
        .args(args);
    c
}

/// The host pid of the dbrace process in container `name`, once it runs.
fn pid_in(name: &str) -> u32 {
    wait_until("dbrace's container to run", || {
        let out = Command::new("docker").args(["inspect", "-f", "{{.State.Pid}}", name]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok().filter(|p| *p > 0)
    })
}

#[test]
fn every_engine_on_disk_and_ram_from_a_container_and_nothing_left_however_it_ends() {
    require_docker();
    let image = image();
    let out = format!("/var/tmp/dbrace/in-container-{}.json", std::process::id());
    let run = ["run", "--launcher", "docker", "--run-as", "nobody", "--transport", "tcp", "-q"];
    let cells = ["-e", "postgres,mysql,redis,mongo", "-p", "disk,ram", "-w", "insert-commit", "-r", "1", "-T", "0.3s"];
    let name = format!("dbrace-test-in-container-{}", std::process::id());
    let mut c = dbrace_in_container(&image, &name, &run);
    let status = c.args(IMAGES).args(cells).args(["--out", &out]).stdout(Stdio::null()).status().unwrap();
    assert!(status.success());
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    let ids: Vec<&str> = r["cells"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 8, "{ids:?}");
    for c in r["cells"].as_array().unwrap() {
        assert_eq!(c["repeats"][0]["status"], "ok", "{}", c["id"]);
        assert_eq!(c["repeats"][0]["settings"]["launcher"], "docker", "{}", c["id"]);
    }

    // exec: the command runs in dbrace's container and reaches the server on 127.0.0.1.
    let reach = "exec 3<>/dev/tcp/127.0.0.1/$PGPORT";
    let mut c = dbrace_in_container(&image, &name, &["exec", "--launcher", "docker", "--run-as", "nobody", "-q"]);
    let status = c.args(IMAGES).args(["-p", "disk,ram", "-r", "1", "--warmup", "0", "--", "bash", "-c", reach]);
    assert!(status.stdout(Stdio::null()).status().unwrap().success());

    // SIGTERM to `docker run` reaches dbrace, which removes its servers' containers.
    let long = ["-e", "postgres", "-p", "disk", "-w", "insert-commit", "-T", "60s", "-r", "1"];
    let mut child = dbrace_in_container(&image, &name, &run).args(IMAGES).args(long).spawn().unwrap();
    let pid = pid_in(&name);
    wait_until("the server's container", || (!containers_of(pid).is_empty()).then_some(()));
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    assert!(containers_of(pid).is_empty(), "left after SIGTERM: {:?}", containers_of(pid));

    // SIGKILL leaves them; `dbrace clean` in a container removes them.
    let mut child = dbrace_in_container(&image, &name, &run).args(IMAGES).args(long).spawn().unwrap();
    let pid = pid_in(&name);
    wait_until("the server's container", || (!containers_of(pid).is_empty()).then_some(()));
    Command::new("docker").args(["kill", "--signal", "KILL", &name]).status().unwrap();
    child.wait().unwrap();
    settle_killed(pid);
    let clean = dbrace_in_container(&image, &name, &["clean"]).stdout(Stdio::null()).status().unwrap();
    assert!(clean.success());
    assert!(containers_of(pid).is_empty(), "left after clean: {:?}", containers_of(pid));
    let run_dir = format!("dbrace-run-{pid}-");
    for dir in ["/var/tmp/dbrace/data", "/dev/shm/dbrace"] {
        let left =
            std::fs::read_dir(dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&run_dir));
        assert_eq!(left.count(), 0, "data of the killed run left in {dir}");
    }
}
