//! A redis-server of the test's own on a free port, with a password; killed when dropped.

use std::ffi::OsStr;
use std::path::Path;
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
        let port_arg = port.to_string();
        let args = ["--port", &port_arg, "--bind", "127.0.0.1", "--requirepass", SECRET];
        let child = redis_server(args, dir.path(), port);
        OwnServer { child, port, _dir: dir }
    }
}

/// A redis-server with `args`, keeping nothing on disk, its files in `dir`, once it
/// listens on 127.0.0.1:`port`.
pub fn redis_server(args: impl IntoIterator<Item = impl AsRef<OsStr>>, dir: &Path, port: u16) -> Child {
    let child = Command::new("redis-server")
        .args(args)
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(dir)
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server runs (apt-get install redis-server)");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(10), "the test's own redis-server did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
