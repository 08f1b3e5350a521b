//! `dbrace suggest`, each output checked by using it: the `docker run` line run against the
//! local test images (host network, a free port appended), its settings read back with the
//! engine's own client and its data directory's filesystem asked; the Compose override
//! parsed as YAML and read back, over a base file, by dbrace's own Compose reader, and
//! started over a user's file by the Compose client.

mod common;

use assert_cmd::Command;
use common::docker::{MARIADB_IMAGE, PG_IMAGE, REDIS_IMAGE, require_docker, wait_until};
use std::collections::BTreeMap;
use std::process::Command as Process;

/// The password the tests' servers take from their environment.
const PASSWORD: &str = "suggest-test";

/// `dbrace suggest ARGS`'s stdout; it must succeed.
fn suggest(args: &[&str]) -> String {
    let out = Command::cargo_bin("dbrace").unwrap().arg("suggest").args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The image of an `--image ENGINE=IMAGE` flag of the test images.
fn image(flag: &str) -> &str {
    flag.split_once('=').unwrap().1
}

/// A container the test started, removed with its volumes when the test ends, passed or not.
struct Container(String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Process::new("docker").args(["rm", "-f", "-v", &self.0]).output();
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The `docker run` line suggested for `engine`'s `profile` on the test image, as words.
fn docker_run(engine: &str, profile: &str, image: &str) -> Vec<String> {
    let text = suggest(&["-e", engine, "-p", profile, "--image", image, "-f", "docker-run"]);
    let line = text.lines().find(|l| l.starts_with("docker run ")).unwrap_or_else(|| panic!("no docker run: {text}"));
    assert!(!line.contains(PASSWORD), "{line}");
    shell_words::split(line).unwrap()
}

/// Run the suggested line as it is, but on the host's network (the test daemon has no
/// bridge) under a name of the test's, with `port` flags appended for the server.
fn start(mut words: Vec<String>, port: &[String]) -> Container {
    let name = format!("dbrace-suggest-{}-{}", std::process::id(), free_port());
    let at = words.iter().position(|w| w == "--name").unwrap();
    words[at + 1] = name.clone();
    words.splice(2..2, ["--network".to_string(), "host".to_string()]);
    words.extend(port.iter().cloned());
    let container = Container(name);
    let out = Process::new(&words[0])
        .args(&words[1..])
        .env("POSTGRES_PASSWORD", PASSWORD)
        .env("MYSQL_ROOT_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(out.status.success(), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
    container
}

/// `program ARGS`'s stdout when it succeeds, as it is (an empty value is a line of its own).
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Process::new(program).args(args).env("PGPASSWORD", PASSWORD).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

/// One value a client printed on a line of its own.
fn value(said: Option<String>) -> Option<String> {
    said.map(|s| s.trim().to_string())
}

/// The filesystem type of `dir` inside container `id`.
fn filesystem(id: &str, dir: &str) -> String {
    value(output("docker", &["exec", id, "stat", "-f", "-c", "%T", dir])).unwrap_or_else(|| panic!("stat {dir}"))
}

/// The settings the server reads back, by name, once its client gets an answer.
fn read_back(keys: &[&str], client: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    keys.iter().map(|k| (k.to_string(), wait_until(&format!("{k} read back"), || client(k)))).collect()
}

/// Check the suggested line for `profile` on `engine`: `expected` settings read back, and
/// the data directory on tmpfs exactly when `ram`.
fn check(engine: &str, profile: &str, expected: &[(&str, &str)], ram: bool) {
    require_docker();
    let (flag, dir) = match engine {
        "postgres" => (PG_IMAGE, "/var/lib/postgresql/data"),
        "mysql" => (MARIADB_IMAGE, "/var/lib/mysql"),
        _ => (REDIS_IMAGE, "/data"),
    };
    let words = docker_run(engine, profile, image(flag));
    assert_eq!(words.iter().any(|w| w == "--tmpfs"), ram, "{words:?}");
    let port = free_port();
    let p = port.to_string();
    let port_flags: Vec<String> = match engine {
        "postgres" => vec!["-c".into(), format!("port={p}")],
        "mysql" => vec![format!("--port={p}")],
        _ => vec!["--port".into(), p.clone()],
    };
    let c = start(words, &port_flags);
    let keys: Vec<&str> = expected.iter().map(|(k, _)| *k).collect();
    let got = match engine {
        "postgres" => read_back(&keys, |k| {
            let show = format!("SHOW {k}");
            value(output("psql", &["-h", "127.0.0.1", "-p", &p, "-U", "postgres", "-d", "postgres", "-Atc", &show]))
        }),
        "mysql" => read_back(&keys, |k| {
            let pw = format!("-p{PASSWORD}");
            value(output("mysql", &["-h127.0.0.1", "-P", &p, "-uroot", &pw, "-NBe", &format!("SELECT @@{k}")]))
        }),
        _ => read_back(&keys, |k| {
            let said = output("redis-cli", &["-p", &p, "CONFIG", "GET", k])?;
            said.lines().nth(1).map(str::to_string)
        }),
    };
    let want: BTreeMap<String, String> = expected.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    assert_eq!(got, want, "{engine} {profile}");
    assert_eq!(filesystem(&c.0, dir) == "tmpfs", ram, "{engine} {profile}: {dir} is {}", filesystem(&c.0, dir));
}

#[test]
fn postgres_ram_keeps_every_commit_synced_on_a_tmpfs() {
    check("postgres", "ram", &[("fsync", "on"), ("synchronous_commit", "on"), ("full_page_writes", "on")], true);
}

#[test]
fn postgres_nosync_turns_fsync_off_on_disk() {
    check("postgres", "nosync", &[("fsync", "off"), ("synchronous_commit", "off"), ("full_page_writes", "off")], false);
}

#[test]
fn mariadb_ram_nosync_writes_nothing_at_commit_on_a_tmpfs() {
    let expected = [("innodb_flush_log_at_trx_commit", "0"), ("innodb_doublewrite", "0"), ("sync_binlog", "0")];
    check("mysql", "ram-nosync", &expected, true);
}

#[test]
fn mariadb_disk_syncs_each_commit() {
    let expected = [("innodb_flush_log_at_trx_commit", "1"), ("innodb_doublewrite", "1"), ("sync_binlog", "1")];
    check("mysql", "disk", &expected, false);
}

#[test]
fn redis_ram_syncs_each_write_on_a_tmpfs() {
    check("redis", "ram", &[("appendonly", "yes"), ("appendfsync", "always"), ("save", "")], true);
}

#[test]
fn redis_nosync_leaves_syncing_to_the_kernel() {
    check("redis", "nosync", &[("appendonly", "yes"), ("appendfsync", "no"), ("save", "")], false);
}

/// `text` parsed as YAML.
fn yaml(text: &str) -> yaml_serde::Value {
    yaml_serde::from_str(text).unwrap_or_else(|e| panic!("not YAML ({e}): {text}"))
}

#[test]
fn compose_override_is_yaml_for_the_db_service() {
    let doc = yaml(&suggest(&["-e", "redis", "-p", "ram-nosync", "-f", "compose"]));
    let db = &doc["services"]["db"];
    assert_eq!(db["tmpfs"], yaml("[/data]"));
    assert_eq!(db["command"], yaml(r#"["--appendonly", "yes", "--appendfsync", "no", "--save", ""]"#));
    let disk = yaml(&suggest(&["-e", "postgres", "-p", "disk", "-f", "compose"]));
    assert!(disk["services"]["db"].get("tmpfs").is_none(), "{disk:?}");
}

#[test]
fn github_job_starts_the_docker_run_line_in_a_step() {
    let args = ["-e", "mysql", "-p", "ram-nosync", "--image", "mariadb:10.11"];
    let run = suggest(&[&args[..], &["-f", "docker-run"]].concat());
    let line = run.lines().find(|l| l.starts_with("docker run ")).unwrap();
    let job = yaml(&suggest(&[&args[..], &["-f", "github"]].concat()));
    let steps = &job["jobs"]["test"]["steps"];
    assert_eq!(steps[0]["run"].as_str(), Some(line), "{job:?}");
    assert!(steps[1]["run"].as_str().is_some_and(|w| w.contains("port: 3306")), "{job:?}");
    assert_eq!(job["jobs"]["test"]["env"]["MYSQL_ROOT_PASSWORD"].as_str(), Some("${{ secrets.MYSQL_ROOT_PASSWORD }}"));
}

#[test]
fn compose_override_over_the_users_file_reads_back_as_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("docker-compose.yml");
    let file = "services:\n  app:\n    image: node:22\n  pg:\n    image: postgres:16\n    command: postgres -c max_connections=200 -c fsync=on\n";
    std::fs::write(&base, file).unwrap();
    let text = suggest(&["--compose", base.to_str().unwrap(), "-p", "ram-nosync", "-f", "compose"]);
    let doc = yaml(&text);
    assert!(doc["services"].get("app").is_none(), "only the database service: {text}");
    let over = dir.path().join("docker-compose.override.yml");
    std::fs::write(&over, &text).unwrap();
    let chosen = dbrace::compose::read(&[base, over], None, None).unwrap();
    assert_eq!((chosen.service.as_str(), chosen.image.as_str()), ("pg", "postgres:16"));
    assert!(chosen.on_tmpfs, "the override's tmpfs is on the data directory");
    assert_eq!(chosen.kept, [("max_connections".to_string(), "200".to_string())]);
    let tuned: BTreeMap<String, String> = chosen.tuned.into_iter().collect();
    let off = |k: &str| (k.to_string(), "off".to_string());
    assert_eq!(tuned, BTreeMap::from([off("fsync"), off("synchronous_commit"), off("full_page_writes")]));
}

/// A Compose project of the test's, taken down with its volumes when the test ends.
struct Project {
    name: String,
    files: Vec<String>,
}

impl Project {
    /// `docker-compose -p NAME -f FILE… ARGS`; it must succeed.
    fn compose(&self, args: &[&str]) -> String {
        let mut cmd = Process::new("docker-compose");
        cmd.args(["-p", &self.name]);
        for f in &self.files {
            cmd.args(["-f", f]);
        }
        let out = cmd.args(args).output().unwrap_or_else(|e| {
            panic!("docker-compose: {e}; install it (apt-get install docker-compose), as scripts/test does")
        });
        assert!(out.status.success(), "docker-compose {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| self.compose(&["down", "-v", "-t", "1"]));
    }
}

#[test]
fn compose_override_started_by_docker_compose_reads_back_as_the_profile() {
    require_docker();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    // Host networking: the test daemon has no bridge; the port is then the server's own.
    let file = format!(
        "services:\n  pg:\n    image: {}\n    network_mode: host\n    environment: {{POSTGRES_PASSWORD: {PASSWORD}}}\n    command: postgres -c port={port} -c max_connections=77 -c fsync=on\n",
        image(PG_IMAGE)
    );
    let base = dir.path().join("docker-compose.yml");
    std::fs::write(&base, file).unwrap();
    let text = suggest(&["--compose", base.to_str().unwrap(), "-p", "ram-nosync", "-f", "compose"]);
    let over = dir.path().join("docker-compose.override.yml");
    std::fs::write(&over, &text).unwrap();
    let name = format!("dbrace-suggest-{}-{port}", std::process::id());
    let files = [base, over].map(|f| f.to_str().unwrap().to_string()).to_vec();
    let project = Project { name, files };
    project.compose(&["config", "-q"]);
    project.compose(&["up", "-d"]);
    let p = port.to_string();
    let keys = ["fsync", "synchronous_commit", "full_page_writes", "max_connections"];
    let got = read_back(&keys, |k| {
        let show = format!("SHOW {k}");
        value(output("psql", &["-h", "127.0.0.1", "-p", &p, "-U", "postgres", "-d", "postgres", "-Atc", &show]))
    });
    let want =
        [("fsync", "off"), ("synchronous_commit", "off"), ("full_page_writes", "off"), ("max_connections", "77")];
    assert_eq!(got, want.map(|(k, v)| (k.to_string(), v.to_string())).into(), "{text}");
    let id = project.compose(&["ps", "-q", "pg"]).trim().to_string();
    assert_eq!(filesystem(&id, "/var/lib/postgresql/data"), "tmpfs", "{text}");
}

#[test]
fn compose_override_keeps_the_services_port_and_names_its_password_by_variable() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("compose.yaml");
    let file = "services:\n  cache:\n    image: redis:7\n    command: redis-server --port 6380 --requirepass s3cret --appendonly yes\n";
    std::fs::write(&base, file).unwrap();
    let text = suggest(&["--compose", base.to_str().unwrap(), "-p", "nosync", "-f", "compose"]);
    assert!(!text.contains("s3cret"), "{text}");
    let command = &yaml(&text)["services"]["cache"]["command"];
    let want = r#"["--port", "6380", "--requirepass", "${REQUIREPASS}", "--appendonly", "yes", "--appendfsync", "no", "--save", ""]"#;
    assert_eq!(*command, yaml(want), "{text}");
    assert!(text.contains("# ${REQUIREPASS}: set it"), "{text}");
}

#[test]
fn every_output_says_what_the_profile_gives_up() {
    let all = suggest(&["-e", "postgres", "-p", "nosync"]);
    let headings = all.lines().filter(|l| l.starts_with("## ")).count();
    assert_eq!(headings, 9, "{all}");
    let gives_up = "postgres nosync: an acknowledged commit survives: nothing";
    assert_eq!(all.matches(gives_up).count(), 9, "{all}");
    let ram = suggest(&["-e", "mysql", "-p", "ram", "-f", "conf"]);
    assert!(ram.contains("survives: server crash") && ram.contains("[mysqld]\n"), "{ram}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        ["-e", "oracle", "-p", "disk", "-f", "all"],
        ["-e", "postgres", "-p", "fast", "-f", "all"],
        ["-e", "postgres", "-p", "disk", "-f", "yaml"],
        ["-e", "postgres", "-p", "unlogged", "-f", "all"],
        ["-e", "sqlite", "-p", "disk", "-f", "all"],
    ] {
        let out = Command::cargo_bin("dbrace").unwrap().arg("suggest").args(args).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.get_output().stdout.is_empty(), "{args:?}");
    }
}
