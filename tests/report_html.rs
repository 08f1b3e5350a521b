//! The HTML report and `--plot`, end to end: real runs (SQLite, a sweep, counters), the
//! real binary, and the page rendered by headless Chromium, which must draw every chart
//! with data, load the embedded font, fetch nothing and log nothing.

mod common;

use common::{QUICK, Sandbox, read_json};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium as Debian packages it; a missing browser fails loudly with the install hint.
fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        {
            return p;
        }
    }
    panic!("chromium not found: install it with `apt-get install -y chromium` (scripts/test does)");
}

/// Run headless Chromium on `page` with `args` (a fresh profile each time, no network
/// chatter), at most 90 s; returns (stdout, console lines from its log).
fn browse(page: &Path, args: &[&str]) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(args)
    .arg(format!("file://{}", page.display()))
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // Its own process group, so a hung browser goes with all its helpers.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = match rx.recv_timeout(Duration::from_secs(90)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            unsafe { libc::killpg(pid, libc::SIGKILL) };
            panic!("chromium did not finish in 90 s on {}", page.display());
        }
    };
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    let console =
        String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.contains(":CONSOLE")).map(String::from).collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// A script the test adds to a copy of the page (the report itself has none): once fonts
/// are settled it writes, into the DOM, each chart's data marks and how many the browser
/// laid out with a non-empty box, the font faces' status, every resource fetched and the
/// page's height.
const PROBE: &str = r#"<script>
document.fonts.ready.then(function () {
  var charts = Array.prototype.map.call(document.querySelectorAll('svg.chart'), function (svg) {
    var count = {};
    ['bar', 'whisker', 'repeat', 'series', 'point', 'segment', 'bound'].forEach(function (c) {
      var marks = svg.querySelectorAll('.' + c);
      var drawn = Array.prototype.filter.call(marks, function (m) {
        var b = m.getBBox(); return b.width > 0 || b.height > 0;
      }).length;
      count[c] = [marks.length, drawn];
    });
    var r = svg.getBoundingClientRect();
    return { chart: svg.getAttribute('data-chart'), count: count, width: r.width, height: r.height };
  });
  var fonts = [];
  document.fonts.forEach(function (f) { fonts.push(f.family + ' ' + f.status); });
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({ charts: charts, fonts: fonts,
    resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
    height: document.documentElement.scrollHeight });
  document.body.appendChild(out);
});
</script>"#;

const WIDTH: u32 = 1100;

/// Render `html` in Chromium with the probe; returns what the probe saw. Fails on any
/// console line (the page has no script: a line means the browser complained, e.g. about
/// the font), on a font that did not load, and on any resource fetched.
fn probe(html: &Path) -> Value {
    let page = html.with_extension("probe.html");
    let text = std::fs::read_to_string(html).unwrap();
    std::fs::write(&page, text.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let size = format!("--window-size={WIDTH},1000");
    let (dom, console) = browse(&page, &["--virtual-time-budget=10000", &size, "--dump-dom"]);
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let start = dom.find("<pre id=\"probe\">").expect("the probe ran") + "<pre id=\"probe\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let json = dom[start..end].replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["fonts"], serde_json::json!(["dbrace-sans loaded"]), "{v}");
    assert_eq!(v["resources"], serde_json::json!([]), "the page fetched something: {v}");
    v
}

/// A full-page screenshot of `html` into `png`; returns its (width, height) from the PNG
/// header.
fn screenshot(html: &Path, png: &Path, height: u64) -> (u32, u32) {
    let size = format!("--window-size={WIDTH},{height}");
    let shot = format!("--screenshot={}", png.display());
    let (_, console) = browse(html, &["--virtual-time-budget=10000", &size, &shot]);
    assert!(console.is_empty(), "the page logged: {console:#?}");
    let b = std::fs::read(png).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    let be = |at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The probe's charts of one kind.
fn charts<'a>(v: &'a Value, kind: &str) -> Vec<&'a Value> {
    v["charts"].as_array().unwrap().iter().filter(|c| c["chart"] == kind).collect()
}

/// (marks in the markup, marks the browser drew) of one class in a chart.
fn marks(chart: &Value, class: &str) -> (u64, u64) {
    let c = &chart["count"][class];
    (c[0].as_u64().unwrap(), c[1].as_u64().unwrap())
}

