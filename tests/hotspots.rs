//! `--hotspots`: perf samples a real PostgreSQL's processes (native, and in a container)
//! over the measured phase; the table's notes name the functions and the wait events, and
//! the HTML page draws a flame graph per cell. Without perf, one line says how to get it
//! and the run goes on.

mod common;

use common::{Sandbox, read_json};

const RUN: &[&str] = &["run", "-e", "postgres", "-p", "disk,nosync", "-w", "insert-commit", "-r", "1", "-T", "1s"];

#[test]
fn the_servers_cpu_is_sampled_named_and_drawn_per_cell() {
    sampled_named_and_drawn(&[]);
}

#[test]
fn a_servers_container_is_sampled_by_its_host_processes() {
    common::docker::require_docker();
    sampled_named_and_drawn(&["--launcher", "docker", "--image", common::docker::PG_IMAGE]);
}

/// The run, launched as `launch` says, samples each cell's server, and the notes, the
/// results and the HTML page show it.
fn sampled_named_and_drawn(launch: &[&str]) {
    let sb = Sandbox::new();
    let (out, html) = (sb.out("r.json"), sb.out("r.html"));
    let mut args = RUN.to_vec();
    args.extend(launch);
    args.extend(["--hotspots", "--out", out.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    let a = sb.cmd(&args).assert().success();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    let file = read_json(&out);
    for cell in file["cells"].as_array().unwrap() {
        let h = &cell["repeats"][0]["counters"]["hotspots"];
        let counters = &cell["repeats"][0]["counters"];
        let samples = h["samples"].as_u64().unwrap_or_else(|| panic!("{}", counters["unread"]));
        // 999 samples per second on a CPU: they agree with the CPU the OS counted for the
        // server over the same phase (here 79–105% of it: the edges and the interrupts-off
        // moments go unsampled).
        let cpu_s = counters["processes"]["cpu_s"].as_f64().unwrap();
        let covered = samples as f64 / 999.0 / cpu_s;
        assert!(samples > 50 && (0.6..1.2).contains(&covered), "{samples} samples for {cpu_s} CPU s");
        let stacks = h["stacks"].as_array().unwrap();
        let backend = stacks.iter().any(|s| {
            s[0].as_str().unwrap().starts_with("postgres;") && s[0].as_str().unwrap().contains("PostgresMain")
        });
        assert!(backend, "the backend's own frames are resolved: {:?}", &stacks[..3.min(stacks.len())]);
        assert!(h["perf_cpu_s"].as_f64().unwrap() > 0.0);
        let id = cell["id"].as_str().unwrap();
        assert!(stdout.contains(&format!("hotspots {id}: ")), "{stdout}");
        assert_waits_polled(id, h);
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(r#"<section id="hotspots">"#) && page.contains("PostgresMain"));
    assert!(!page.contains("onload"), "no handler either");
    let script = page.find("<script").map(|i| &page[i.saturating_sub(200)..(i + 200).min(page.len())]);
    assert_eq!(script, None, "the page stays without script");
    assert!(sb.no_servers(&["postgres", "perf"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

/// The one client's session, polled every 10 ms through the second's phase, waited
/// for the log's flush on disk and never without fsync.
fn assert_waits_polled(id: &str, h: &serde_json::Value) {
    let polls = h["wait_polls"].as_u64().unwrap_or(0);
    let waits: Vec<(&str, u64)> =
        h["waits"].as_array().unwrap().iter().map(|w| (w[0].as_str().unwrap(), w[1].as_u64().unwrap())).collect();
    let sessions: u64 = waits.iter().map(|w| w.1).sum();
    assert!((40..=110).contains(&polls) && sessions == polls, "{id}: {polls} polls, {waits:?}");
    let flushed = waits.iter().any(|w| w.0 == "IO:WALSync");
    assert_eq!(flushed, id.contains("/disk/"), "{id}: {waits:?}");
}

#[test]
fn without_perf_the_run_goes_on_and_says_how_to_get_it() {
    let sb = Sandbox::new();
    // Every program of the machine's but perf.
    let bin = sb.out("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = e.file_name();
            if !name.to_string_lossy().starts_with("perf") && !bin.join(&name).exists() {
                let _ = std::os::unix::fs::symlink(e.path(), bin.join(&name));
            }
        }
    }
    let mut args = RUN.to_vec();
    args.push("--hotspots");
    let a = sb.cmd(&args).env("PATH", &bin).assert().success();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(stdout.contains("hotspots: perf is not installed; apt-get install linux-perf"), "{stdout}");
    assert!(stdout.contains("nosync"), "the run went on: {stdout}");
    assert!(stdout.contains("waits postgres/disk/insert-commit/c1: "), "wait events need no perf: {stdout}");
}
