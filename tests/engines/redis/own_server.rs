//! A redis-server of the test's own on a free port, with a password; killed when dropped.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Its password.
pub const SECRET: &str = "not-a-real-secret";

/// The running server.
pub struct OwnServer {
    child: Child,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl OwnServer {
    /// Start it and wait until it listens.
    pub fn start() -> OwnServer {
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
