//! MySQL's TLS: every `ssl-mode` against a throwaway MariaDB with TLS (`dbrace serve -p
//! ram+tls`) and against the machine's server, which has none; a certificate for another
//! name under VERIFY_IDENTITY; the mariadb client on what serve hands out; and
//! `run -p ram,ram+tls` recording each cell's session.

use super::{URL, require_binaries, require_server};
use crate::common::{Sandbox, read_json};
use crate::tls_run::{self, plain_and_tls};
use std::io::Read;
use std::process::{Child, Command, Stdio};

/// A `dbrace serve mysql ARGS` and the variables it printed; stopped and checked for
/// leftovers on drop.
struct Served<'a> {
    sb: &'a Sandbox,
    child: Option<Child>,
    exports: String,
}

impl<'a> Served<'a> {
    fn start(sb: &'a Sandbox, profile: &str) -> Served<'a> {
        let mut child =
            sb.spawn(&["serve", "mysql", "-p", profile]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut exports = String::new();
        child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
        let mut served = Served { sb, child: Some(child), exports };
        if served.exports.is_empty() {
            let mut err = String::new();
            let mut c = served.child.take().unwrap();
            c.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            let _ = c.wait();
            panic!("serve printed nothing: {err}");
        }
        served
    }

    fn var(&self, name: &str) -> String {
        let line = self.exports.lines().find(|l| l.starts_with(&format!("export {name}=")));
        let line = line.unwrap_or_else(|| panic!("no {name} in {}", self.exports));
        line.split_once('=').unwrap().1.trim_matches('\'').to_string()
    }

    /// The account's URL without its options, to `host` instead of 127.0.0.1.
    fn base_url(&self, host: &str) -> String {
        let url = self.var("DATABASE_URL");
        let url = url.split('?').next().unwrap().to_string();
        url.replace("@127.0.0.1:", &format!("@{host}:"))
    }

    /// The throwaway CA's certificate.
    fn ca(&self) -> String {
        format!("{}/ca.crt", self.var("MYSQL_HOME"))
    }

    /// The mariadb client with what serve exported, and `args`.
    fn mariadb(&self, args: &[&str]) -> std::process::Output {
        let mut c = Command::new("mariadb");
        for name in ["MYSQL_HOST", "MYSQL_TCP_PORT", "MYSQL_PWD", "MYSQL_HOME"] {
            c.env(name, self.var(name));
        }
        c.args(args).output().expect("the mariadb client runs")
    }
}

impl Drop for Served<'_> {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let status = c.wait().unwrap();
            if !std::thread::panicking() {
                assert_eq!(status.code(), Some(0), "serve ends cleanly on SIGTERM");
                assert!(self.sb.no_servers(&["mariadbd", "mysqld"]), "a server survived");
                assert!(self.sb.leftovers().is_empty(), "{:?}", self.sb.leftovers());
            }
        }
    }
}

/// `dbrace run` of a few insert-commit transactions against `url`: the exit code, stderr,
/// A run against `url`: its exit code, stderr and recorded session.
fn run_url(sb: &Sandbox, url: &str) -> (Option<i32>, String, Option<String>) {
    tls_run::run_url(sb, "mysql", "disk", url)
}

/// A session as rustls names it: `TLSv1.3 TLS13_AES_256_GCM_SHA384`.
fn is_tls(tls: &Option<String>) -> bool {
    tls.as_deref().is_some_and(|t| t.starts_with("TLSv1.") && t.contains("_"))
}

