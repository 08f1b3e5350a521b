//! Redis against an existing server (`--url`): the machine's own server on 127.0.0.1:6379
//! (scripts/test installs and starts it when missing), whose data must come out untouched
//! and without a key of ours left, and a password-protected server this test starts itself.

mod common;

use common::{Sandbox, read_json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "not-a-real-secret";

/// The system server must be there: a missing server is a loud failure, not a skipped test.
fn require_system_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:6379").is_ok();
    assert!(
        ok,
        "no Redis on 127.0.0.1:6379: run scripts/test, which installs and starts it (apt-get install redis-server)"
    );
}

fn cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").args(["-h", "127.0.0.1", "-p", &port.to_string()]).args(args).output();
    let out = out.expect("redis-cli runs (apt-get install redis-tools)");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Keys dbrace writes on a --url server all start with `dbrace:`.
fn dbrace_keys(port: u16) -> usize {
    cli(port, &["--scan", "--pattern", "dbrace:*"]).lines().filter(|l| !l.is_empty()).count()
}

/// A redis-server of this test's own on a free port, with a password; killed when dropped.
struct OwnServer {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl OwnServer {
    fn start() -> OwnServer {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--requirepass", SECRET])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server runs (apt-get install redis-server)");
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(10), "own redis-server did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        OwnServer { child, port, _dir: dir }
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn url_target_writes_only_its_own_keys_and_removes_them() {
    require_system_server();
    let sb = Sandbox::new();
    let out = sb.out("redis.json");
    let canary = format!("dbrace-test-canary-{}", std::process::id());
    assert_eq!(cli(6379, &["SET", &canary, "keep"]), "OK");
    let (before, size_before) = (dbrace_keys(6379), cli(6379, &["DBSIZE"]));
    let run = sb
        // No --profile: of the default ones, those that need a server of dbrace's own are skipped.
        .cmd(&["run", "-e", "redis", "--url", "redis://127.0.0.1:6379/0", "-w", "insert-commit"])
        .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "2", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(said.contains("skipping redis × ram") && said.contains("only disk"), "{said}");
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1);
    let mut prefixes = Vec::new();
    for rep in cells[0]["repeats"].as_array().unwrap() {
        assert_eq!(rep["status"], "ok", "{rep}");
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
        assert_eq!(rep["transactions"], 200);
        assert_eq!(rep["settings"]["transport"], "tcp 127.0.0.1:6379");
        prefixes.push(rep["settings"]["key_prefix"].as_str().unwrap().to_string());
    }
    assert!(prefixes[0].starts_with("dbrace:") && prefixes[0] != prefixes[1], "{prefixes:?}");
    assert_eq!(dbrace_keys(6379), before, "dbrace keys were left on the system server");
    assert_eq!(cli(6379, &["DBSIZE"]), size_before);
    assert_eq!(cli(6379, &["GET", &canary]), "keep", "the user's key was touched");
    assert_eq!(cli(6379, &["DEL", &canary]), "1");
}

#[test]
fn a_password_server_runs_with_the_right_password_and_mistakes_are_one_line_exit_2() {
    let own = OwnServer::start();
    let sb = Sandbox::new();
    let url = format!("redis://:{SECRET}@127.0.0.1:{}/2", own.port);
    let out = sb.out("redis.json");
    let run = sb
        .cmd(&["run", "-e", "redis", "--url", &url, "-p", "disk", "-w", "insert-commit", "-t", "50"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(SECRET) && text.contains(":***@127.0.0.1"), "password leaked or URL not recorded");
    let o = run.get_output();
    assert!(!String::from_utf8_lossy(&o.stdout).contains(SECRET));
    assert!(!String::from_utf8_lossy(&o.stderr).contains(SECRET));
    assert_eq!(cli(own.port, &["-a", SECRET, "--no-auth-warning", "-n", "2", "DBSIZE"]), "0", "keys left");

    let wrong = format!("redis://:wrong-{SECRET}@127.0.0.1:{}/0", own.port);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let unreachable = format!("redis://127.0.0.1:{closed}/0");
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "redis", "--url", &wrong], "check the user, password"),
        (&["-e", "redis", "--url", &format!("redis://127.0.0.1:{}/0", own.port)], "check the user, password"),
        (&["-e", "redis", "--url", &unreachable], "cannot connect"),
        (&["-e", "redis", "--url", &url, "-p", "nosync"], "only disk"),
        (&["-e", "redis", "--url", &url, "--set", "appendfsync=no"], "every client"),
        (&["-e", "redis", "--url", &format!("rediss://:{SECRET}@127.0.0.1:1")], "no engine speaks 'rediss://'"),
        (&["-e", "sqlite", "--url", &url], "add --engine redis"),
    ];
    for (args, needle) in cases {
        let o = sb.cmd(&[&["run", "-q", "-w", "insert-commit", "-T", "0.1s"], *args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
        assert!(!err.contains(SECRET), "{err}");
    }
}
