//! `--reconnect`: a run against a `--url` server whose backends are terminated mid-run
//! (and whose database refuses connections for a second) reconnects, counts the
//! reconnections and the time lost, and shows the dip in its slices; without the flag
//! the same loss fails the run with one line.

mod common;

use common::{Sandbox, whole_slices};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A throwaway PostgreSQL from `dbrace serve`, stopped (and removed) on drop.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(sb: &Sandbox) -> Served {
        let mut child = sb
            .spawn(&["serve", "postgres", "-p", "ram-nosync"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = String::new();
        child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        let url = out
            .lines()
            .find_map(|l| l.strip_prefix("export DATABASE_URL="))
            .unwrap_or_else(|| panic!("no DATABASE_URL in {out}"))
            .trim_matches('\'')
            .to_string();
        Served { child, url }
    }

    /// Run `sql` through psql in template1 (the run's own database may refuse connections).
    fn psql(&self, sql: &str) -> String {
        let url = self.url.replacen("/postgres", "/template1", 1);
        let o = Command::new("psql").args(["-XAt", &url, "-c", sql]).env_remove("PGHOST").output().unwrap();
        assert!(o.status.success(), "{sql}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// The run's database once its `clients` clients are connected.
    fn run_database(&self, clients: usize) -> String {
        let start = Instant::now();
        loop {
            let d = self.psql(&format!(
                "select datname from pg_stat_activity where backend_type = 'client backend' \
                 and datname like 'dbrace%' group by 1 having count(*) >= {clients}"
            ));
            if !d.is_empty() {
                return d;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "the run's clients never connected");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Terminate every client backend of `db`, keeping it closed to new connections for
    /// `closed` (none: not closed at all).
    fn cut(&self, db: &str, closed: Option<Duration>) {
        if closed.is_some() {
            self.psql(&format!("alter database {db} allow_connections false"));
        }
        let n = self.psql(&format!(
            "select count(pg_terminate_backend(pid)) from pg_stat_activity \
             where datname = '{db}' and backend_type = 'client backend'"
        ));
        assert_ne!(n, "0", "terminated the run's backends");
        if let Some(d) = closed {
            std::thread::sleep(d);
            self.psql(&format!("alter database {db} allow_connections true"));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// `dbrace run` of 4 select-only clients against `url` for 5 s, in 0.25 s slices.
fn spawn_run(sb: &Sandbox, url: &str, out: &std::path::Path, more: &[&str]) -> Child {
    let mut args = vec!["run", "-q", "--url", url, "-p", "disk", "-w", "select-only", "-c", "4", "-T", "5s"];
    args.extend(["--warmup", "0.2s", "-r", "1", "--log-interval", "0.25s", "--out", out.to_str().unwrap()]);
    args.extend(more);
    sb.spawn(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

fn finish(mut run: Child) -> (Option<i32>, String, String) {
    let (mut stdout, mut stderr) = (String::new(), String::new());
    run.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    run.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (run.wait().unwrap().code(), stdout, stderr)
}

#[test]
fn a_run_with_reconnect_rides_out_terminated_backends_and_shows_the_dip() {
    let sb = Sandbox::new();
    let pg = Served::start(&sb);
    let out = sb.out("reconnect.json");
    let run = spawn_run(&sb, &pg.url, &out, &["--reconnect"]);
    let db = pg.run_database(4);
    // Well inside the measured phase (warm-up 0.2 s), with seconds of it still to come.
    std::thread::sleep(Duration::from_millis(1500));
    pg.cut(&db, Some(Duration::from_secs(1)));
    let (code, stdout, stderr) = finish(run);
    assert_eq!(code, Some(0), "{stdout}{stderr}");

    let v = common::read_json(&out);
    let r = &v["cells"][0]["repeats"][0];
    assert_eq!(r["status"], "ok", "{r}");
    let reconnects = r["reconnects"].as_u64().unwrap();
    assert!((4..=8).contains(&reconnects), "every client reconnected: {r}");
    assert!(r["errors"].as_u64().unwrap() >= 4, "the cut transactions failed: {r}");
    // The database was closed for a second: every client lost about that long.
    let lost = r["reconnect_s"].as_f64().unwrap();
    assert!(lost > 3.0 && lost < 4.0 * 10.0, "{lost}");
    let (slices, median) = whole_slices(r);
    assert!(median > 100, "{slices:?}");
    let dipped = slices.iter().filter(|&&n| n < median / 10).count();
    assert!(dipped >= 2, "a second without connections is a dip of whole slices: {slices:?}");
    let recovered = slices.iter().rposition(|&n| n < median / 10).unwrap();
    assert!(slices[recovered + 1..].iter().any(|&n| n > median / 2), "throughput came back: {slices:?}");
    let sum = |k: &str| r["intervals"].as_array().unwrap().iter().map(|i| i[k].as_u64().unwrap_or(0)).sum::<u64>();
    assert_eq!(sum("reconnects"), reconnects, "the slices hold the reconnections");
    assert!(stdout.contains(&format!("{reconnects} reconnects, ")), "{stdout}");
    assert!(stdout.contains("s lost to them"), "{stdout}");
    assert_eq!(v["options"]["reconnect"], true);
}

#[test]
fn without_reconnect_a_lost_connection_fails_the_run_in_one_line() {
    let sb = Sandbox::new();
    let pg = Served::start(&sb);
    let out = sb.out("lost.json");
    let run = spawn_run(&sb, &pg.url, &out, &[]);
    let db = pg.run_database(4);
    std::thread::sleep(Duration::from_millis(1000));
    let cut = Instant::now();
    pg.cut(&db, None);
    let (code, stdout, stderr) = finish(run);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(cut.elapsed() < Duration::from_secs(15), "the run ends without waiting out the clients");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("lost its connection")).collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(lines[0].contains("FAILED") && lines[0].contains("--reconnect"), "{stdout}");
    assert!(!stderr.contains("panick"), "{stderr}");
    let v = common::read_json(&out);
    let r = &v["cells"][0]["repeats"][0];
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r["transactions"].as_u64().unwrap() > 0, "what was measured is kept: {r}");
    assert!(r.get("reconnects").is_none(), "{r}");
}
