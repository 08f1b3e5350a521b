//! MongoDB with TLS: the connection string's TLS options against SecantusDB with TLS
//! (its own TLS, certificates from a CA the test makes) and without it; managed `+tls`
//! through the stand-in mongod, which hands mongod's TLS options on to SecantusDB; and
//! `serve` handing out a URI pymongo reaches.

use super::stand_in::{StandIn, python};
use crate::common::{Sandbox, read_json, signal};
use crate::tls_run::{self, plain_and_tls};
use dbrace::instance::certs::{self, Certs};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A CA of the test's own, the server certificate it signed (for localhost and
/// 127.0.0.1), and that certificate with its key in one PEM (`tlsCertificateKeyFile`).
struct Files {
    certs: Certs,
    pem: PathBuf,
    _dir: tempfile::TempDir,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let certs = certs::make(dir.path(), None).unwrap();
    let pem = dir.path().join("client.pem");
    let both = std::fs::read_to_string(&certs.cert).unwrap() + &std::fs::read_to_string(&certs.key).unwrap();
    std::fs::write(&pem, both).unwrap();
    Files { certs, pem, _dir: dir }
}

/// Bytes passed both ways between 127.0.0.2 (a name the certificate does not hold) and
/// the server on 127.0.0.1:`port`: the port on 127.0.0.2.
fn relay(port: u16) -> u16 {
    let l = TcpListener::bind("127.0.0.2:0").unwrap();
    let near = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in l.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else { continue };
            for (mut from, mut to) in [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)] {
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from, &mut to);
                    let _ = to.shutdown(std::net::Shutdown::Both);
                });
            }
        }
    });
    near
}

/// A run against `url`: its exit code, stderr and recorded session.
fn run_url(sb: &Sandbox, url: &str) -> (Option<i32>, String, Option<String>) {
    tls_run::run_url(sb, "mongo", "async", url)
}

/// A run that ends, exit 2, with one line that says each of `says`.
fn refused(sb: &Sandbox, url: &str, says: &[&str]) {
    tls_run::refused(sb, "mongo", "async", url, says)
}

#[test]
fn every_option_against_a_server_with_tls() {
    let f = files();
    let s = StandIn::start_tls(&f.certs.cert, &f.certs.key, None, false);
    let sb = Sandbox::new();
    let ca = f.certs.ca.display().to_string();
    let far = relay(s.port);
    let at = |host: &str, port: u16, q: &str| format!("mongodb://{host}:{port}/{q}");
    for url in [
        at("127.0.0.1", s.port, &format!("?tls=true&tlsCAFile={ca}")),
        at("localhost", s.port, &format!("?ssl=true&tlsCAFile={ca}")),
        // A TLS option alone turns TLS on, as pymongo does.
        at("localhost", s.port, &format!("?tlsCAFile={ca}")),
        at("127.0.0.1", s.port, "?tls=true&tlsInsecure=true"),
        at("127.0.0.1", s.port, "?tls=true&tlsAllowInvalidCertificates=true"),
        // The chain checked, not the name: 127.0.0.2 is not on the certificate.
        at("127.0.0.2", far, &format!("?tls=true&tlsCAFile={ca}&tlsAllowInvalidHostnames=true")),
    ] {
        let (code, err, tls) = run_url(&sb, &url);
        assert_eq!(code, Some(0), "{url}: {err}");
        let tls = tls.unwrap_or_default();
        assert!(tls.starts_with("TLSv1.") && tls.contains(' '), "{url}: tls {tls}");
    }
    // verify-full by default: the name must be on the certificate.
    refused(
        &sb,
        &at("127.0.0.2", far, &format!("?tls=true&tlsCAFile={ca}")),
        &["127.0.0.2", "tlsAllowInvalidHostnames"],
    );
    // The system's roots do not know the test's CA.
    refused(&sb, &at("localhost", s.port, "?tls=true"), &["issuer", "tlsCAFile=FILE"]);
    refused(&sb, &at("localhost", s.port, "?tls=true&tlsAllowInvalidHostnames=true"), &["issuer"]);
    // A client without TLS at a server with TLS only.
    refused(&sb, &at("127.0.0.1", s.port, ""), &["tls=true"]);
}

