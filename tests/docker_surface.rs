//! What a user meets of `--launcher docker` beyond `run`: `exec` and `serve` with
//! containers, Ctrl-C mid-run, a daemon that refuses or never answers, an image tag that is
//! not here, and `dbrace engines` with and without a daemon. These tests need a Docker
//! daemon and the images scripts/test-images builds; without them they fail with the fix.
//! After each, no container of the dbrace process it ran is left (`docker ps -a --filter
//! label=org.dbrace.owner`, by owner: other runs may share the daemon).

mod common;

use common::docker::{MARIADB_IMAGE, MONGO_IMAGE, PG_IMAGE, REDIS_IMAGE, containers_of, require_docker, wait_for};
use common::{Sandbox, read_json};
use std::io::Read;
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Nothing of dbrace process `pid` left: no container, no data directory.
fn nothing_left(sb: &Sandbox, pid: u32) {
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run `dbrace ARGS` (in the sandbox) with `env` to its end: its pid and output.
fn dbrace(sb: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> (u32, Output) {
    let mut c = sb.spawn(args);
    c.envs(env.iter().copied()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = child.id();
    (pid, child.wait_with_output().unwrap())
}

/// What a Ctrl-C at the terminal does: SIGINT to the whole foreground process group, of
/// which `child` (started with `process_group(0)`) is the leader.
fn ctrl_c(child: &Child) {
    common::signal(-(child.id() as i32), libc::SIGINT);
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_string).collect()
}

/// `dbrace exec` of `engine` in containers of `image` under `profiles` (one run each, no
/// warm-up), the command `script` (which appends to the file `SEEN`); what it wrote.
fn exec_in_containers(engine: &str, image: &str, profiles: &str, script: &str) -> Vec<String> {
    require_docker();
    let sb = Sandbox::new();
    let seen = sb.out("seen");
    // The command also says which containers of ours run while it does.
    let script = format!(
        r#"exec >> {seen} 2>&1; {script}; docker ps --filter label=org.dbrace.owner --format 'container {{{{.Names}}}} {{{{.Image}}}}' | grep "dbrace-$PPID-""#,
        seen = seen.display(),
    );
    let args = ["exec", "-q", "-e", engine, "--launcher", "docker", "--image", image, "-p", profiles];
    let (pid, out) = dbrace(&sb, &[&args[..], &["-r", "1", "--warmup", "0", "--", "sh", "-c", &script]].concat(), &[]);
    let seen = lines(&seen);
    assert!(out.status.success(), "{}\n{seen:?}", text(&out.stderr));
    let name = image.split_once('=').unwrap().1;
    let containers: Vec<&String> = seen.iter().filter(|l| l.starts_with("container ")).collect();
    assert_eq!(containers.len(), profiles.split(',').count(), "a container of ours per run: {seen:?}");
    for c in containers {
        assert!(c.starts_with(&format!("container dbrace-{pid}-")) && c.ends_with(name), "{c}");
    }
    nothing_left(&sb, pid);
    // Each round's profiles run in a random order: the lines in the order asked for.
    let order: Vec<&str> = profiles.split(',').collect();
    let mut mine: Vec<String> = seen.into_iter().filter(|l| !l.starts_with("container ")).collect();
    mine.sort_by_key(|l| order.iter().position(|p| l.split('|').next() == Some(*p)));
    mine
}

#[test]
fn exec_hands_psql_the_containers_postgres() {
    let script = r#"echo "$DBRACE_PROFILE|$PGHOST|$PGUSER|$PGDATABASE|$DATABASE_URL|$(psql -XAtc 'show fsync')|$(env -u PGHOST -u PGPORT -u PGUSER -u PGPASSWORD -u PGDATABASE psql -XAt "$DATABASE_URL" -c 'show data_directory' -c 'select inet_server_addr()' | tr '\n' '|')""#;
    let seen = exec_in_containers("postgres", PG_IMAGE, "disk,ram-nosync", script);
    assert_eq!(seen.len(), 2, "{seen:?}");
    for (l, (profile, fsync)) in seen.iter().zip([("disk", "on"), ("ram-nosync", "off")]) {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(&f[..4], [profile, "127.0.0.1", "dbrace", "postgres"], "{l}");
        assert!(f[4].starts_with("postgresql://dbrace:") && f[4].contains("@127.0.0.1:"), "{l}");
        assert_eq!(f[5], fsync, "the profile's server: {l}");
        // The image's PGDATA: the server psql reached is the container's.
        assert_eq!(&f[6..8], ["/var/lib/postgresql/data", "127.0.0.1"], "{l}");
    }
}

#[test]
fn exec_hands_mysql_the_containers_mariadb() {
    let script = r#"echo "$DBRACE_PROFILE|$MYSQL_HOST|$DATABASE_URL|$(mysql -u "$MYSQL_USER" -Nse 'select @@innodb_flush_log_at_trx_commit, database(), @@datadir' "$MYSQL_DATABASE" | tr '\t' '|')""#;
    let seen = exec_in_containers("mysql", MARIADB_IMAGE, "disk,ram-nosync", script);
    assert_eq!(seen.len(), 2, "{seen:?}");
    for (l, (profile, flush)) in seen.iter().zip([("disk", "1"), ("ram-nosync", "0")]) {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(&f[..2], [profile, "127.0.0.1"], "{l}");
        assert!(f[2].starts_with("mysql://dbrace:") && f[2].ends_with("/dbrace"), "{l}");
        assert_eq!(&f[3..], [flush, "dbrace", "/var/lib/mysql/"], "the profile's server, the image's datadir: {l}");
    }
}

#[test]
fn exec_hands_redis_cli_the_containers_redis() {
    let script = r#"echo "$DBRACE_PROFILE|$REDIS_URL|$(redis-cli --no-auth-warning -u "$REDIS_URL" config get appendfsync | tail -1)|$(redis-cli --no-auth-warning -u "$REDIS_URL" config get dir | tail -1)""#;
    let seen = exec_in_containers("redis", REDIS_IMAGE, "disk,nosync", script);
    assert_eq!(seen.len(), 2, "{seen:?}");
    for (l, (profile, fsync)) in seen.iter().zip([("disk", "always"), ("nosync", "no")]) {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(f[0], profile, "{l}");
        assert!(f[1].starts_with("redis://default:") && f[1].contains("@127.0.0.1:"), "{l}");
        assert_eq!(&f[2..], [fsync, "/data"], "the profile's server, the image's /data: {l}");
    }
}

#[test]
fn ctrl_c_mid_exec_stops_the_command_and_removes_its_container() {
    require_docker();
    let sb = Sandbox::new();
    let started = sb.out("started");
    let script = format!("touch {}; sleep 60", started.display());
    let mut child = sb
        .spawn(&["exec", "-q", "--launcher", "docker", "--image", PG_IMAGE, "-p", "ram", "-r", "3", "--warmup", "0"])
        .args(["--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for("the command", || started.exists());
    assert_eq!(containers_of(pid).len(), 1, "a container while the command runs");
    ctrl_c(&child);
    let start = Instant::now();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(start.elapsed() < Duration::from_secs(30), "stopped promptly");
    nothing_left(&sb, pid);
}

/// Start `dbrace serve ARGS` in a process group of its own and read what it prints:
/// stdout ends once the connection is printed, while the server stays up.
fn serve(sb: &Sandbox, args: &[&str]) -> (Child, String) {
    let mut child = sb.spawn(args).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    (child, out)
}

/// Wait for a stopped serve: its exit code and stderr.
fn stopped(mut child: Child) -> (Option<i32>, String) {
    let start = Instant::now();
    let status = child.wait().unwrap();
    assert!(start.elapsed() < Duration::from_secs(30), "stopped promptly");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.code(), err)
}

/// The value of `export NAME='…'` in serve's output.
fn var<'a>(exports: &'a str, name: &str) -> &'a str {
    let line =
        exports.lines().find(|l| l.starts_with(&format!("export {name}="))).unwrap_or_else(|| panic!("{exports}"));
    line.split_once('=').unwrap().1.trim_matches('\'')
}

#[test]
fn serve_prints_a_url_psql_reaches_in_the_container_and_sigterm_removes_it() {
    require_docker();
    let sb = Sandbox::new();
    let (child, exports) = serve(&sb, &["serve", "postgres", "--launcher", "docker", "--image", PG_IMAGE, "-p", "ram"]);
    let pid = child.id();
    let url = var(&exports, "DATABASE_URL");
    assert!(url.starts_with("postgresql://dbrace:") && url.contains("@127.0.0.1:"), "{exports}");
    let o = Command::new("psql")
        .args(["-XAt", url, "-c", "show data_directory", "-c", "show fsync"])
        .env_remove("PGHOST")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).lines().collect::<Vec<_>>(),
        ["/var/lib/postgresql/data", "on"],
        "the container's server"
    );
    assert_eq!(containers_of(pid).len(), 1, "{:?}", containers_of(pid));
    common::signal(pid as i32, libc::SIGTERM);
    let (code, stderr) = stopped(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("postgresql://dbrace:***@127.0.0.1:"), "the password is not on stderr: {stderr}");
    nothing_left(&sb, pid);
}