/// The page references nothing outside itself and needs no script.
fn self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.to_lowercase().contains("<script"), "the report has a script");
    assert!(!html.contains("<link") && !html.contains(" src=") && !html.contains(" href="));
    let outside: Vec<&str> = html.match_indices("http").map(|(i, _)| &html[i..(i + 40).min(html.len())]).collect();
    assert!(outside.iter().all(|u| u.starts_with("http://www.w3.org/2000/svg")), "{outside:?}");
    assert!(html.contains("@font-face{font-family:dbrace-sans;src:url(data:font/ttf;base64,"));
}

fn measured(cell: &Value) -> usize {
    cell["repeats"].as_array().unwrap().iter().filter(|r| r["status"] != "failed").count()
}

#[test]
fn a_run_with_a_sweep_gets_every_chart_drawn_with_data_in_a_browser() {
    let sb = Sandbox::new();
    let (out, html) = (sb.out("r.json"), sb.out("run.html"));
    let args = [
        "run",
        "-q",
        "--engine",
        "sqlite,memory",
        "--profile",
        "disk,nosync",
        "--workload",
        "insert-commit",
        "--sweep",
        "cache_size=-1000,-4000",
        "--repeat",
        "2",
        "--duration",
        "1.5s",
        "--warmup",
        "0.05s",
    ];
    let outs = ["--out", out.to_str().unwrap(), "--html", html.to_str().unwrap()];
    sb.cmd(&[&args[..], &outs[..]].concat()).assert().success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    // sqlite: disk and nosync, each at two cache sizes; memory: its one mode.
    assert_eq!(cells.len(), 5, "{:?}", cells.iter().map(|c| &c["id"]).collect::<Vec<_>>());
    let repeats: usize = cells.iter().map(measured).sum();
    assert_eq!(repeats, 10);

    // `dbrace report` draws the very same page from the results file.
    let again = sb.out("report.html");
    sb.cmd(&["report", out.to_str().unwrap(), "--html", again.to_str().unwrap()]).assert().success();
    let text = std::fs::read_to_string(&html).unwrap();
    assert_eq!(text, std::fs::read_to_string(&again).unwrap(), "report differs from run");
    self_contained(&text);
    for section in ["summary", "tps", "latency", "timeline", "sweep", "environment", "notes"] {
        assert!(text.contains(&format!("<section id=\"{section}\">")), "no {section} section");
    }
    // The environment: machine, locations with their fsync latency, versions, settings.
    let env = &text[text.find("<section id=\"environment\">").unwrap()..];
    let host = &r["host"];
    assert!(env.contains(&format!("<td>{} × ", host["cpus"])) && env.contains(host["kernel"].as_str().unwrap()));
    for loc in r["locations"].as_array().unwrap() {
        assert!(env.contains(loc["path"].as_str().unwrap()), "{loc}");
        let ms = format!("{:.3} ms", loc["fsync"]["median_us"].as_f64().unwrap() / 1000.0);
        assert!(env.contains(&ms), "no fsync {ms}");
    }
    let sqlite_version = cells[0]["repeats"][0]["engine_version"].as_str().unwrap();
    assert!(env.contains(&format!("<th>sqlite</th><td>{sqlite_version}</td>")));
    assert!(env.contains(r#"<tr class="differs"><td>cache_size</td><td>-1000</td><td>-4000</td>"#), "{env}");

    let v = probe(&html);
    // One bar, whisker and dot per repeat for each cell; everything laid out.
    let tps = charts(&v, "tps");
    assert_eq!(tps.len(), 1);
    assert_eq!(marks(tps[0], "bar"), (5, 5));
    assert_eq!(marks(tps[0], "whisker"), (5, 5));
    assert_eq!(marks(tps[0], "repeat"), (10, 10));
    // A percentile curve per cell, with seven marked percentiles on each.
    let lat = charts(&v, "latency");
    assert_eq!(lat.len(), 1);
    assert_eq!(marks(lat[0], "series"), (5, 5));
    assert_eq!(marks(lat[0], "point"), (35, 35));
    // A line per repeat, a point per second in it; a last second measured for under a
    // quarter of a second is a sliver left out (1.5 s: a full second and a half).
    let seconds: u64 = cells
        .iter()
        .flat_map(|c| c["repeats"].as_array().unwrap())
        .filter(|r| r["status"] != "failed")
        .map(|r| {
            let (n, d) = (r["timeline"].as_array().unwrap().len(), r["duration_s"].as_f64().unwrap());
            (0..n).filter(|&i| d - i as f64 >= 0.25).count() as u64
        })
        .sum();
    assert!(seconds >= 20, "{seconds} timeline seconds for ten 1.5 s repeats");
    let tl = charts(&v, "timeline");
    assert_eq!(tl.len(), 1);
    assert_eq!(marks(tl[0], "series"), (10, 10));
    assert_eq!(marks(tl[0], "point"), (seconds, seconds));
    // Sweep: sqlite disk and sqlite nosync over the two cache sizes.
    let sw = charts(&v, "sweep");
    assert_eq!(sw.len(), 1);
    assert_eq!(marks(sw[0], "series"), (2, 2));
    assert_eq!(marks(sw[0], "point"), (4, 4));
    assert_eq!(marks(sw[0], "whisker"), (4, 4));
    for c in v["charts"].as_array().unwrap() {
        assert!(c["width"].as_f64().unwrap() > 600.0 && c["height"].as_f64().unwrap() > 100.0, "{c}");
    }
    let height = v["height"].as_u64().unwrap();
    let png = sb.out("report.png");
    assert_eq!(screenshot(&html, &png, height), (WIDTH, height as u32));
    // A page of charts, not a blank one (a blank page of this size compresses to ~30 KB).
    assert!(std::fs::metadata(&png).unwrap().len() > 150_000);

    // --plot: one chart as an SVG file of its own, font inside, valid to a browser.
    let svg = sb.out("sweep.svg");
    sb.cmd(&["report", out.to_str().unwrap(), "--plot", svg.to_str().unwrap(), "--chart", "sweep"]).assert().success();
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && s.contains("@font-face"));
    assert_eq!(s.matches("data-chart=\"sweep\"").count(), 1);
    let (dom, console) = browse(&svg, &["--dump-dom"]);
    assert!(console.is_empty() && !dom.contains("parsererror") && dom.contains("class=\"series\""), "{dom}");
}

/// The charts of a page: (data-chart, the whole `<svg>` element), in page order.
fn svgs(html: &str) -> Vec<(String, String)> {
    html.split("<svg ")
        .skip(1)
        .map(|s| {
            let svg = format!("<svg {}", &s[..s.find("</svg>").unwrap() + "</svg>".len()]);
            let kind = svg.split("data-chart=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
            (kind, svg)
        })
        .collect()
}

#[test]
fn counters_draw_why_each_cell_is_as_fast_and_a_file_without_them_renders_as_before() {
    let sb = Sandbox::new();
    let (out, html) = (sb.out("r.json"), sb.out("why.html"));
    let args = ["run", "-q", "--engine", "sqlite", "--profile", "disk,nosync", "--workload", "insert-commit"];
    let more = ["--sweep", "cache_size=-1000,-4000", "--repeat", "2", "--duration", "1.5s", "--warmup", "0.05s"];
    let outs = ["--log-interval", "0.5s", "--out", out.to_str().unwrap(), "--html", html.to_str().unwrap()];
    sb.cmd(&[&args[..], &more[..], &outs[..]].concat()).assert().success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    let repeats: Vec<&Value> =
        cells.iter().flat_map(|c| c["repeats"].as_array().unwrap()).filter(|r| r["status"] != "failed").collect();
    assert_eq!(repeats.len(), 8);
    // Every cell is on the disk location: its block device is read around each repeat
    // and each slice (SQLite has no server counters: the disk's flushes stand for syncs).
    for rep in &repeats {
        assert!(rep["counters"]["device"]["flushes"].is_number(), "{}", rep["counters"]);
        assert!(rep["intervals"].as_array().unwrap().iter().all(|i| i["counters"]["device"].is_object()));
    }
    let text = std::fs::read_to_string(&html).unwrap();
    self_contained(&text);
    for section in ["bound", "costs", "counters"] {
        assert!(text.contains(&format!("<section id=\"{section}\">")), "no {section} section");
    }
    assert!(text.contains("docs/explain.md"));

    let v = probe(&html);
    // Where the time goes: a stacked bar per cell (a segment per share it has), its bound
    // named at the end.
    let bound = charts(&v, "bound");
    assert_eq!(bound.len(), 1);
    assert_eq!(marks(bound[0], "bound"), (4, 4));
    let (segments, drawn) = marks(bound[0], "segment");
    assert!(segments >= 8 && drawn == segments, "{segments} segments, {drawn} drawn");
    // Costs: disk flushes, disk bytes and client CPU for each cell; no server figures.
    let costs = charts(&v, "costs");
    assert_eq!(costs.len(), 1);
    assert_eq!(marks(costs[0], "bar"), (12, 12));
    // Counters over time: syncs and bytes, a line per repeat each, a point per slice of
    // a quarter of its length or more with transactions.
    let slices: u64 = repeats
        .iter()
        .map(|rep| {
            let d = rep["duration_s"].as_f64().unwrap();
            let s = rep["intervals"].as_array().unwrap();
            let n = s.len();
            let kept = |i: &&Value| {
                let span = (d - i["start_s"].as_f64().unwrap()).clamp(0.0, 0.5);
                (span >= 0.125 || (n == 1 && span > 0.0)) && i["transactions"].as_u64().unwrap() > 0
            };
            s.iter().filter(kept).count() as u64
        })
        .sum();
    assert!(slices >= 8 * 3, "{slices} slices with transactions in eight 1.5 s repeats");
    let over_time = charts(&v, "counters");
    assert_eq!(over_time.len(), 1);
    assert_eq!(marks(over_time[0], "series"), (16, 16));
    assert_eq!(marks(over_time[0], "point"), (2 * slices, 2 * slices));
    // The sweep: tps, then the cost and the share that vary most, a line per profile.
    let sweep_cost = charts(&v, "sweep-cost");
    assert_eq!(sweep_cost.len(), 1);
    assert_eq!(marks(sweep_cost[0], "series"), (4, 4));
    assert_eq!(marks(sweep_cost[0], "point"), (8, 8));
    for c in v["charts"].as_array().unwrap() {
        assert!(c["width"].as_f64().unwrap() > 600.0 && c["height"].as_f64().unwrap() > 100.0, "{c}");
    }
    // --plot writes each of them alone.
    for chart in ["bound", "costs", "counters"] {
        let svg = sb.out(&format!("{chart}.svg"));
        sb.cmd(&["report", out.to_str().unwrap(), "--plot", svg.to_str().unwrap(), "--chart", chart])
            .assert()
            .success();
        let s = std::fs::read_to_string(&svg).unwrap();
        assert_eq!(s.matches(&format!("data-chart=\"{chart}\"")).count(), 1, "{chart}");
    }

    // The same file as a run with --no-counters (or an older dbrace) writes it: the page
    // has none of those sections, and the charts it has are the very same.
    let mut old = r.clone();
    for c in old["cells"].as_array_mut().unwrap() {
        for rep in c["repeats"].as_array_mut().unwrap() {
            rep.as_object_mut().unwrap().remove("counters");
            for i in rep["intervals"].as_array_mut().unwrap() {
                i.as_object_mut().unwrap().remove("counters");
            }
        }
    }
    let (old_json, old_html) = (sb.out("old.json"), sb.out("old.html"));
    std::fs::write(&old_json, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    sb.cmd(&["report", old_json.to_str().unwrap(), "--html", old_html.to_str().unwrap()]).assert().success();
    let before = std::fs::read_to_string(&old_html).unwrap();
    self_contained(&before);
    for section in ["bound", "costs", "counters"] {
        assert!(!before.contains(&format!("<section id=\"{section}\">")), "a {section} section without counters");
    }
    let kept: Vec<(String, String)> = svgs(&text)
        .into_iter()
        .filter(|(k, _)| !["bound", "costs", "counters", "sweep-cost"].contains(&k.as_str()))
        .collect();
    assert_eq!(svgs(&before), kept);
    assert_eq!(
        kept.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(),
        ["tps", "latency", "timeline", "timeline-latency", "sweep"]
    );
    for chart in ["bound", "costs", "counters"] {
        let args = ["report", old_json.to_str().unwrap(), "--plot", "c.svg", "--chart", chart];
        refused(&sb, &args, "no counters");
    }
}

/// One stderr line and exit 2.
fn refused(sb: &Sandbox, args: &[&str], needle: &str) {
    let out = sb.cmd(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
}

#[test]
fn an_old_interrupted_results_file_with_failed_repeats_still_renders() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let args = ["run", "--engine", "sqlite", "--profile", "disk,nosync,ram", "--workload", "insert-commit"];
    sb.cmd(&[&args[..], &["--repeat", "2", "--out", out.to_str().unwrap()], QUICK].concat()).assert().success();
    // What a killed run of an older dbrace leaves: no start_s nor oltp or ycsb options (fields
    // added later), the run interrupted, disk's second repeat failed, nosync's every
    // repeat failed, ram not reached yet.
    let mut r = read_json(&out);
    r["status"] = "interrupted".into();
    r["finished_at"] = Value::Null;
    let o = r["options"].as_object_mut().unwrap();
    o.remove("tables");
    o.remove("table_size");
    o.remove("records");
    let failed = |rep: &mut Value| {
        *rep = serde_json::json!({
            "repeat": rep["repeat"], "status": "failed", "error": "server died", "started_at": rep["started_at"],
            "engine_version": "", "settings": {}, "load_s": 0.0, "transactions": 0, "warmup_transactions": 0,
            "errors": 0, "retries": 0, "duration_s": 0.0, "tps": 0.0,
            "latency_ms": {"avg": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0},
            "histogram": "", "timeline": [], "client_cpu_s": 0.0, "verify": null
        });
    };
    let cells = r["cells"].as_array_mut().unwrap();
    for c in cells.iter_mut() {
        for rep in c["repeats"].as_array_mut().unwrap() {
            rep.as_object_mut().unwrap().remove("start_s");
        }
    }
    failed(&mut cells[0]["repeats"][1]);
    failed(&mut cells[1]["repeats"][0]);
    failed(&mut cells[1]["repeats"][1]);
    cells[2]["repeats"] = serde_json::json!([]);
    let old = sb.out("old.json");
    std::fs::write(&old, serde_json::to_string_pretty(&r).unwrap()).unwrap();

    let html = sb.out("old.html");
    sb.cmd(&["report", old.to_str().unwrap(), "--html", html.to_str().unwrap()]).assert().success();
    let text = std::fs::read_to_string(&html).unwrap();
    self_contained(&text);
    assert!(text.contains(r#"<span class="badge interrupted">interrupted</span>"#));
    assert!(text.contains("sqlite/disk/insert-commit/c1: 1 repeat(s) FAILED: server died"));
    assert!(text.contains("failed: no repeat measured") && text.contains(">not run</text>"));
    assert!(text.contains("This run has no sweep"));
    let v = probe(&html);
    // Only disk's one measured repeat has numbers: one bar (no interval from one repeat),
    // one curve, one timeline.
    let tps = charts(&v, "tps");
    assert_eq!((marks(tps[0], "bar"), marks(tps[0], "whisker"), marks(tps[0], "repeat")), ((1, 1), (0, 0), (1, 1)));
    assert_eq!(marks(charts(&v, "latency")[0], "series"), (1, 1));
    assert_eq!(marks(charts(&v, "timeline")[0], "point").0, 1);
    assert!(charts(&v, "sweep").is_empty());

    refused(&sb, &["report", old.to_str().unwrap(), "--plot", "s.svg", "--chart", "sweep"], "no --sweep");
    // The same chart as PNG (with the png feature): rasterized at twice the SVG's size.
    let (svg, png) = (sb.out("tps.svg"), sb.out("tps.png"));
    sb.cmd(&["report", old.to_str().unwrap(), "--plot", svg.to_str().unwrap()]).assert().success();
    if cfg!(feature = "png") {
        sb.cmd(&["report", old.to_str().unwrap(), "--plot", png.to_str().unwrap()]).assert().success();
        let b = std::fs::read(&png).unwrap();
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        let size = |at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap());
        let svg = std::fs::read_to_string(&svg).unwrap();
        let attr = |name: &str| -> f64 {
            svg.split(&format!(" {name}=\"")).nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
        };
        assert_eq!((size(16), size(20)), ((2.0 * attr("width")).round() as u32, (2.0 * attr("height")).round() as u32));
    } else {
        refused(&sb, &["report", old.to_str().unwrap(), "--plot", png.to_str().unwrap()], "--features png");
    }
    refused(&sb, &["report", old.to_str().unwrap(), "--plot", "chart.pdf"], "ending in .svg");
    refused(&sb, &["report", old.to_str().unwrap(), "--html", "/nonexistent/dir/r.html"], "does not exist");
    refused(&sb, &["report", old.to_str().unwrap(), "--chart", "latency"], "--plot");
}

/// Not a test of the product: `cargo test --release --test report_html -- --ignored
/// docs_screenshot` re-makes docs/report.png from a real run (SQLite and memory, two
/// workloads, a sweep), so every chart in it has data.
#[test]
#[ignore]
fn docs_screenshot() {
    let sb = Sandbox::new();
    let (out, html) = (sb.out("r.json"), sb.out("report.html"));
    let args = [
        "run",
        "-q",
        "--engine",
        "sqlite,memory",
        "--profile",
        "disk,nosync",
        "--workload",
        "insert-commit,tpcb",
        "--sweep",
        "cache_size=-1000,-8000",
        "--repeat",
        "3",
        "--duration",
        "4s",
        "--warmup",
        "0.5s",
    ];
    let outs = ["--out", out.to_str().unwrap(), "--html", html.to_str().unwrap()];
    sb.cmd(&[&args[..], &outs[..]].concat()).assert().success();
    let height = probe(&html)["height"].as_u64().unwrap();
    let start = Instant::now();
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.png");
    screenshot(&html, &docs, height);
    eprintln!("wrote {} ({height} px tall) in {:?}", docs.display(), start.elapsed());
}
