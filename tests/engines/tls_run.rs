//! What the engines' TLS tests share: a short `dbrace run` against a URL, and the session
//! its repeat recorded.

use crate::common::{Sandbox, read_json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// `dbrace run` of a few insert-commit transactions of `engine` on `profile` against
/// `url`: the exit code, stderr, and the session its repeat recorded (`tls`), if it ran to the end.
pub fn run_url(sb: &Sandbox, engine: &str, profile: &str, url: &str) -> (Option<i32>, String, Option<String>) {
    // Its own file: cases may run at once.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let out = sb.out(&format!("url-{}.json", RUNS.fetch_add(1, Ordering::Relaxed)));
    let o = sb
        .cmd(&["run", "-q", "-e", engine, "--url", url, "-p", profile, "-w", "insert-commit", "-t", "10"])
        .args(["--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let tls = out.exists().then(|| read_json(&out)).and_then(|r| {
        let rep = &r["cells"].get(0)?["repeats"][0];
        (rep["status"] == "ok").then(|| {
            rep["settings"]["tls"].as_str().unwrap_or_else(|| panic!("no tls in {}", rep["settings"])).to_string()
        })
    });
    (o.status.code(), err, tls)
}

/// A run of `engine` against `url` that ends, exit 2, with one line that says each of `says`.
pub fn refused(sb: &Sandbox, engine: &str, profile: &str, url: &str, says: &[&str]) {
    let (code, err, _) = run_url(sb, engine, profile, url);
    assert_eq!(code, Some(2), "{url}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{url}: one line: {err}");
    for s in says {
        assert!(err.contains(s), "{url}: '{s}' in {err}");
    }
}

/// The settings of a `-p ram,ram+tls` run's two cells of `engine` and `workload`, each
/// repeat measured and verified, checked as a plain session and a TLS 1.3 one over TCP
/// on 127.0.0.1.
pub fn plain_and_tls(results: &serde_json::Value, engine: &str, workload: &str) -> [serde_json::Value; 2] {
    let cells = results["cells"].as_array().unwrap();
    let [plain, tls] = ["ram", "ram+tls"].map(|profile| {
        let id = format!("{engine}/{profile}/{workload}/c1");
        let cell = cells.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no {id}: {results}"));
        assert_eq!(cell["repeats"][0]["status"], "ok", "{cell}");
        cell["repeats"][0]["settings"].clone()
    });
    assert_eq!(plain["tls"], "off", "{plain}");
    assert!(tls["tls"].as_str().unwrap().starts_with("TLSv1.3 TLS13_"), "{tls}");
    assert!(tls["transport"].as_str().unwrap().starts_with("tcp 127.0.0.1:"), "{tls}");
    [plain, tls]
}
