//! PostgreSQL through PgBouncer in transaction pooling mode (Debian's `pgbouncer`,
//! scripts/test installs it) in front of a server of the test's own: named prepared
//! statements do not survive between transactions there, and the run's own database needs
//! a route through the pooler.

use super::own_server::{self, OwnServer};
use crate::common::{Sandbox, is_root, read_json, signal, user_ids};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the results say when named statements were lost and the run fell back.
const FELL_BACK: &str = "extended (prepared statements did not survive the pooler)";

/// The pgbouncer binary: a missing one is a loud failure, not a skipped test.
fn require_pgbouncer() -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|d| d.join("pgbouncer"))
        .find(|p| p.is_file());
    found.expect("pgbouncer missing: run scripts/test, which installs it (apt-get install pgbouncer)")
}

/// A PgBouncer of the test's own on 127.0.0.1 in transaction pooling mode, its ini, auth
/// file and log in a directory of its own; stopped and removed on drop.
struct Bouncer {
    child: std::process::Child,
    dir: tempfile::TempDir,
    /// Its TCP port on 127.0.0.1.
    port: u16,
}

impl Bouncer {
    /// Start one in front of `server` whose [databases] section is `databases` (with
    /// `{port}` for the server's port), and wait until it accepts connections.
    fn start(server: &OwnServer, databases: &str) -> Bouncer {
        use std::os::unix::process::CommandExt;
        let bin = require_pgbouncer();
        let dir = tempfile::Builder::new().prefix("dbrace-test-pgbouncer-").tempdir_in("/var/tmp").unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let d = dir.path().display();
        let ini = format!(
            "[databases]\n{}\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = scram-sha-256\nauth_file = {d}/users.txt\npool_mode = transaction\n\
             logfile = {d}/pgbouncer.log\npidfile =\n",
            databases.replace("{port}", &server.port.to_string())
        );
        std::fs::write(dir.path().join("pgbouncer.ini"), ini).unwrap();
        std::fs::write(dir.path().join("users.txt"), format!("\"owner\" \"{}\"\n", own_server::PASSWORD)).unwrap();
        let mut cmd = Command::new(bin);
        cmd.arg(dir.path().join("pgbouncer.ini")).stdout(Stdio::null()).stderr(Stdio::null());
        // PgBouncer refuses root: as root, it runs as `postgres`.
        if is_root() {
            let (u, g) = user_ids("postgres");
            for f in ["", "pgbouncer.ini", "users.txt"] {
                std::os::unix::fs::chown(dir.path().join(f), Some(u), Some(g)).unwrap();
            }
            cmd.uid(u).gid(g);
        }
        let child = cmd.spawn().unwrap();
        let mut b = Bouncer { child, dir, port };
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = b.child.try_wait() {
                panic!("pgbouncer exited ({status}): {}", b.log());
            }
            assert!(Instant::now() < deadline, "pgbouncer did not listen in time: {}", b.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        b
    }

    /// Its log, for failure messages.
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("pgbouncer.log")).unwrap_or_default()
    }

    /// The URL of the server's `postgres` database through it.
    fn url(&self) -> String {
        own_server::url(self.port, own_server::PASSWORD)
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        // SIGTERM: immediate shutdown, clients and servers closed.
        signal(self.child.id() as i32, libc::SIGTERM);
        let _ = self.child.wait();
    }
}

/// The dbrace_* databases on the server, asked of it directly (not through the pooler).
fn dbrace_databases(server: &OwnServer) -> String {
    let out = Command::new("psql")
        .env("PGPASSWORD", own_server::PASSWORD)
        .args(["-h", "127.0.0.1", "-p", &server.port.to_string(), "-U", "owner", "-d", "postgres", "-tAc"])
        .arg("SELECT coalesce(string_agg(datname, ','), '') FROM pg_database WHERE datname LIKE 'dbrace_%'")
        .output()
        .expect("psql runs");
    assert!(out.status.success(), "psql: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The default protocol (prepared) through a transaction pooler: the lost statements are
/// found, every later statement is unnamed, the run finishes with every transaction
/// verified and the fallback recorded, and one note (not an error) says so.
#[test]
fn prepared_statements_through_pgbouncer_fall_back_to_unnamed_ones() {
    let server = OwnServer::start();
    let bouncer = Bouncer::start(&server, "* = host=127.0.0.1 port={port}");
    let sb = Sandbox::new();
    let url = bouncer.url();
    // On a clock with a warm-up, then counting transactions without one, so a lost
    // statement is met in the measured part too: none of the transactions is lost.
    let runs: [(&str, &[&str]); 2] = [
        ("clock", &["-T", "1s", "--warmup", "0.3s", "-r", "2"]),
        ("count", &["-t", "100", "--warmup", "0s", "-r", "1"]),
    ];
    for (name, args) in runs {
        let out = sb.out(&format!("{name}.json"));
        let o = sb
            .cmd(&["run", "-e", "postgres", "--url", &url, "-p", "disk", "-w", "tpcb", "-c", "4"])
            .args(args)
            .args(["--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{name}: {stderr}\n{}", bouncer.log());
        assert_eq!(stderr.matches("note: named prepared statements did not survive").count(), 1, "{name}: {stderr}");
        assert!(stderr.contains("PgBouncer") && stderr.contains("--protocol extended"), "{name}: {stderr}");
        assert!(!stderr.contains("FAILED"), "{name}: {stderr}");
        for text in [&stdout, &stderr] {
            assert!(!text.contains(own_server::PASSWORD), "{name}: the password was printed: {text}");
        }
        let r = read_json(&out);
        assert!(!r.to_string().contains(own_server::PASSWORD), "{name}: the password is in the results");
        let cells = r["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 1, "{name}: {r}");
        for rep in cells[0]["repeats"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "{name}: {rep}");
            assert_eq!(rep["settings"]["protocol"], FELL_BACK, "{name}: {}", rep["settings"]);
            assert!(rep["verify"]["ok"].as_bool().unwrap(), "{name}: {}", rep["verify"]);
            assert_eq!(rep["errors"], 0, "{name}: {rep}");
            if name == "count" {
                // Every lost transaction was run again: 4 clients × 100 all committed.
                assert_eq!(rep["transactions"], 400, "{name}: {rep}");
            }
        }
    }
    assert_eq!(dbrace_databases(&server), "", "the run's databases are dropped");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

/// A pooler with no route to the database a run makes: one line naming the fallback
/// `* =` line to add, exit 2, and the database the run made is dropped all the same.
#[test]
fn a_pooler_without_a_route_to_the_runs_database_names_the_fix() {
    let server = OwnServer::start();
    let bouncer = Bouncer::start(&server, "postgres = host=127.0.0.1 port={port}");
    let sb = Sandbox::new();
    let o = sb
        .cmd(&["run", "-q", "-e", "postgres", "--url", &bouncer.url(), "-p", "disk", "-w", "tpcb", "-t", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}\n{}", bouncer.log());
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no route to the database dbrace_"), "{stderr}");
    assert!(stderr.contains("* = host=SERVER port=PORT") && stderr.contains("pgbouncer.ini"), "{stderr}");
    assert!(!stderr.contains(own_server::PASSWORD), "{stderr}");
    assert_eq!(dbrace_databases(&server), "", "the run's database is dropped");
}