#[test]
fn every_ssl_mode_against_a_server_with_tls_and_the_mariadb_client() {
    require_binaries();
    let sb = Sandbox::new();
    let served = Served::start(&sb, "ram+tls");
    let url = served.base_url("127.0.0.1");
    let ca = served.ca();
    assert!(served.var("DATABASE_URL").contains("?ssl-mode=VERIFY_IDENTITY&ssl-ca=%2F"), "{}", served.exports);

    // What serve hands out works as it is: our own client reads the URL whole.
    let (code, err, tls) = run_url(&sb, &served.var("DATABASE_URL"));
    assert!(code == Some(0) && is_tls(&tls), "{err} {tls:?}");
    for mode in ["", "?ssl-mode=preferred", "?ssl-mode=REQUIRED", "?ssl_mode=Required"] {
        let (code, err, tls) = run_url(&sb, &format!("{url}{mode}"));
        assert!(code == Some(0) && is_tls(&tls), "{mode}: {err} {tls:?}");
    }
    for mode in [format!("?ssl-mode=VERIFY_CA&ssl-ca={ca}"), format!("?ssl-mode=VERIFY_IDENTITY&ssl_ca={ca}")] {
        let (code, err, tls) = run_url(&sb, &format!("{url}{mode}"));
        assert!(code == Some(0) && is_tls(&tls), "{mode}: {err} {tls:?}");
    }
    // localhost is the certificate's other name.
    let localhost = served.base_url("localhost");
    let (code, err, tls) = run_url(&sb, &format!("{localhost}?ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"));
    assert!(code == Some(0) && is_tls(&tls), "{err} {tls:?}");

    // The throwaway CA is no system root: a mode that checks the chain needs ssl-ca.
    for mode in ["VERIFY_CA", "VERIFY_IDENTITY"] {
        let (code, err, _) = run_url(&sb, &format!("{url}?ssl-mode={mode}"));
        assert_eq!(code, Some(2), "{mode}: {err}");
        assert!(err.contains("UnknownIssuer") && err.contains("ssl-ca=FILE"), "{mode}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // require_secure_transport: the server refuses a plain login.
    let (code, err, _) = run_url(&sb, &format!("{url}?ssl-mode=DISABLED"));
    assert_eq!(code, Some(2), "{err}");
    let password = served.var("MYSQL_PWD");
    assert!(!err.contains(&password), "{err}");
    let (code, err, _) = run_url(&sb, &format!("{url}?ssl-mode=sometimes"));
    assert!(code == Some(2) && err.contains("DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY"), "{err}");

    // The mariadb client: with the options named, and with what the variables give alone.
    let status = "SHOW STATUS LIKE 'Ssl_version'";
    for args in [
        vec!["--ssl-ca", &ca, "--ssl-verify-server-cert", "-u", "dbrace", "-N", "-e", status],
        vec!["-N", "-e", status],
    ] {
        let o = served.mariadb(&args);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && text.contains("TLSv1."),
            "{args:?}: {text}{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    // An account the wire client cannot log in goes to mysql_async, which has no TLS:
    // refused when the URL insists on TLS, naming the method and the fixes.
    let sql = "INSTALL SONAME 'auth_ed25519'; CREATE USER ed@'127.0.0.1' IDENTIFIED VIA ed25519 USING PASSWORD('ed-pw'); \
               GRANT ALL ON *.* TO ed@'127.0.0.1'";
    let o = served.mariadb(&["-e", sql]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ed = url.replace("//dbrace:", "//ed:").replace(&format!(":{password}@"), ":ed-pw@");
    let (code, err, _) = run_url(&sb, &format!("{ed}?ssl-mode=REQUIRED"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("logs in by client_ed25519") && err.contains("mysql_native_password"), "{err}");
    assert!(!err.contains("ed-pw") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn every_ssl_mode_against_the_system_server_without_tls() {
    require_server();
    let sb = Sandbox::new();
    let have = Command::new("mariadb")
        .env("MYSQL_PWD", "not-a-real-secret")
        .args(["-h", "127.0.0.1", "-P", "3306", "-u", "dbrace_test", "-N", "-e", "SELECT @@have_ssl"])
        .output()
        .expect("the mariadb client runs");
    let have = String::from_utf8_lossy(&have.stdout).trim().to_string();
    assert_ne!(have, "YES", "this test wants the machine's server without TLS, as scripts/test starts it");
    for mode in ["", "?ssl-mode=DISABLED", "?ssl-mode=PREFERRED"] {
        let (code, err, tls) = run_url(&sb, &format!("{URL}{mode}"));
        assert!(code == Some(0) && tls.as_deref() == Some("off"), "{mode}: {err} {tls:?}");
    }
    for mode in ["REQUIRED", "VERIFY_CA", "verify_identity"] {
        let (code, err, _) = run_url(&sb, &format!("{URL}?ssl-mode={mode}"));
        assert_eq!(code, Some(2), "{mode}: {err}");
        assert!(err.contains("127.0.0.1:3306: the server does not offer TLS") && err.contains("--ssl-cert"), "{err}");
        assert!(!err.contains("not-a-real-secret") && err.trim().lines().count() == 1, "{err}");
    }
    // TLS is for TCP: on a unix socket an ssl- option is a mistake.
    let socket = "mysql://root@/?socket=%2Frun%2Fmysqld%2Fmysqld.sock&ssl-mode=REQUIRED";
    let (code, err, _) = run_url(&sb, socket);
    assert!(code == Some(2) && err.contains("TLS runs over TCP only"), "{err}");
}

/// A certificate for another name than the URL's host: VERIFY_IDENTITY refuses it naming
/// the host, VERIFY_CA takes it. The served server's certificate is swapped for one of
/// the test's own CA, for `db.example.com` only, and reloaded with FLUSH SSL.
#[test]
fn verify_identity_refuses_a_certificate_for_another_name() {
    require_binaries();
    let sb = Sandbox::new();
    let served = Served::start(&sb, "ram+tls");
    let home = std::path::PathBuf::from(served.var("MYSQL_HOME"));
    // The server shows the old certificate until FLUSH SSL: that client checks it so.
    let old_ca = sb.out("old-ca.crt");
    std::fs::copy(home.join("ca.crt"), &old_ca).unwrap();
    let (ca, cert, key) = certificate_for("db.example.com");
    for (file, text) in [("ca.crt", &ca), ("server.crt", &cert), ("server.key", &key)] {
        // Written in place: the files keep the server's owner and mode.
        std::fs::write(home.join(file), text).unwrap();
    }
    let o = served.mariadb(&["--ssl-ca", old_ca.to_str().unwrap(), "-u", "dbrace", "-e", "FLUSH SSL"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let url = served.base_url("127.0.0.1");
    let ca = served.ca();
    let (code, err, _) = run_url(&sb, &format!("{url}?ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not valid for the host name 127.0.0.1") && err.contains("ssl-mode=VERIFY_CA"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, err, tls) = run_url(&sb, &format!("{url}?ssl-mode=VERIFY_CA&ssl-ca={ca}"));
    assert!(code == Some(0) && is_tls(&tls), "{err} {tls:?}");
}

/// A CA's certificate, and a certificate it signed for `name` with its key, in PEM.
fn certificate_for(name: &str) -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair, KeyUsagePurpose};
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().unwrap();
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec![name.to_string()]).unwrap().signed_by(&key, &ca, &ca_key).unwrap();
    (ca.pem(), cert.pem(), key.serialize_pem())
}

#[test]
fn a_run_of_ram_and_ram_tls_records_each_session() {
    require_binaries();
    let sb = Sandbox::new();
    let out = sb.out("tls.json");
    sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram,ram+tls", "-w", "select-only", "-c", "1", "-t", "200"])
        .args(["-r", "1", "--warmup", "0s", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let [plain, _] = plain_and_tls(&read_json(&out), "mysql", "select-only");
    assert_eq!(plain["transport"], "socket", "{plain}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn tls_with_the_docker_launcher_is_refused_before_anything_starts() {
    let sb = Sandbox::new();
    let o =
        sb.cmd(&["run", "-q", "-e", "mysql", "-p", "ram+tls", "--launcher", "docker", "-t", "10"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("native launcher only") && err.contains("ram+tls"), "{err}");
}

/// exec's command gets the same: a bare `mariadb` logs in over TLS, checking the
/// certificate, from the variables alone.
#[test]
fn an_exec_command_reaches_a_tls_server_with_the_mariadb_client() {
    require_binaries();
    let sb = Sandbox::new();
    let file = sb.out("ssl.txt");
    let script =
        format!(r#"mariadb -Nse "SHOW STATUS LIKE 'Ssl_version'" >> {0}; echo "$DATABASE_URL" >> {0}"#, file.display());
    sb.cmd(&["exec", "-q", "-e", "mysql", "-p", "ram+tls", "-r", "1", "--warmup", "0", "--", "sh", "-c", &script])
        .assert()
        .success();
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Ssl_version\tTLSv1."), "{text}");
    assert!(lines[1].contains("?ssl-mode=VERIFY_IDENTITY&ssl-ca="), "{text}");
    assert!(sb.no_servers(&["mariadbd", "mysqld"]) && sb.leftovers().is_empty());
}