#[test]
fn serve_hands_out_mariadb_and_redis_in_containers_and_ctrl_c_removes_them() {
    require_docker();
    let sb = Sandbox::new();
    let (child, exports) =
        serve(&sb, &["serve", "mysql", "--launcher", "docker", "--image", MARIADB_IMAGE, "-p", "ram-nosync"]);
    let pid = child.id();
    let o = Command::new("mysql")
        .args(["-u", var(&exports, "MYSQL_USER"), "-Nse", "select @@innodb_flush_log_at_trx_commit, @@datadir"])
        .envs(["MYSQL_HOST", "MYSQL_TCP_PORT", "MYSQL_PWD"].map(|k| (k, var(&exports, k))))
        .arg(var(&exports, "MYSQL_DATABASE"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), "0\t/var/lib/mysql/", "the container's server");
    assert_eq!(containers_of(pid).len(), 1, "{:?}", containers_of(pid));
    ctrl_c(&child);
    let (code, stderr) = stopped(child);
    assert_eq!(code, Some(0), "{stderr}");
    nothing_left(&sb, pid);

    let args = ["serve", "redis", "--launcher", "docker", "--image", REDIS_IMAGE, "-p", "disk", "--format", "json"];
    let (child, out) = serve(&sb, &args);
    let pid = child.id();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let url = v["env"]["REDIS_URL"].as_str().unwrap();
    let o = Command::new("redis-cli").args(["--no-auth-warning", "-u", url, "config", "get", "dir"]).output().unwrap();
    assert_eq!(text(&o.stdout).lines().last(), Some("/data"), "the container's server: {}", text(&o.stderr));
    ctrl_c(&child);
    let (code, stderr) = stopped(child);
    assert_eq!(code, Some(0), "{stderr}");
    nothing_left(&sb, pid);
}

