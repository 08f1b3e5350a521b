//! Latency per transaction type, end to end on the real binary: YCSB A's reads and updates
//! and a mix of two scripts on SQLite, each type's counts adding up to its cell's, its
//! histogram holding its transactions; `--by-type` rows in the table and the CSV, types in
//! the JSON summary, a chart per type on the HTML page; the results file read back and
//! written again unchanged; shards of a YCSB run against the machine's PostgreSQL merged
//! type by type.

mod common;

use base64::Engine as _;
use common::{Sandbox, read_json};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

fn histogram(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    Deserializer::new().deserialize(&mut std::io::Cursor::new(bytes)).unwrap()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The names of a repeat's types.
fn names(rep: &Value) -> Vec<&str> {
    rep["types"].as_array().map_or_else(Vec::new, |t| t.iter().map(|t| t["name"].as_str().unwrap()).collect())
}

/// A measured repeat's types add up to it: transactions, errors and retries; each type's
/// histogram holds its transactions, and together they are the repeat's.
fn adds_up(id: &str, rep: &Value) {
    assert_eq!(rep["status"], "ok", "{id}: {rep}");
    let types = rep["types"].as_array().unwrap_or_else(|| panic!("{id}: no types"));
    for key in ["transactions", "errors", "retries"] {
        assert_eq!(types.iter().map(|t| n(&t[key])).sum::<u64>(), n(&rep[key]), "{id}: {key}");
    }
    let whole = histogram(rep["histogram"].as_str().unwrap());
    let mut sum = Histogram::<u64>::new_from(&whole);
    for t in types {
        let h = histogram(t["histogram"].as_str().unwrap());
        assert_eq!(h.len(), n(&t["transactions"]), "{id} {}", t["name"]);
        assert_eq!(t["latency_ms"]["p99"].as_f64(), Some(h.value_at_quantile(0.99) as f64 / 1e6), "{id}");
        sum.add(h).unwrap();
    }
    assert_eq!(sum, whole, "{id}: the types' histograms add up to the repeat's");
}

/// The CSV's records as maps from its header.
fn csv_records(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines.map(|l| head.iter().map(|h| h.to_string()).zip(l.split(',').map(String::from)).collect()).collect()
}

#[test]
fn ycsb_reads_and_updates_are_reported_apart_in_every_output() {
    let sb = Sandbox::new();
    let (out, html) = (sb.out("ycsb.json"), sb.out("ycsb.html"));
    let args = ["run", "-e", "sqlite", "-p", "nosync", "-w", "ycsb-a,ycsb-c", "-c", "2", "-t", "400", "-r", "2"];
    let rest = ["--warmup", "0s", "--records", "1000", "--report-per-statement", "--by-type", "--html"];
    let last = [html.to_str().unwrap(), "-q", "--out", out.to_str().unwrap()];
    let o = sb.cmd(&[&args[..], &rest[..], &last[..]].concat()).output().unwrap();
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}\n{table}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    for rep in cells[0]["repeats"].as_array().unwrap() {
        assert_eq!(names(rep), ["read", "update"]);
        adds_up("ycsb-a", rep);
        assert_eq!(n(&rep["transactions"]), 800);
        // The clients' own per-operation counts agree with the types'.
        for (t, op) in rep["types"].as_array().unwrap().iter().zip(["READ", "UPDATE"]) {
            let s = rep["statements"].as_array().unwrap().iter().find(|s| s["command"] == op).unwrap();
            assert_eq!(s["executions"], t["transactions"], "{op}");
        }
        // A 50/50 mix: neither type far from half.
        assert!((250..=550).contains(&n(&rep["types"][0]["transactions"])), "{rep}");
    }
    // ycsb-c reads only: one type, none listed.
    assert!(cells[1]["repeats"].as_array().unwrap().iter().all(|rep| rep.get("types").is_none()));

    // The table: a row per type under ycsb-a, with the columns --by-type adds.
    for needle in ["p50 ms", "errors", "retries", "↳ read", "↳ update", "by type: under each cell"] {
        assert!(table.contains(needle), "{needle}: {table}");
    }
    assert_eq!(table.matches("↳ ").count(), 2, "{table}");
    let report = |extra: &[&str]| {
        let o = sb.cmd(&[&["report", out.to_str().unwrap()][..], extra].concat()).output().unwrap();
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert_eq!(report(&["--by-type"]), table, "report reproduces the run's table");
    assert!(!report(&[]).contains('↳'), "without --by-type the table is as it was");

    // JSON: the types of each cell over its repeats, always.
    let summary: Value = serde_json::from_str(&report(&["-f", "json"])).unwrap();
    let types = summary[0]["types"].as_array().unwrap();
    let cell_tx: u64 = cells[0]["repeats"].as_array().unwrap().iter().map(|r| n(&r["transactions"])).sum();
    assert_eq!(types.iter().map(|t| n(&t["transactions"])).sum::<u64>(), cell_tx);
    assert!(types.iter().all(|t| t["tps"]["median"].as_f64().unwrap() > 0.0 && t["tps"]["n"] == 2), "{types:?}");
    assert!(summary[1].get("types").is_none());

    // CSV: the same columns as before; with --by-type a row per type, named in `type`.
    let (plain, by_type) = (report(&["-f", "csv"]), report(&["-f", "csv", "--by-type"]));
    let head = |csv: &str| csv.lines().next().unwrap().to_string();
    assert_eq!(head(&by_type), head(&plain) + ",type", "the old columns, then one");
    assert_eq!(csv_records(&plain).len(), 2);
    let typed = csv_records(&by_type);
    let kinds: Vec<&str> = typed.iter().map(|r| r["type"].as_str()).collect();
    assert_eq!(kinds, ["", "read", "update", ""]);
    assert!(typed.iter().all(|r| r["id"].contains("/ycsb-")), "{typed:?}");
    let tps = |i: usize| typed[i]["tps_median"].parse::<f64>().unwrap();
    assert!(tps(1) > 0.0 && tps(2) > 0.0 && tps(1) + tps(2) < tps(0) * 1.5, "{typed:?}");

    // The page: a latency chart per type, for ycsb-a only.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(r#"<section id="types">"#));
    assert_eq!(page.matches(r#"data-chart="types""#).count(), 2, "one chart per type");
    assert!(page.contains("ycsb-a · 2 clients · read") && page.contains("ycsb-a · 2 clients · update"));
    assert!(page.contains("↳ update"), "the summary lists the types");

    // The results file read and written again is the same file.
    let results = dbrace::results::Results::load(&out).unwrap();
    let again = sb.out("again.json");
    results.save(&again).unwrap();
    assert_eq!(read_json(&again), r);
}

#[test]
fn a_file_without_types_renders_as_before_and_says_so() {
    let sb = Sandbox::new();
    let out = sb.out("tpcb.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "nosync", "-w", "tpcb", "-t", "200", "-r", "1", "--warmup", "0s"];
    sb.cmd(&[&args[..], &["--out", out.to_str().unwrap()]].concat()).assert().success();
    assert!(read_json(&out)["cells"][0]["repeats"][0].get("types").is_none(), "tpcb runs one type");
    let html = sb.out("tpcb.html");
    let o = sb.cmd(&["report", out.to_str().unwrap(), "--by-type", "--html", html.to_str().unwrap()]).output().unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && !table.contains('↳'), "{table}");
    assert!(table.contains("by type: no workload of these cells mixes transaction types"), "{table}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains(r#"<section id="types">"#) && !page.contains("data-chart=\"types\""));
    let plot = sb.out("types.svg");
    let o = sb.cmd(&["report", out.to_str().unwrap(), "--plot", plot.to_str().unwrap(), "--chart", "types"]).output();
    let o = o.unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("mixes transaction types"), "{o:?}");
}

#[test]
fn each_script_of_a_mix_is_a_type_drawn_by_its_weight() {
    let sb = Sandbox::new();
    let write = |name: &str, text: &str| {
        let p = sb.cache.path().join(name);
        std::fs::write(&p, text).unwrap();
        format!("script:{}", p.display())
    };
    let w = format!("{}@3,{}@1", write("a.sql", "SELECT 1;\n"), write("b.sql", "\\set n :client_id + 1\nSELECT :n;\n"));
    let out = sb.out("mix.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "nosync", "--script-data", "none", "-w", &w, "-t", "2000"];
    let last = ["-r", "1", "--warmup", "0s", "--by-type", "--out", out.to_str().unwrap()];
    let o = sb.cmd(&[&args[..], &last[..]].concat()).output().unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(table.contains("↳ a.sql") && table.contains("↳ b.sql"), "{table}");
    let r = read_json(&out);
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(names(rep), ["a.sql", "b.sql"]);
    adds_up("mix", rep);
    let (a, b) = (n(&rep["types"][0]["transactions"]), n(&rep["types"][1]["transactions"]));
    let ratio = a as f64 / b as f64;
    assert!((2.3..4.0).contains(&ratio), "weights 3:1 drew {a}:{b}");
    // The clients' own count of each script's runs, in the verify detail, is the same.
    let detail = rep["verify"]["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("a.sql {a}, b.sql {b}")), "{detail}");
}

/// The machine's PostgreSQL, as tests/shards.rs uses it.
const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

#[test]
fn shards_merge_type_by_type() {
    assert!(std::net::TcpStream::connect(("127.0.0.1", 5432)).is_ok(), "no server on :5432: run scripts/test");
    let sb = Sandbox::new();
    let at = humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(10)).to_string();
    let outs: Vec<PathBuf> = (0..2).map(|i| sb.out(&format!("shard-{i}.json"))).collect();
    let children: Vec<_> = outs
        .iter()
        .enumerate()
        .map(|(i, out)| {
            let shard = format!("{i}/2");
            let args = ["run", "-q", "-e", "postgres", "--url", URL, "-p", "disk", "-w", "ycsb-a", "-c", "4"];
            let more = ["-T", "1.5s", "--warmup", "0.2s", "--records", "1000", "--shard", &shard, "--start-at", &at];
            let mut c = sb.spawn(&[&args[..], &more[..], &["--out", out.to_str().unwrap()]].concat());
            c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "shard {i}/2: {}", String::from_utf8_lossy(&o.stderr));
    }
    let o = sb.cmd(&["merge", outs[0].to_str().unwrap(), outs[1].to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let merged: Value = serde_json::from_slice(&o.stdout).unwrap();
    let repeat = |v: &Value| v["cells"][0]["repeats"][0].clone();
    let parts: Vec<Value> = outs.iter().map(|f| repeat(&read_json(f))).collect();
    let all = repeat(&merged);
    for (i, p) in parts.iter().enumerate() {
        adds_up(&format!("shard {i}"), p);
    }
    adds_up("merged", &all);
    assert_eq!(names(&all), ["read", "update"]);
    for (i, t) in all["types"].as_array().unwrap().iter().enumerate() {
        let of: Vec<&Value> = parts.iter().map(|p| &p["types"][i]).collect();
        assert_eq!(n(&t["transactions"]), of.iter().map(|x| n(&x["transactions"])).sum::<u64>());
        let mut h = histogram(of[0]["histogram"].as_str().unwrap());
        h.add(histogram(of[1]["histogram"].as_str().unwrap())).unwrap();
        assert_eq!(t["latency_ms"]["p95"].as_f64(), Some(h.value_at_quantile(0.95) as f64 / 1e6), "{}", t["name"]);
    }
    let file = sb.out("merged.json");
    std::fs::write(&file, &o.stdout).unwrap();
    let table = sb.cmd(&["report", file.to_str().unwrap(), "--by-type"]).output().unwrap();
    assert!(String::from_utf8_lossy(&table.stdout).contains("↳ update"));
    assert!(Path::new(&file).exists());
}
