//! SecantusDB, the MongoDB-wire-compatible server scripts/test installs from PyPI, as
//! the tests' server: one of the test's own on a free 127.0.0.1 port, its storage in a
//! directory of its own, stopped (and that directory removed) when dropped, or when the
//! test process goes, whichever comes first. Its numbers are SecantusDB's, not MongoDB's.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The virtualenv scripts/test installs secantusdb and pymongo into.
pub const VENV: &str = "/opt/dbrace-test-venv";

/// The venv's python, or a loud failure with the install hint.
pub fn python() -> PathBuf {
    let py = Path::new(VENV).join("bin/python");
    let ok = Command::new(&py).args(["-c", "import secantus, pymongo"]).output().is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "secantusdb missing: run scripts/test, which installs it (python3 -m venv {VENV}; {VENV}/bin/pip install secantusdb pymongo)"
    );
    py
}

/// Run `script` with pymongo against `url`; its stdout, trimmed.
pub fn pymongo(url: &str, script: &str) -> String {
    let prelude = "import pymongo, sys\nc = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000)\n";
    let o = Command::new(python()).args(["-c", &format!("{prelude}{script}"), url]).output().unwrap();
    assert!(o.status.success(), "pymongo: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A running SecantusDB.
pub struct StandIn {
    /// The shell that runs it and stops it with the test process.
    child: Child,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The shell around the server: it stops the server when told to (TERM) or when the
/// test process is gone, and removes the storage when `REMOVE` is 1.
const WATCH: &str = r#"
"$PY" -m secantus --host 127.0.0.1 --port "$PORT" --storage-path "$DIR" --standalone $AUTH $TLS >"$DIR.log" 2>&1 &
s=$!
stop() { kill -INT $s 2>/dev/null; wait $s; [ "$REMOVE" = 1 ] && rm -rf "$DIR"; rm -f "$DIR.log"; exit 0; }
trap stop TERM INT
while kill -0 "$OWNER" 2>/dev/null && kill -0 $s 2>/dev/null; do sleep 0.2; done
stop
"#;

impl StandIn {
    /// Start one on a free port in a new directory (removed afterwards).
    pub fn start() -> StandIn {
        let dir = tempfile::Builder::new().prefix("dbrace-secantus-").tempdir().unwrap().keep();
        StandIn::start_in(&dir, false, true)
    }

    /// Start one on `dir`, requiring a login when `auth`; `remove` the directory after.
    pub fn start_in(dir: &Path, auth: bool, remove: bool) -> StandIn {
        StandIn::start_with(dir, auth, remove, &[])
    }

    /// Start one on a free port in a new directory (removed afterwards), in TLS only with
    /// the certificate and key `cert` and `key`, asking clients for a certificate of the
    /// CA `ca` when given one, and requiring it when `require`.
    pub fn start_tls(cert: &Path, key: &Path, ca: Option<&Path>, require: bool) -> StandIn {
        let dir = tempfile::Builder::new().prefix("dbrace-secantus-tls-").tempdir().unwrap().keep();
        let mut tls = vec!["--tls-cert-file".into(), cert.to_path_buf(), "--tls-key-file".into(), key.to_path_buf()];
        if let Some(ca) = ca {
            tls.extend(["--tls-ca-file".into(), ca.to_path_buf()]);
        }
        if require {
            tls.push("--tls-require-client-cert".into());
        }
        StandIn::start_with(&dir, false, true, &tls)
    }

    /// Start one on `dir` with `tls`'s words on its command line (paths without spaces).
    fn start_with(dir: &Path, auth: bool, remove: bool, tls: &[PathBuf]) -> StandIn {
        let py = python();
        let tls: Vec<String> = tls.iter().map(|w| w.to_string_lossy().into_owned()).collect();
        let port = free_port();
        let child = Command::new("sh")
            .args(["-c", WATCH])
            .env("PY", py)
            .env("PORT", port.to_string())
            .env("DIR", dir)
            .env("AUTH", if auth { "--auth" } else { "" })
            .env("TLS", tls.join(" "))
            .env("REMOVE", if remove { "1" } else { "0" })
            .env("OWNER", std::process::id().to_string())
            .stdin(Stdio::null())
            .spawn()
            .expect("sh runs");
        let s = StandIn { child, port };
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            let log = std::fs::read_to_string(format!("{}.log", dir.display())).unwrap_or_default();
            assert!(start.elapsed() < Duration::from_secs(60), "secantusdb did not start on port {port}: {log}");
            std::thread::sleep(Duration::from_millis(50));
        }
        s
    }

    /// `mongodb://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("mongodb://127.0.0.1:{}/", self.port)
    }

    /// The databases dbrace made (`dbrace_…`) that are still there, as one line.
    pub fn dbrace_databases(url: &str) -> String {
        pymongo(url, "print(sorted(d for d in c.list_database_names() if d.startswith('dbrace')))")
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        // SIGTERM to the shell: it stops the server and waits for it.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// A server that asks for a password: user `user` with `password` made on it first,
/// then it starts again with `--auth`.
pub struct PasswordStandIn {
    /// The server.
    pub server: StandIn,
    _dir: tempfile::TempDir,
}

impl PasswordStandIn {
    /// Start it with user `user`, password `password` (root), both SCRAM mechanisms.
    pub fn start(user: &str, password: &str) -> PasswordStandIn {
        let dir = tempfile::Builder::new().prefix("dbrace-secantus-auth-").tempdir().unwrap();
        let first = StandIn::start_in(dir.path(), false, false);
        let create = format!(
            "c.admin.command({{'createUser': '{user}', 'pwd': '{password}', 'roles': ['root'], 'mechanisms': ['SCRAM-SHA-256', 'SCRAM-SHA-1']}})"
        );
        pymongo(&first.url(), &create);
        drop(first);
        PasswordStandIn { server: StandIn::start_in(dir.path(), true, false), _dir: dir }
    }
}