#[test]
fn a_client_certificate_reaches_a_server_that_requires_one() {
    let f = files();
    let s = StandIn::start_tls(&f.certs.cert, &f.certs.key, Some(&f.certs.ca), true);
    let sb = Sandbox::new();
    let (ca, pem) = (f.certs.ca.display().to_string(), f.pem.display().to_string());
    let url = format!("mongodb://localhost:{}/?tls=true&tlsCAFile={ca}&tlsCertificateKeyFile={pem}", s.port);
    let (code, err, tls) = run_url(&sb, &url);
    assert_eq!(code, Some(0), "{url}: {err}");
    assert!(tls.unwrap_or_default().starts_with("TLSv1."));
    let (code, err, _) = run_url(&sb, &format!("mongodb://localhost:{}/?tls=true&tlsCAFile={ca}", s.port));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn tls_options_against_a_server_without_tls() {
    let f = files();
    let s = StandIn::start();
    let sb = Sandbox::new();
    let (code, err, tls) = run_url(&sb, &s.url());
    assert_eq!((code, tls.as_deref()), (Some(0), Some("off")), "{err}");
    let ca = f.certs.ca.display().to_string();
    for q in [format!("?tls=true&tlsCAFile={ca}&connectTimeoutMS=3000"), "?tls=true&tlsInsecure=true".into()] {
        let t = Instant::now();
        let (code, err, _) = run_url(&sb, &format!("{}{q}", s.url()));
        assert_eq!(code, Some(2), "{q}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("TLS"), "{q}: {err}");
        assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    }
}

#[test]
fn mistakes_in_tls_options_are_one_line_before_anything_starts() {
    let sb = Sandbox::new();
    for (url, says) in [
        ("mongodb://h:1/?tls=yes", &["tls=yes is not true or false"][..]),
        ("mongodb://h:1/?tls=false&tlsCAFile=/ca.pem", &["tls=false with other"]),
        ("mongodb://h:1/?tlsInsecure=true&tlsAllowInvalidCertificates=true", &["give one"]),
        ("mongodb://%2Ftmp%2Fm.sock/?tls=true", &["TCP only"]),
        ("mongodb+srv://u:not-a-real-secret@c.example/db", &["DNS SRV", "tls=true"]),
        (
            "mongodb://u:not-a-real-secret@127.0.0.1:1/?tls=true&tlsCAFile=/no/such/ca.pem",
            &["/no/such/ca.pem", "tlsCAFile"],
        ),
    ] {
        refused(&sb, url, says);
        assert!(!run_url(&sb, url).1.contains("not-a-real-secret"));
    }
    let o = sb.cmd(&["run", "-q", "-e", "mongo", "--launcher", "docker", "-p", "ram+tls"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("'ram+tls'") && err.contains("--launcher native"), "{err}");
}

/// The stand-in mongod's directory.
fn stand_in_bin() -> String {
    format!("{}/tests/engines/mongo/stand-in", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn ram_and_ram_tls_race_side_by_side_through_the_stand_in() {
    python();
    let sb = Sandbox::new();
    let out = sb.out("tls.json");
    sb.cmd(&["run", "-q", "-e", "mongo", "--mongo-bin", &stand_in_bin(), "--transport", "tcp", "-p", "ram,ram+tls"])
        .args(["-w", "insert-commit", "-t", "30", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let [_, tls] = plain_and_tls(&read_json(&out), "mongo", "insert-commit");
    assert_eq!(tls["server_process"], "secantus", "{tls}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn serve_hands_out_a_uri_with_the_ca_that_pymongo_reaches() {
    let py = python();
    let sb = Sandbox::new();
    let mut child = sb
        .spawn(&["serve", "mongo", "--mongo-bin", &stand_in_bin(), "-p", "ram+tls"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut exports = String::new();
    child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
    let line = exports.lines().find(|l| l.starts_with("export MONGODB_URI=")).unwrap_or_else(|| panic!("{exports}"));
    let url = line.split_once('=').unwrap().1.trim_matches('\'').to_string();
    assert!(url.contains("tls=true&tlsCAFile=/"), "{url}");
    let probe = "import sys, pymongo; c = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000); \
                 print(c.admin.command('serverStatus')['process'], c.get_default_database().t.insert_one({}).acknowledged)";
    let o = Command::new(&py).args(["-c", probe]).arg(&url).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "secantus True");
    // Without the CA, pymongo's check of the certificate fails.
    let bare = url.split("&tlsCAFile=").next().unwrap();
    let o = Command::new(&py).args(["-c", probe.replace("10000", "2000").as_str()]).arg(bare).output().unwrap();
    assert!(!o.status.success(), "pymongo trusted an unknown CA");
    signal(child.id() as i32, libc::SIGTERM);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
