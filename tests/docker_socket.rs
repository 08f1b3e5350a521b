//! `--launcher docker`'s network path: with `--transport socket` (the default) a container
//! has no network (`--network none`) and its server listens only on a unix socket in a
//! bind-mounted 0700 directory of the instance; with `--transport tcp`, host networking on
//! 127.0.0.1. Readiness never takes the image's temporary init server for the real one.
//! These tests need a Docker daemon and the images scripts/test-images builds; without
//! them they fail with the fix, never pass.

mod common;

use common::docker::{containers_of, require_docker, wait_until};
use common::{Sandbox, read_json};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The engines and the test images scripts/test-images builds for them.
const IMAGES: &[(&str, &str)] = &[
    ("postgres", "dbrace-test/postgres:15"),
    ("mysql", "dbrace-test/mariadb:10.11"),
    ("redis", "dbrace-test/redis:7"),
];

/// `docker ARGS`'s standard output; the test fails if docker does.
fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(out.status.success(), "docker {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The instance directories (`dbrace-run-*`) in the sandbox's locations.
fn instance_dirs(sb: &Sandbox) -> Vec<PathBuf> {
    sb.leftovers().into_iter().filter(|p| p.is_dir()).collect()
}

/// The host's listening TCP sockets as `ss -ltnpH` shows them, one a line.
fn host_listeners() -> Vec<String> {
    let out = Command::new("ss").args(["-ltnpH"]).output().expect("ss (iproute2) is needed: apt-get install iproute2");
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// What was seen of one container while its cell ran.
struct Seen {
    /// `docker inspect`'s HostConfig.NetworkMode.
    network_mode: String,
    /// Host listening sockets that belong to a process of the container.
    host_listeners: Vec<String>,
    /// The bind mount at /run/dbrace: its host directory, when there is one.
    socket_dir: Option<PathBuf>,
    /// Whether the container's processes share the host's network namespace.
    host_netns: bool,
}

/// What is seen of container `name` now; none once it is gone.
fn look(name: &str) -> Option<Seen> {
    let inspect = |format: &str| {
        let o = Command::new("docker").args(["inspect", "-f", format, name]).output().ok()?;
        o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let network_mode = inspect("{{.HostConfig.NetworkMode}}")?;
    let mounts: serde_json::Value = serde_json::from_str(&inspect("{{json .Mounts}}")?).ok()?;
    let socket_dir = mounts
        .as_array()?
        .iter()
        .find(|m| m["Destination"] == "/run/dbrace")
        .and_then(|m| m["Source"].as_str())
        .map(PathBuf::from);
    let out = Command::new("docker").args(["top", name, "-eo", "pid"]).output().ok()?;
    let pids: Vec<String> =
        String::from_utf8_lossy(&out.stdout).lines().skip(1).map(|l| l.trim().to_string()).collect();
    let first = pids.first()?;
    let own = std::fs::read_link("/proc/self/ns/net").ok()?;
    let host_netns = std::fs::read_link(format!("/proc/{first}/ns/net")).ok()? == own;
    let host_listeners =
        host_listeners().into_iter().filter(|l| pids.iter().any(|p| l.contains(&format!("pid={p},")))).collect();
    Some(Seen { network_mode, host_listeners, socket_dir, host_netns })
}

/// Watch the containers of a run of dbrace process `pid` until one's server is up, as
/// `ready` judges from what is seen of it.
fn watch(pid: u32, ready: impl Fn(&Seen) -> bool) -> (String, Seen) {
    wait_until("a container's server", || {
        containers_of(pid).into_iter().find_map(|name| look(&name).filter(|s| ready(s)).map(|s| (name, s)))
    })
}

/// Run `workload` for `engine` in a container listening as `transport` says, and hand
/// what was seen of the container while it ran and the repeat's record to `check`;
/// nothing may be left behind.
fn one_cell(engine: &str, image: &str, transport: &str, check: impl Fn(&Seen, &serde_json::Value)) {
    require_docker();
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let image = format!("{engine}={image}");
    let mut child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", engine, "--launcher", "docker", "--image", &image, "--transport", transport, "-p", "ram"])
        .args(["-w", "insert-commit", "--repeat", "1", "-T", "3s", "--warmup", "0s"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The measured cell's container, not the preflight's.
    sb.wait_past_preflight(&out);
    let (name, seen) = watch(pid, |s| match transport {
        // Up once its socket is in the mounted directory.
        "socket" => s.socket_dir.as_ref().is_some_and(|d| std::fs::read_dir(d).is_ok_and(|mut e| e.next().is_some())),
        _ => !s.host_listeners.is_empty(),
    });
    if let Some(dir) = &seen.socket_dir {
        let meta = std::fs::metadata(dir).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700, "{}", dir.display());
        let inst = instance_dirs(&sb);
        assert!(inst.iter().any(|i| dir.starts_with(i)), "{} is no instance's: {inst:?}", dir.display());
        let user = docker(&["inspect", "-f", "{{.Config.User}}", &name]);
        assert_eq!(user, format!("{}:{}", meta.uid(), meta.gid()), "the socket directory is the server's user's");
    }
    assert!(child.wait().unwrap().success());
    let r = read_json(&out);
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(rep["status"], "ok", "{rep}");
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    assert_eq!(rep["settings"]["launcher"], "docker", "{}", rep["settings"]);
    check(&seen, rep);
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

/// The socket path (default transport): no network, no host port, the transport read
/// back a socket in the instance's directory.
fn on_the_socket(engine: &str, image: &str, socket_file: &str) {
    one_cell(engine, image, "socket", |seen, rep| {
        let s = &rep["settings"];
        assert_eq!(seen.network_mode, "none");
        assert!(!seen.host_netns, "the container shares the host's network namespace");
        assert!(seen.host_listeners.is_empty(), "listening on the host: {:?}", seen.host_listeners);
        let dir = seen.socket_dir.as_ref().unwrap();
        assert_eq!(s["network"], "none", "{s}");
        assert_eq!(s["transport"], format!("socket {}", dir.join(socket_file).display()), "{s}");
    });
}

/// The TCP path: host networking, the server on the host's loopback only (127.0.0.1, and
/// ::1 where the host has it).
fn on_tcp(engine: &str, image: &str) {
    one_cell(engine, image, "tcp", |seen, rep| {
        let s = &rep["settings"];
        assert_eq!(seen.network_mode, "host");
        assert!(seen.host_netns);
        assert!(seen.socket_dir.is_none(), "a socket directory mounted for TCP");
        for l in &seen.host_listeners {
            let at = l.split_whitespace().nth(3).unwrap_or_default();
            assert!(at.starts_with("127.0.0.1:") || at.starts_with("[::1]:"), "not on loopback: {l}");
        }
        let via = s["transport"].as_str().unwrap();
        assert!(via.starts_with("tcp 127.0.0.1:"), "{s}");
        let port = via.rsplit(':').next().unwrap();
        assert!(seen.host_listeners.iter().any(|l| l.contains(&format!("127.0.0.1:{port} "))), "{s}");
        assert_eq!(s["network"], "host", "{s}");
    });
}

#[test]
fn postgres_on_the_socket_has_no_network() {
    on_the_socket("postgres", IMAGES[0].1, ".s.PGSQL.5432");
}

#[test]
fn postgres_on_tcp_listens_on_loopback() {
    on_tcp("postgres", IMAGES[0].1);
}

#[test]
fn mariadb_on_the_socket_has_no_network() {
    on_the_socket("mysql", IMAGES[1].1, "mysqld.sock");
}

#[test]
fn mariadb_on_tcp_listens_on_loopback() {
    on_tcp("mysql", IMAGES[1].1);
}

#[test]
fn redis_on_the_socket_has_no_network() {
    on_the_socket("redis", IMAGES[2].1, "redis.sock");
}

#[test]
fn redis_on_tcp_listens_on_loopback() {
    on_tcp("redis", IMAGES[2].1);
}

/// A test image whose entrypoint's temporary server lives a few seconds, on the socket
/// the real server will use, as the official images' does; removed when dropped.
struct SlowInit {
    tag: String,
}

/// How long the temporary server of a `SlowInit` image stays up.
const SLOW_INIT_S: f64 = 2.0;

impl SlowInit {
    /// Build it on `base` with `steps` (Dockerfile lines after FROM), offline.
    fn build(base: &str, steps: &str) -> SlowInit {
        let name = base.split(['/', ':']).nth(1).unwrap();
        let tag = format!("dbrace-test/{name}-slow-init:{}", std::process::id());
        let file = format!("FROM {base}\n{steps}\n");
        let mut b = Command::new("docker")
            .args(["build", "--network", "none", "-q", "-t", &tag, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut b.stdin.take().unwrap(), file.as_bytes()).unwrap();
        let out = b.wait_with_output().unwrap();
        assert!(out.status.success(), "docker build {tag}: {}", String::from_utf8_lossy(&out.stderr));
        SlowInit { tag }
    }
}

impl Drop for SlowInit {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rmi", "-f", &self.tag]).output();
    }
}

/// An init script that keeps the temporary server up (the entrypoints source `*.sh`).
fn sleep_in_init() -> String {
    format!("RUN printf 'sleep {SLOW_INIT_S}\\n' >/docker-entrypoint-initdb.d/slow.sh")
}

/// Three repeats of `engine` per profile, each a container from a fresh init, on the
/// socket: every one waited for the real server (start_s includes the temporary one's
/// life), measured without an error, verified and read its settings back; `check` sees
/// each repeat's settings. A readiness fooled by the temporary server would measure on it
/// while it shuts down (the measurement outlasts its life), and the repeat would fail.
fn fresh_inits(engine: &str, image: &SlowInit, workload: &str, check: impl Fn(&serde_json::Value)) {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let flag = format!("{engine}={}", image.tag);
    let mut child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", engine, "--launcher", "docker", "--image", &flag, "-p", "disk,ram"])
        // Each server from its own init, the temporary server included (no template), and
        // a server of its own for every repeat.
        .args(["--docker-init", "fresh", "--fresh"])
        .args(["-w", workload, "--repeat", "3", "-T", &format!("{}s", SLOW_INIT_S + 1.0), "--warmup", "0s"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let status = child.wait().unwrap();
    let r = read_json(&out);
    for c in r["cells"].as_array().unwrap() {
        let repeats = c["repeats"].as_array().unwrap();
        assert_eq!(repeats.len(), 3, "{c}");
        for rep in repeats {
            assert_eq!(rep["status"], "ok", "{rep}");
            assert_eq!((rep["errors"].as_u64(), rep["retries"].as_u64()), (Some(0), Some(0)), "{rep}");
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
            let s = &rep["settings"];
            assert_eq!(s["network"], "none", "{s}");
            assert!(s["transport"].as_str().unwrap().starts_with("socket /"), "{s}");
            assert!(rep["start_s"].as_f64().unwrap() > SLOW_INIT_S, "ready before the temporary server left: {rep}");
            check(s);
        }
    }
    assert!(status.success(), "{status}");
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn postgres_readiness_never_sees_the_temporary_server() {
    require_docker();
    // The official entrypoint gives its temporary server our arguments (our
    // unix_socket_directories) and `-p 5432`: the real server's socket. The test image
    // puts its temporary server on the image's own socket directory; this one does not.
    let steps = format!(
        "RUN sed -i 's| -c unix_socket_directories=/var/run/postgresql||' /usr/local/bin/docker-entrypoint.sh \
         && ! grep -q 'unix_socket_directories=/var/run' /usr/local/bin/docker-entrypoint.sh\n{}",
        sleep_in_init()
    );
    let image = SlowInit::build(IMAGES[0].1, &steps);
    fresh_inits("postgres", &image, "tpcb", |s| {
        assert_eq!(s["fsync"], "on", "{s}");
        assert_eq!(s["synchronous_commit"], "on", "{s}");
    });
}

#[test]
fn mariadb_readiness_never_sees_the_temporary_server() {
    require_docker();
    // The test image's temporary server already listens on the socket of our options
    // (--skip-networking --socket=…), as the official one does; it only lives longer here.
    let image = SlowInit::build(IMAGES[1].1, &sleep_in_init());
    fresh_inits("mysql", &image, "tpcb", |s| {
        assert_eq!(s["innodb_flush_log_at_trx_commit"], "1", "{s}");
    });
}

/// `--docker-network publish` needs Docker's default bridge network, which this
/// machine's daemon runs without on purpose (no traffic may reach a bridge's private
/// addresses; such a daemon would run the container with no network at all): the run is
/// refused before any container starts, in one line with the fix, exit 2, nothing left.
/// Where a bridge exists the port is published on 127.0.0.1 only, as the unit test of
/// `docker run`'s arguments checks.
#[test]
fn publish_without_a_bridge_is_refused_before_any_container() {
    require_docker();
    for (engine, image) in IMAGES {
        let sb = Sandbox::new();
        let image = format!("{engine}={image}");
        let mut c = sb.spawn(&["run", "-q", "-e", engine, "--image", &image, "--launcher", "docker"]);
        c.args(["--transport", "tcp", "--docker-network", "publish", "-p", "ram", "-w", "insert-commit", "-T", "0.5s"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let child = c.spawn().unwrap();
        let pid = child.id();
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {stderr}");
        let said: Vec<&str> = stderr.lines().filter(|l| l.contains("--docker-network publish")).collect();
        assert_eq!(said.len(), 1, "{engine}: {stderr}");
        assert!(said[0].contains("no bridge network") && said[0].contains("--docker-network host"), "{stderr}");
        assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
        assert!(instance_dirs(&sb).is_empty(), "left behind: {:?}", instance_dirs(&sb));
    }
}
