//! PostgreSQL against an existing server (`--url`): a password-protected server the test
//! starts itself, and the machine's own server on 127.0.0.1:5432, which scripts/test
//! installs and starts when it is missing (and gives the `postgres` role the test
//! password when the server asks for one).

mod common;

use common::{Sandbox, read_json};
use std::process::Command;

const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

/// The server must be there: a missing server is a loud failure, not a skipped test.
fn require_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:5432").is_ok();
    assert!(
        ok,
        "no PostgreSQL on 127.0.0.1:5432: run scripts/test, which installs and starts it (apt-get install postgresql)"
    );
}

fn dbrace_databases() -> String {
    let out = Command::new("psql")
        .env("PGPASSWORD", "not-a-real-secret")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-tAc"])
        .arg("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'dbrace_%'")
        .output()
        .expect("psql runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn url_target_runs_profiles_verifies_and_cleans_up() {
    require_server();
    let sb = Sandbox::new();
    let out = sb.out("pg.json");
    let before = dbrace_databases();
    let run = sb
        .cmd(&["run", "-q", "-e", "postgres", "--url", URL, "-p", "disk,async,unlogged", "-w", "insert-commit,tpcb"])
        .args(["-c", "2", "-t", "100", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 200);
        assert!(rep["engine_version"].as_str().unwrap().chars().next().unwrap().is_ascii_digit());
    }
    let setting = |id: &str, key: &str| {
        cells.iter().find(|c| c["id"] == id).unwrap()["repeats"][0]["settings"][key].as_str().unwrap().to_string()
    };
    assert_eq!(setting("postgres/async/tpcb/c2", "synchronous_commit"), "off");
    assert_eq!(setting("postgres/disk/tpcb/c2", "synchronous_commit"), "on");
    // The password stays out of everything dbrace writes.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("not-a-real-secret") && text.contains("postgres:***@"), "password leaked");
    let o = run.get_output();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("not-a-real-secret"));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("not-a-real-secret"));
    assert_eq!(dbrace_databases(), before, "a dbrace database was left on the server");
}

#[test]
fn url_mistakes_are_one_line_and_exit_2() {
    require_server();
    let sb = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:1/test"], "cannot connect"),
        (&["-e", "postgres", "--url", "postgres://postgres@127.0.0.1:5432/no_such_db_dbrace"], "no_such_db_dbrace"),
        (&["-e", "postgres", "--url", URL, "-p", "ram"], "against --url only disk, async and unlogged"),
        (&["-e", "postgres", "--pg-bin", "/nonexistent"], "no postgres and initdb there"),
        (&["-e", "sqlite", "--url", URL], "add --engine postgres"),
    ];
    for (args, needle) in cases {
        let o = sb.cmd(&[&["run", "-q", "-T", "0.1s"], *args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
        assert!(!err.contains("not-a-real-secret"), "{err}");
    }
}

/// A PostgreSQL server of this test's own on 127.0.0.1 that asks for a SCRAM password,
/// as a real shared server does (the machine's own trusts local TCP). Stopped and
/// removed on drop.
struct OwnServer {
    child: std::process::Child,
    _dir: tempfile::TempDir,
    port: u16,
}

const OWN_PASSWORD: &str = "own-server-pw-4f1c";

impl OwnServer {
    fn start() -> OwnServer {
        use std::os::unix::process::CommandExt;
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL server binaries missing: apt-get install postgresql (scripts/test does)")
            .flatten()
            .map(|e| e.path().join("bin"))
            .max()
            .unwrap();
        let dir = tempfile::Builder::new().prefix("dbrace-test-own-pg-").tempdir_in("/var/tmp").unwrap();
        // PostgreSQL refuses root: as root, the server runs as `postgres`.
        let ids = (unsafe { libc::geteuid() } == 0).then(|| {
            let name = std::ffi::CString::new("postgres").unwrap();
            let pw = unsafe { libc::getpwnam(name.as_ptr()) };
            assert!(!pw.is_null(), "no 'postgres' user: install postgresql (scripts/test does)");
            unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
        });
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, OWN_PASSWORD).unwrap();
        if let Some((u, g)) = ids {
            std::os::unix::fs::chown(dir.path(), Some(u), Some(g)).unwrap();
            std::os::unix::fs::chown(&pwfile, Some(u), Some(g)).unwrap();
        }
        let as_user = |c: &mut Command| {
            if let Some((u, g)) = ids {
                c.uid(u).gid(g);
            }
        };
        let pgdata = dir.path().join("pgdata");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb.arg("-D").arg(&pgdata).args(["-U", "owner", "-E", "UTF8", "--locale=C", "-N"]);
        initdb.arg(format!("--pwfile={}", pwfile.display())).args(["--auth-local=trust", "--auth-host=scram-sha-256"]);
        as_user(&mut initdb);
        let o = initdb.output().unwrap();
        assert!(o.status.success(), "initdb: {}", String::from_utf8_lossy(&o.stderr));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut postgres = Command::new(bin.join("postgres"));
        postgres.arg("-D").arg(&pgdata).arg("-k").arg(dir.path()).args(["-p", &port.to_string()]);
        postgres.args(["-c", "listen_addresses=127.0.0.1"]).stdout(std::process::Stdio::null());
        postgres.stderr(std::process::Stdio::null());
        as_user(&mut postgres);
        let child = postgres.spawn().unwrap();
        let server = OwnServer { child, _dir: dir, port };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !Command::new(bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .status()
            .unwrap()
            .success()
        {
            assert!(std::time::Instant::now() < deadline, "the test's own server did not start");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        server
    }

    fn url(&self, password: &str) -> String {
        format!("postgres://owner:{password}@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        // SIGINT: fast shutdown; then the directory goes with the TempDir.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let _ = self.child.wait();
    }
}

#[test]
fn a_password_server_takes_the_right_password_and_refuses_a_wrong_one_in_one_line() {
    let server = OwnServer::start();
    let sb = Sandbox::new();
    let out = sb.out("own.json");
    let run = sb
        .cmd(&["run", "-q", "-e", "postgres", "--url", &server.url(OWN_PASSWORD), "-w", "insert-commit"])
        .args(["-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let rep = &r["cells"][0]["repeats"][0];
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{rep}");
    let o = run.get_output();
    let everything = [&o.stdout[..], &o.stderr[..], std::fs::read_to_string(&out).unwrap().as_bytes()].concat();
    assert!(!String::from_utf8_lossy(&everything).contains(OWN_PASSWORD), "the password leaked");

    for (url, needle) in [
        (server.url("wrong-pw-93a"), "password authentication failed"),
        (format!("postgres://owner@127.0.0.1:{}/postgres", server.port), "asks for a password"),
    ] {
        let o = sb.cmd(&["run", "-q", "-e", "postgres", "--url", &url, "-T", "0.1s"]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "expected '{needle}' in {err}");
        assert!(!err.contains("wrong-pw-93a"), "{err}");
    }
}
