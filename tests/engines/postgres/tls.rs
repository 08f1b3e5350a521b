//! PostgreSQL over TLS: every sslmode against a throwaway server with TLS (`dbrace serve
//! -p ram+tls`: a CA of its own, pg_hba.conf hostssl only) and one without (`-p ram`),
//! the host name checked under verify-full, `run -p ram,ram+tls` end to end, and psql
//! through `exec --tls` with the URL and the variables handed out.

use crate::common::{Sandbox, read_json};
use crate::tls_run::{self, plain_and_tls};
use std::io::Read;
use std::process::{Child, Command, Stdio};

/// A `dbrace serve` in the background; stopped (SIGTERM) when dropped.
struct Served {
    child: Child,
    /// What it printed (`--format json`).
    out: serde_json::Value,
}

impl Served {
    fn start(sb: &Sandbox, profile: &str) -> Served {
        let args = ["serve", "postgres", "-p", profile, "--format", "json"];
        let mut child = sb.spawn(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut text = String::new();
        child.stdout.take().unwrap().read_to_string(&mut text).unwrap();
        let out = serde_json::from_str(&text).unwrap_or_else(|_| {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("serve {profile} printed '{text}': {err}")
        });
        Served { child, out }
    }

    fn var(&self, name: &str) -> String {
        self.out["env"][name].as_str().unwrap_or_else(|| panic!("no {name}: {}", self.out)).to_string()
    }

    /// DATABASE_URL without its query: where the server is and the account.
    fn base(&self) -> String {
        self.var("DATABASE_URL").split('?').next().unwrap().to_string()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// `dbrace run --url URL` with a short insert-commit: the cell's `tls` setting, or the
/// exit code and stderr.
fn tls_of(sb: &Sandbox, url: &str) -> Result<String, (Option<i32>, String)> {
    match tls_run::run_url(sb, "postgres", "disk", url) {
        (Some(0), _, Some(tls)) => Ok(tls),
        (code, err, _) => Err((code, err)),
    }
}

/// What a case expects: TLS, plain, or a failure whose one line says all of these.
enum Want {
    Tls,
    Plain,
    Fails(&'static [&'static str]),
}

#[test]
fn every_sslmode_against_servers_with_and_without_tls() {
    let sb = Sandbox::new();
    let (with, without) = (Served::start(&sb, "ram+tls"), Served::start(&sb, "ram"));
    let url = with.var("DATABASE_URL");
    let ca = with.var("PGSSLROOTCERT");
    assert!(url.contains("?sslmode=verify-full&sslrootcert=/"), "{url}");
    assert_eq!(with.var("PGSSLMODE"), "verify-full");
    assert!(std::path::Path::new(&ca).is_file(), "{ca}");
    let (tls_base, plain_base) = (with.base(), without.base());
    let port = tls_base.rsplit(':').next().unwrap().split('/').next().unwrap().to_string();
    let wrong_name = tls_base.replace("@127.0.0.1:", "@db.example.com:");
    let by_name = tls_base.replace("@127.0.0.1:", "@localhost:");
    let cases: Vec<(String, String, Want)> = vec![
        ("tls-default".into(), tls_base.clone(), Want::Tls),
        ("tls-handed-out".into(), url.clone(), Want::Tls),
        (
            "tls-disable".into(),
            format!("{tls_base}?sslmode=disable"),
            Want::Fails(&["no encryption", "sslmode=disable"]),
        ),
        ("tls-allow".into(), format!("{tls_base}?sslmode=allow"), Want::Tls),
        ("tls-prefer".into(), format!("{tls_base}?sslmode=prefer"), Want::Tls),
        ("tls-require".into(), format!("{tls_base}?sslmode=require"), Want::Tls),
        ("tls-verify-ca-system".into(), format!("{tls_base}?sslmode=verify-ca"), Want::Fails(&["sslrootcert=FILE"])),
        ("tls-verify-ca".into(), format!("{tls_base}?sslmode=verify-ca&sslrootcert={ca}"), Want::Tls),
        ("tls-verify-full-name".into(), format!("{by_name}?sslmode=verify-full&sslrootcert={ca}&sslsni=0"), Want::Tls),
        (
            "tls-verify-full-wrong".into(),
            format!("{wrong_name}?sslmode=verify-full&sslrootcert={ca}&hostaddr=127.0.0.1"),
            Want::Fails(&["db.example.com", "not valid for name", "sslmode=verify-ca"]),
        ),
        (
            "tls-verify-ca-other-name".into(),
            format!("{wrong_name}?sslmode=verify-ca&sslrootcert={ca}&hostaddr=127.0.0.1"),
            Want::Tls,
        ),
        ("plain-default".into(), plain_base.clone(), Want::Plain),
        ("plain-disable".into(), format!("{plain_base}?sslmode=disable"), Want::Plain),
        ("plain-allow".into(), format!("{plain_base}?sslmode=allow"), Want::Plain),
        ("plain-prefer".into(), format!("{plain_base}?sslmode=prefer"), Want::Plain),
        (
            "plain-require".into(),
            format!("{plain_base}?sslmode=require"),
            Want::Fails(&["does not accept TLS (sslmode=require)"]),
        ),
        (
            "plain-verify-ca".into(),
            format!("{plain_base}?sslmode=verify-ca&sslrootcert={ca}"),
            Want::Fails(&["does not accept TLS (sslmode=verify-ca)"]),
        ),
        (
            "plain-verify-full".into(),
            format!("{plain_base}?sslmode=verify-full&sslrootcert={ca}"),
            Want::Fails(&["does not accept TLS (sslmode=verify-full)"]),
        ),
    ];
    let results: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = cases.iter().map(|(_, url, _)| s.spawn(|| tls_of(&sb, url))).collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let password = with.var("PGPASSWORD");
    for ((name, url, want), got) in cases.iter().zip(results) {
        let case = format!("{name} ({url}): {got:?}");
        match (want, &got) {
            (Want::Tls, Ok(tls)) => assert!(tls.starts_with("TLSv1.3 TLS13_"), "{case}"),
            (Want::Plain, Ok(tls)) => assert_eq!(tls, "off", "{case}"),
            (Want::Fails(words), Err((code, stderr))) => {
                let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
                assert_eq!((*code, lines.len()), (Some(2), 1), "{case}");
                assert!(lines[0].contains(&format!(":{port}")) || !name.starts_with("tls"), "names the server: {case}");
                for w in *words {
                    assert!(lines[0].contains(w), "'{w}' missing: {case}");
                }
                assert!(!stderr.contains(&password), "the password was printed: {case}");
            }
            _ => panic!("{case}"),
        }
    }
    // The user's own client checks the server with what serve handed out.
    let psql = Command::new("psql")
        .args(["-XAt", &url, "-c", "select ssl from pg_stat_ssl where pid = pg_backend_pid()"])
        .env_remove("PGSSLMODE")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&psql.stdout).trim(), "t", "{}", String::from_utf8_lossy(&psql.stderr));
    drop((with, without));
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn ram_and_ram_tls_race_and_record_the_session() {
    let sb = Sandbox::new();
    let out = sb.out("tls.json");
    let args = ["run", "-q", "-e", "postgres", "-p", "ram,ram+tls", "-w", "select-only", "-T", "1s", "--warmup", "0s"];
    sb.cmd(&args).args(["-r", "1", "--out", out.to_str().unwrap()]).assert().success();
    let [_, tls] = plain_and_tls(&read_json(&out), "postgres", "select-only");
    assert_eq!(tls["ssl"], "on", "{tls}");
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn psql_connects_through_exec_tls_with_the_url_and_the_variables() {
    let sb = Sandbox::new();
    let seen = sb.out("seen.txt");
    let q = "select ssl from pg_stat_ssl where pid = pg_backend_pid()";
    let script = format!(
        "psql -XAt \"$DATABASE_URL\" -c '{q}' >> {s} && psql -XAt -c '{q}' >> {s} && echo \"$PGSSLMODE $DATABASE_URL\" >> {s}",
        s = seen.display()
    );
    let args = ["exec", "-q", "-e", "postgres", "-p", "ram", "--tls", "-r", "1", "--warmup", "0"];
    sb.cmd(&args).args(["--", "sh", "-c", &script]).assert().success();
    let text = std::fs::read_to_string(&seen).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[..2], ["t", "t"], "{text}");
    assert!(lines[2].starts_with("verify-full postgresql://") && lines[2].contains("sslmode=verify-full"), "{text}");
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn tls_on_the_docker_launcher_and_on_a_socket_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let cases: [(&[&str], &str); 2] = [
        (&["run", "-e", "postgres", "-p", "ram+tls", "--launcher", "docker"], "native launcher only"),
        (
            &["run", "-e", "postgres", "--url", "postgres://postgres@/test?host=/var/run/postgresql&sslmode=require"],
            "unix socket, which is always plain",
        ),
    ];
    for (args, want) in cases {
        let o = sb.cmd(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!((o.status.code(), err.lines().count()), (Some(2), 1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
