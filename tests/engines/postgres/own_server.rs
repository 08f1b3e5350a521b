//! A PostgreSQL server of the test's own on 127.0.0.1 that asks for a SCRAM password, as a
//! real shared server does (the machine's own trusts local TCP). Stopped and removed on drop.

use crate::common::{is_root, signal, user_ids};
use std::process::Command;
use std::time::Duration;

/// The password of its role `owner`.
pub const PASSWORD: &str = "own-server-pw-4f1c";

/// The URL of the server on `port` as `owner` with `password`.
pub fn url(port: u16, password: &str) -> String {
    format!("postgres://owner:{password}@127.0.0.1:{port}/postgres")
}

/// The running server; its directory goes when it is dropped.
pub struct OwnServer {
    child: std::process::Child,
    /// How it is started again (`restart`).
    postgres: Command,
    bin: std::path::PathBuf,
    _dir: tempfile::TempDir,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
}

impl OwnServer {
    /// initdb and start it, and wait until it answers.
    pub fn start() -> OwnServer {
        use std::os::unix::process::CommandExt;
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL server binaries missing: apt-get install postgresql (scripts/test does)")
            .flatten()
            .map(|e| e.path().join("bin"))
            .max()
            .unwrap();
        let dir = tempfile::Builder::new().prefix("dbrace-test-own-pg-").tempdir_in("/var/tmp").unwrap();
        // PostgreSQL refuses root: as root, the server runs as `postgres`.
        let ids = is_root().then(|| user_ids("postgres"));
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, PASSWORD).unwrap();
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
        let server = OwnServer { child, postgres, bin, _dir: dir, port };
        server.wait_ready();
        server
    }

    /// Wait until it answers.
    fn wait_ready(&self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !Command::new(self.bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
            .status()
            .unwrap()
            .success()
        {
            assert!(std::time::Instant::now() < deadline, "the test's own server did not start");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Stop it (fast shutdown: every connection dropped), leave it down for `down`, and
    /// start it again on the same data and port; returns once it answers.
    pub fn restart(&mut self, down: Duration) {
        signal(self.child.id() as i32, libc::SIGINT);
        let _ = self.child.wait();
        std::thread::sleep(down);
        self.child = self.postgres.spawn().unwrap();
        self.wait_ready();
    }

    /// Its URL with `password`.
    pub fn url(&self, password: &str) -> String {
        url(self.port, password)
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        // SIGINT: fast shutdown; then the directory goes with the TempDir.
        signal(self.child.id() as i32, libc::SIGINT);
        let _ = self.child.wait();
    }
}
