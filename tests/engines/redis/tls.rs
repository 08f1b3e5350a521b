//! Redis with TLS: `rediss://` and its options against redis-servers of the test's own
//! with TLS (certificates from a CA the test makes), and against the machine's server
//! without it; a run of `ram` and `ram+tls` throwaway servers side by side; `serve`
//! handing out a `rediss://` URL that redis-cli reaches.

use super::own_server::redis_server;
use super::require_binary;
use crate::common::docker::{REDIS_IMAGE, containers_of, require_docker};
use crate::common::{Sandbox, read_json, signal};
use crate::tls_run::{self, plain_and_tls};
use dbrace::instance::certs::{self, Certs};
use std::ffi::OsString;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A redis-server with TLS only, on 127.0.0.1 and 127.0.0.2 (a name its certificate
/// does not hold); killed when dropped.
struct TlsServer {
    child: Child,
    port: u16,
    certs: Certs,
    _dir: tempfile::TempDir,
}

impl TlsServer {
    /// Start one; `auth_clients` is its `tls-auth-clients` (`yes`: a client certificate
    /// from the CA is required).
    fn start(auth_clients: &str) -> TlsServer {
        require_binary();
        let dir = tempfile::tempdir().unwrap();
        let certs = certs::make(dir.path(), None).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let port_arg = port.to_string();
        let flags = ["--port", "0", "--tls-port", &port_arg, "--bind", "127.0.0.1", "127.0.0.2"];
        let mut args: Vec<OsString> =
            flags.iter().chain(&["--tls-auth-clients", auth_clients]).map(OsString::from).collect();
        for (flag, file) in
            [("--tls-cert-file", &certs.cert), ("--tls-key-file", &certs.key), ("--tls-ca-cert-file", &certs.ca)]
        {
            args.extend([OsString::from(flag), file.into()]);
        }
        let child = redis_server(args, dir.path(), port);
        TlsServer { child, port, certs, _dir: dir }
    }

    /// `rediss://HOST:PORT/0` and `query`.
    fn url(&self, host: &str, query: &str) -> String {
        format!("rediss://{host}:{}/0{query}", self.port)
    }

    fn ca(&self) -> String {
        self.certs.ca.to_string_lossy().into_owned()
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A run against `url`: its exit code, stderr and recorded session.
fn run_url(sb: &Sandbox, url: &str) -> (Option<i32>, String, Option<String>) {
    tls_run::run_url(sb, "redis", "disk", url)
}

/// A run that ends at once, exit 2, with one line that says each of `says`.
fn refused(sb: &Sandbox, url: &str, says: &[&str]) {
    tls_run::refused(sb, "redis", "disk", url, says)
}

#[test]
fn every_option_against_a_server_with_tls() {
    let s = TlsServer::start("no");
    let sb = Sandbox::new();
    let ca = s.ca();
    for (host, query) in [
        ("127.0.0.1", format!("?ssl_ca_certs={ca}")),
        ("localhost", format!("?ssl_ca_certs={ca}")),
        ("127.0.0.1", format!("?ssl_cert_reqs=required&ssl_ca_certs={ca}&ssl_check_hostname=true")),
        ("127.0.0.1", format!("?ssl_cert_reqs=optional&ssl_ca_certs={ca}")),
        // The chain checked, not the name: 127.0.0.2 is not on the certificate.
        ("127.0.0.2", format!("?ssl_ca_certs={ca}&ssl_check_hostname=false")),
        // Nothing checked: the system's roots do not know the test's CA.
        ("127.0.0.2", "?ssl_cert_reqs=none".to_string()),
    ] {
        let url = s.url(host, &query);
        let (code, err, tls) = run_url(&sb, &url);
        assert_eq!(code, Some(0), "{url}: {err}");
        let tls = tls.unwrap_or_default();
        assert!(tls.starts_with("TLSv1.") && tls.contains(' '), "{url}: tls {tls}");
    }
    // verify-full by default: the name must be on the certificate.
    refused(&sb, &s.url("127.0.0.2", &format!("?ssl_ca_certs={ca}")), &["127.0.0.2", "ssl_check_hostname=false"]);
    // The system's roots do not know the test's CA, whether the name is checked or not.
    refused(&sb, &s.url("localhost", ""), &["issuer", "ssl_ca_certs=FILE"]);
    refused(&sb, &s.url("localhost", "?ssl_check_hostname=false"), &["issuer", "ssl_ca_certs=FILE"]);
    // A client without TLS at a server with TLS only.
    refused(&sb, &format!("redis://127.0.0.1:{}/0", s.port), &["rediss://"]);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn a_client_certificate_reaches_a_server_that_wants_one() {
    let s = TlsServer::start("yes");
    let sb = Sandbox::new();
    let (ca, cert, key) = (s.ca(), s.certs.cert.display().to_string(), s.certs.key.display().to_string());
    let url = s.url("localhost", &format!("?ssl_ca_certs={ca}&ssl_certfile={cert}&ssl_keyfile={key}"));
    let (code, err, tls) = run_url(&sb, &url);
    assert_eq!(code, Some(0), "{url}: {err}");
    assert!(tls.unwrap_or_default().starts_with("TLSv1."));
    refused(&sb, &s.url("localhost", &format!("?ssl_ca_certs={ca}")), &["localhost:", "ssl_certfile"]);
}

#[test]
fn every_option_against_the_machine_server_without_tls() {
    super::require_system_server();
    let sb = Sandbox::new();
    let (code, err, tls) = run_url(&sb, "redis://127.0.0.1:6379/0");
    assert_eq!((code, tls.as_deref()), (Some(0), Some("off")), "{err}");
    // A server without TLS waits for the rest of what it takes for a command.
    for query in ["?timeout=2s", "?timeout=2s&ssl_cert_reqs=none", "?timeout=2s&ssl_check_hostname=false"] {
        let t = Instant::now();
        refused(&sb, &format!("rediss://127.0.0.1:6379/0{query}"), &["is TLS on there", "redis://"]);
        assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    }
}

#[test]
fn mistakes_in_tls_options_are_one_line_before_anything_starts() {
    let sb = Sandbox::new();
    for (url, says) in [
        ("rediss://127.0.0.1:1/0?ssl_cert_reqs=maybe", &["ssl_cert_reqs=maybe", "none, optional, required"][..]),
        ("rediss://127.0.0.1:1/0?ssl_check_hostname=perhaps", &["true or false"]),
        ("rediss://127.0.0.1:1/0?ssl_cert_reqs=none&ssl_check_hostname=true", &["drop ssl_cert_reqs=none"]),
        ("rediss://127.0.0.1:1/0?ssl_certfile=/c.pem", &["ssl_keyfile"]),
        ("rediss://127.0.0.1:1/0?ssl_ciphers=ALL", &["unknown TLS option ssl_ciphers"]),
        ("redis://127.0.0.1:6379/0?ssl_ca_certs=/ca.pem", &["rediss://"]),
        ("redis+unix:///tmp/r.sock?ssl_ca_certs=/ca.pem", &["TCP only"]),
        (
            "rediss://:not-a-real-secret@127.0.0.1:1/0?ssl_ca_certs=/no/such/ca.pem",
            &["/no/such/ca.pem", "ssl_ca_certs"],
        ),
    ] {
        refused(&sb, url, says);
        let (_, err, _) = run_url(&sb, url);
        assert!(!err.contains("not-a-real-secret"), "{err}");
    }
}

#[test]
fn ram_tls_runs_in_a_container_too() {
    require_docker();
    let sb = Sandbox::new();
    let out = sb.out("docker-tls.json");
    let child = sb
        .spawn(&["run", "-q", "-e", "redis", "--launcher", "docker", "--image", REDIS_IMAGE, "-p", "ram,ram+tls"])
        .args(["-w", "insert-commit", "-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    plain_and_tls(&read_json(&out), "redis", "insert-commit");
    assert!(containers_of(pid).is_empty() && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn ram_and_ram_tls_race_side_by_side_and_record_the_session() {
    require_binary();
    let sb = Sandbox::new();
    let out = sb.out("tls.json");
    sb.cmd(&["run", "-q", "-e", "redis", "-p", "ram,ram+tls", "-w", "insert-commit", "-t", "100"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let [plain, tls] = plain_and_tls(&read_json(&out), "redis", "insert-commit");
    assert!(plain["transport"].as_str().unwrap().starts_with("socket "), "{plain}");
    assert_eq!(tls["dir_filesystem"], "tmpfs", "{tls}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

/// The value of `export NAME='…'` in serve's output.
fn var<'a>(exports: &'a str, name: &str) -> &'a str {
    let line =
        exports.lines().find(|l| l.starts_with(&format!("export {name}="))).unwrap_or_else(|| panic!("{exports}"));
    line.split_once('=').unwrap().1.trim_matches('\'')
}

#[test]
fn serve_hands_out_a_rediss_url_redis_cli_reaches_with_the_ca() {
    require_binary();
    let sb = Sandbox::new();
    let mut child =
        sb.spawn(&["serve", "redis", "-p", "ram+tls"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let child = child.as_mut().unwrap();
    let mut exports = String::new();
    child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
    let (url, ca) = (var(&exports, "REDIS_URL"), var(&exports, "REDIS_CA_CERT"));
    assert!(url.starts_with("rediss://default:") && url.contains("@127.0.0.1:"), "{exports}");
    assert!(url.contains(&format!("ssl_ca_certs={ca}")) && url.contains("ssl_check_hostname=true"), "{url}");
    let cli = |args: &[&str]| {
        let o = Command::new("redis-cli").args(args).args(["--no-auth-warning", "-u", url, "PING"]).output().unwrap();
        String::from_utf8_lossy(&o.stdout).trim().to_string() + &String::from_utf8_lossy(&o.stderr)
    };
    assert_eq!(cli(&["--tls", "--cacert", ca]), "PONG");
    assert!(cli(&["--tls"]).contains("certificate verify failed"), "the system's roots do not know the CA");
    // dbrace's own client takes the URL as it is handed out.
    let (code, err, tls) = run_url(&sb, url);
    assert_eq!(code, Some(0), "{err}");
    assert!(tls.unwrap_or_default().starts_with("TLSv1.3"), "{err}");
    signal(child.id() as i32, libc::SIGTERM);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains(url.split_once("default:").unwrap().1.split_once('@').unwrap().0), "{err}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