#[test]
fn serve_fails_when_its_container_is_killed_under_it() {
    require_docker();
    let sb = Sandbox::new();
    let (child, _) = serve(&sb, &["serve", "redis", "--launcher", "docker", "--image", REDIS_IMAGE, "-p", "ram"]);
    let pid = child.id();
    let names = containers_of(pid);
    assert_eq!(names.len(), 1, "{names:?}");
    let name = names[0].split('|').next().unwrap();
    assert!(Command::new("docker").args(["kill", name]).output().unwrap().status.success());
    let (code, stderr) = stopped(child);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the server exited"), "{stderr}");
    nothing_left(&sb, pid);
}

#[test]
fn ctrl_c_mid_run_leaves_no_container() {
    require_docker();
    for image in [PG_IMAGE, MARIADB_IMAGE] {
        let sb = Sandbox::new();
        let out = sb.out("r.json");
        let engine = image.split_once('=').unwrap().0;
        let mut child = sb
            .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
            .args(["-e", engine, "--launcher", "docker", "--image", image, "-p", "disk,ram"])
            .args(["-w", "insert-commit", "-T", "0.5s", "--warmup", "0s", "-r", "50"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        sb.wait_past_preflight(&out);
        wait_for("a measured container", || !containers_of(pid).is_empty());
        ctrl_c(&child);
        let start = Instant::now();
        assert_eq!(child.wait().unwrap().code(), Some(130), "{engine}");
        assert!(start.elapsed() < Duration::from_secs(30), "{engine}: stopped promptly");
        assert_eq!(read_json(&out)["status"], "interrupted", "{engine}");
        nothing_left(&sb, pid);
    }
}

/// A unix socket that accepts every connection and closes it at once, as a daemon that
/// refuses to talk does; it lives as long as the returned directory.
fn refusing_daemon() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docker.sock");
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        for c in listener.incoming() {
            drop(c);
        }
    });
    (dir, format!("unix://{}", path.display()))
}

/// A unix socket that accepts and then never says a word.
fn silent_daemon() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docker.sock");
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in listener.incoming() {
            held.push(c);
        }
    });
    (dir, format!("unix://{}", path.display()))
}

/// A socket file nothing listens on any more.
fn dead_daemon() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docker.sock");
    drop(UnixListener::bind(&path).unwrap());
    (dir, format!("unix://{}", path.display()))
}

/// `run`, `exec`, `serve` and `engines` under `--launcher docker` against the daemon at
/// `host`: each exit 2 with one line that names the problem and the fix, before anything
/// starts; `also` is a word the line must hold.
fn refused_by(host: &str, also: &str) {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let docker = ["--launcher", "docker", "--image", PG_IMAGE];
    let commands: [Vec<&str>; 4] = [
        [&["run", "-e", "postgres", "-p", "ram", "-w", "insert-commit", "--out", out.to_str().unwrap()][..], &docker]
            .concat(),
        [&["exec", "-p", "ram"][..], &docker, &["--", "true"]].concat(),
        [&["serve", "postgres"][..], &docker].concat(),
        [&["engines"][..], &docker].concat(),
    ];
    for args in commands {
        let (pid, o) = dbrace(&sb, &args, &[("DOCKER_HOST", host)]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("--launcher docker: no Docker daemon answers ("), "{args:?}: {err}");
        assert!(err.contains("start it (systemctl start docker, or dockerd"), "{args:?}: {err}");
        assert!(err.contains(&format!("point DOCKER_HOST (now {host})")), "{args:?}: {err}");
        assert!(err.contains(also), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing but the error: {}", text(&o.stdout));
        nothing_left(&sb, pid);
    }
    assert!(!out.exists(), "no cell ran");
}

#[test]
fn a_daemon_that_refuses_is_bad_input_with_the_fix() {
    let (_dir, host) = refusing_daemon();
    refused_by(&host, "error during connect");
    let (_dir, host) = dead_daemon();
    refused_by(&host, "Cannot connect to the Docker daemon at");
}

#[test]
fn a_daemon_that_never_answers_is_given_up_on_not_waited_for() {
    let (_dir, host) = silent_daemon();
    let sb = Sandbox::new();
    let start = Instant::now();
    let args = ["run", "-e", "postgres", "--launcher", "docker", "-p", "ram", "-w", "insert-commit"];
    let (_, o) = dbrace(&sb, &args, &[("DOCKER_HOST", &host)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no Docker daemon answers (docker version: no answer within 10 s)"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(30), "given up on: {:?}", start.elapsed());
}

#[test]
fn an_image_tag_not_on_this_machine_is_bad_input_naming_the_pull() {
    require_docker();
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let image = "postgres=dbrace-test/postgres:no-such-tag";
    let docker = ["--launcher", "docker", "--image", image];
    let commands: [Vec<&str>; 3] = [
        [&["run", "-e", "postgres", "-p", "disk,ram", "-w", "tpcb", "--out", out.to_str().unwrap()][..], &docker]
            .concat(),
        [&["exec", "-e", "postgres", "-p", "ram"][..], &docker, &["--", "true"]].concat(),
        [&["serve", "postgres"][..], &docker].concat(),
    ];
    for args in commands {
        let (pid, o) = dbrace(&sb, &args, &[]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("image dbrace-test/postgres:no-such-tag is not on this machine"), "{args:?}: {err}");
        assert!(err.contains("docker pull dbrace-test/postgres:no-such-tag, or docker load"), "{args:?}: {err}");
        nothing_left(&sb, pid);
    }
    assert!(!out.exists(), "no cell ran");
}

/// Under host networking the mongo image's init runs its temporary server on
/// 127.0.0.1:27017 of the host: with something listening there (here, the test), a fresh
/// start over TCP is refused before any container, naming the port and the ways out, so
/// the init's root user never reaches a server that is not ours. (In this binary, not
/// tests/docker_mongo.rs: no other test's mongo init may run while the port is held.)
#[test]
fn a_taken_mongo_init_port_is_bad_input_under_host_networking() {
    require_docker();
    let sb = Sandbox::new();
    let held = std::net::TcpListener::bind("127.0.0.1:27017").expect("127.0.0.1:27017 must be free for this test");
    let args = ["run", "-e", "mongo", "--launcher", "docker", "--image", MONGO_IMAGE, "--transport", "tcp"];
    let (pid, o) =
        dbrace(&sb, &[&args[..], &["--docker-init", "fresh", "-p", "ram", "-w", "insert-commit"]].concat(), &[]);
    drop(held);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("127.0.0.1:27017 is taken")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].contains("--transport socket") && said[0].contains("--docker-init template"), "{err}");
    nothing_left(&sb, pid);
}

/// What `docker image inspect` says of `image`: (id, size).
fn inspected(image: &str) -> (String, u64) {
    let o = Command::new("docker").args(["image", "inspect", "--format", "{{.Id}} {{.Size}}", image]).output().unwrap();
    let t = text(&o.stdout);
    let (id, size) = t.trim().split_once(' ').unwrap();
    (id.to_string(), size.parse().unwrap())
}

#[test]
fn engines_shows_the_daemon_and_each_engines_image() {
    require_docker();
    let sb = Sandbox::new();
    let server =
        text(&Command::new("docker").args(["version", "--format", "{{.Server.Version}}"]).output().unwrap().stdout);
    let images = ["--image", PG_IMAGE, "--image", MARIADB_IMAGE, "--image", "redis=dbrace-test/redis:no-such-tag"];
    let (_, o) = dbrace(&sb, &[&["engines"][..], &images].concat(), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let docker = stdout.split_once("\ndocker: client ").unwrap_or_else(|| panic!("no docker line: {stdout}")).1;
    let docker = docker.split_once("\nprofiles:").unwrap().0;
    assert!(docker.lines().next().unwrap().contains(&format!(", daemon {}", server.trim())), "{docker}");
    let row = |engine: &str| {
        docker
            .lines()
            .find(|l| l.starts_with(&format!("│ {engine} ")))
            .unwrap_or_else(|| panic!("{docker}"))
            .to_string()
    };
    let (pg_id, _) = inspected("dbrace-test/postgres:15");
    let pg = row("postgres");
    assert!(pg.contains("dbrace-test/postgres:15") && pg.contains(&format!("yes: {}", &pg_id[7..19])), "{pg}");
    assert!(row("mysql").contains("yes: "), "{docker}");
    assert!(row("redis").contains("no: docker pull dbrace-test/redis:no-such-tag, or docker load"), "{docker}");

    // The same as JSON, and --launcher docker makes usable mean "its image is here".
    let (_, o) = dbrace(&sb, &[&["engines", "--json", "--launcher", "docker"][..], &images].concat(), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["launcher"], "docker");
    assert_eq!(v["docker"]["server"], server.trim(), "{}", v["docker"]);
    let image =
        |engine: &str| v["docker"]["images"].as_array().unwrap().iter().find(|i| i["engine"] == engine).cloned();
    let (id, size) = inspected("dbrace-test/mariadb:10.11");
    let m = image("mysql").unwrap();
    assert_eq!((m["id"].as_str(), m["size_bytes"].as_u64()), (Some(id.as_str()), Some(size)), "{m}");
    assert!(m["tags"].as_array().unwrap().iter().any(|t| t == "dbrace-test/mariadb:10.11"), "{m}");
    assert!(image("redis").unwrap()["fix"].as_str().unwrap().starts_with("docker pull"), "{}", v["docker"]);
    assert!(image("sqlite").is_none(), "sqlite runs no container");
    let usable = |engine: &str| {
        v["engines"].as_array().unwrap().iter().find(|e| e["engine"] == engine).unwrap()["usable"].clone()
    };
    assert_eq!((usable("postgres"), usable("redis")), (true.into(), false.into()), "{}", v["engines"]);
}

#[test]
fn engines_without_a_daemon_or_docker_says_so_in_one_line() {
    let sb = Sandbox::new();
    let (_dir, host) = dead_daemon();
    let (_, o) = dbrace(&sb, &["engines"], &[("DOCKER_HOST", &host)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let said: Vec<&str> = stdout.lines().filter(|l| l.contains("docker")).collect();
    assert_eq!(said.len(), 1, "{stdout}");
    assert!(
        said[0].starts_with("--launcher docker: no Docker daemon answers (") && said[0].contains("dockerd"),
        "{stdout}"
    );
    assert!(stdout.contains("│ postgres "), "the rest is still shown: {stdout}");
    let (_, o) = dbrace(&sb, &["engines", "--json"], &[("DOCKER_HOST", &host)]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["docker"]["problem"].as_str().unwrap().contains("no Docker daemon answers"), "{}", v["docker"]);
    assert_eq!(v["docker"]["images"], serde_json::json!([]));

    let empty = tempfile::tempdir().unwrap();
    let (_, o) = dbrace(&sb, &["engines"], &[("PATH", empty.path().to_str().unwrap())]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let said: Vec<&str> = stdout.lines().filter(|l| l.contains("docker")).collect();
    assert_eq!(said, ["--launcher docker: docker not found; install it (apt-get install docker.io) or Docker Desktop"]);
}
