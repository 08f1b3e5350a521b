//! Several load generators, one result: three `run --shard I/3` processes with one
//! `--start-at` against the machine's PostgreSQL, merged by `dbrace merge` into a file
//! whose counts are the parts' sums and whose percentiles are the merged histogram's.

mod common;

use base64::Engine as _;
use common::{Sandbox, read_json};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

const URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

fn histogram(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    Deserializer::new().deserialize(&mut std::io::Cursor::new(bytes)).unwrap()
}

/// The three shards' files of one run, made once for the tests of this file.
fn shard_files() -> &'static Vec<PathBuf> {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FILES.get_or_init(|| {
        assert!(std::net::TcpStream::connect(("127.0.0.1", 5432)).is_ok(), "no server on :5432: run scripts/test");
        let sb = Sandbox::new();
        // Kept beyond the sandbox, which goes when this run is done.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shards");
        std::fs::create_dir_all(&dir).unwrap();
        // Far enough ahead for three processes to start, connect and load on a busy machine.
        let at = humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(12)).to_string();
        let outs: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shard-{i}.json"))).collect();
        let children: Vec<_> = outs
            .iter()
            .enumerate()
            .map(|(i, out)| {
                let shard = format!("{i}/3");
                let args = [
                    "run",
                    "-q",
                    "-e",
                    "postgres",
                    "--url",
                    URL,
                    "-p",
                    "disk",
                    "-w",
                    "insert-commit",
                    "-c",
                    "5",
                    "-T",
                    "2s",
                    "--warmup",
                    "0.2s",
                    "--log-interval",
                    "0.5s",
                    "--shard",
                    &shard,
                    "--start-at",
                    &at,
                    "--out",
                ];
                let mut c = sb.spawn(&args);
                c.arg(out).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
                c.spawn().unwrap()
            })
            .collect();
        for (i, c) in children.into_iter().enumerate() {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "shard {i}/3: {}", String::from_utf8_lossy(&o.stderr));
        }
        outs
    })
}

fn merge(sb: &Sandbox, files: &[&Path]) -> std::process::Output {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    sb.cmd(&args).output().unwrap()
}

/// Counts are the parts' sums, slice by slice; the merged p99 is the merged histogram's,
/// which the test adds up itself; report and the HTML page read the file.
#[test]
fn three_shards_merge_into_one_result() {
    let files = shard_files();
    let sb = &Sandbox::new();
    let parts: Vec<Value> = files.iter().map(|f| read_json(f)).collect();
    let o = merge(sb, &files.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(all["options"]["shards"], 3);
    assert!(all["options"].get("shard").is_none());
    let repeat = |v: &Value| v["cells"][0]["repeats"][0].clone();
    let merged = repeat(&all);
    let reps: Vec<Value> = parts.iter().map(repeat).collect();
    // Each shard ran its share of the five clients: 2, 2 and 1.
    for (i, r) in reps.iter().enumerate() {
        assert_eq!(r["status"], "ok", "shard {i}: {r}");
        assert!(r["transactions"].as_u64().unwrap() > 0, "shard {i}");
    }
    let sum = |key: &str| reps.iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(merged["transactions"].as_u64(), Some(sum("transactions")));
    assert_eq!(merged["errors"].as_u64(), Some(sum("errors")));
    let mut mine = histogram(reps[0]["histogram"].as_str().unwrap());
    for r in &reps[1..] {
        mine.add(histogram(r["histogram"].as_str().unwrap())).unwrap();
    }
    assert_eq!(mine.len(), merged["transactions"].as_u64().unwrap());
    let p99 = mine.value_at_quantile(0.99) as f64 / 1e6;
    assert_eq!(merged["latency_ms"]["p99"].as_f64(), Some(p99));
    let back = histogram(merged["histogram"].as_str().unwrap());
    assert_eq!((back.len(), back.value_at_quantile(0.5)), (mine.len(), mine.value_at_quantile(0.5)));
    // Slice by slice: the same sums and the same added histograms.
    let slices = merged["intervals"].as_array().unwrap();
    assert!(slices.len() >= 4, "{slices:?}");
    for (i, s) in slices.iter().enumerate() {
        let of: Vec<&Value> = reps.iter().filter_map(|r| r["intervals"].get(i)).collect();
        let n: u64 = of.iter().map(|x| x["transactions"].as_u64().unwrap()).sum();
        assert_eq!(s["transactions"].as_u64(), Some(n), "slice {i}");
        let mut h = histogram(of[0]["histogram"].as_str().unwrap());
        for x in &of[1..] {
            h.add(histogram(x["histogram"].as_str().unwrap())).unwrap();
        }
        let got = histogram(s["histogram"].as_str().unwrap());
        assert_eq!((got.len(), got.value_at_quantile(0.95)), (h.len(), h.value_at_quantile(0.95)), "slice {i}");
    }
    let total: u64 = slices.iter().map(|s| s["transactions"].as_u64().unwrap()).sum();
    assert_eq!(total, merged["transactions"].as_u64().unwrap());

    let path = sb.out("all.json");
    std::fs::write(&path, &o.stdout).unwrap();
    let report = sb.cmd(&["report", path.to_str().unwrap()]).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert!(String::from_utf8_lossy(&report.stdout).contains("insert-commit"));
    let html = sb.out("all.html");
    sb.cmd(&["report", path.to_str().unwrap(), "--html", html.to_str().unwrap()]).assert().success();
    let cmp = sb.cmd(&["compare", path.to_str().unwrap(), path.to_str().unwrap()]).output().unwrap();
    assert!(cmp.status.success(), "{}", String::from_utf8_lossy(&cmp.stderr));
}

/// A copy of `file` with `edit` applied to its JSON.
fn edited(sb: &Sandbox, file: &Path, name: &str, edit: impl Fn(&mut Value)) -> PathBuf {
    let mut v = read_json(file);
    edit(&mut v);
    let out = sb.out(name);
    std::fs::write(&out, serde_json::to_vec(&v).unwrap()).unwrap();
    out
}

/// Files of other runs, other cells, missing or doubled shards, or measured phases that
/// did not begin together: one line naming the difference, exit 2.
#[test]
fn merge_refuses_files_that_do_not_belong_together() {
    let files = shard_files();
    let sb = &Sandbox::new();
    let [a, b, c] = [&files[0], &files[1], &files[2]].map(PathBuf::as_path);
    let rate = edited(sb, c, "rate.json", |v| v["options"]["rate"] = 100.0.into());
    let set = edited(sb, c, "set.json", |v| {
        v["cells"][0]["profile"]["settings"] = serde_json::json!([["work_mem", "64MB"]]);
    });
    let cell = edited(sb, c, "cell.json", |v| v["cells"][0]["id"] = "postgres/disk/tpcb/c5".into());
    let late = edited(sb, c, "late.json", |v| {
        let t = v["cells"][0]["repeats"][0]["measure_started_at"].as_str().unwrap();
        let t = humantime::parse_rfc3339(t).unwrap() + Duration::from_secs(1);
        v["cells"][0]["repeats"][0]["measure_started_at"] = humantime::format_rfc3339_micros(t).to_string().into();
    });
    let cases: [(&[&Path], &str); 6] = [
        (&[a, b, &rate], "differ in option 'rate'"),
        (&[a, b, &set], "with different settings"),
        (&[a, b, &cell], "measured different cells"),
        (&[a, b], "shard 2/3's results file is missing"),
        (&[a, b, b], "are both shard 1/3"),
        (&[a, b, &late], "s apart"),
    ];
    for (given, needle) in cases {
        let o = merge(sb, given);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{needle}: {err}");
        assert!(err.contains(needle) && err.lines().count() == 1, "{needle}: {err}");
        assert!(o.stdout.is_empty());
    }
}

/// Bad --shard values and shards that cannot share a server: exit 2 before any server.
#[test]
fn bad_shards_are_refused() {
    let sb = Sandbox::new();
    let base = ["run", "-q", "-e", "postgres", "--url", URL, "-p", "disk", "--start-at", "+30"];
    for (args, needle) in [
        (&["--shard", "3/3"][..], "I must be below N"),
        (&["--shard", "0/0"], "N must be from 1"),
        (&["--shard", "x"], "is not I/N"),
        (&["--shard", "3/4", "-c", "3"], "give --clients 4 or more"),
        (&["--shard", "0/2", "-r", "3"], "--repeat 1"),
        (&["--shard", "0/2", "-w", "insert-commit,tpcb"], "2 cells"),
    ] {
        let o = sb.cmd(&[&base[..], args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle) && err.lines().count() == 1, "{args:?}: {err}");
    }
    let managed = sb.cmd(&["run", "-q", "-e", "sqlite", "--shard", "0/2", "--start-at", "+30"]).output().unwrap();
    let err = String::from_utf8_lossy(&managed.stderr);
    assert_eq!(managed.status.code(), Some(2), "{err}");
    assert!(err.contains("give --url for sqlite"), "{err}");
    let alone = sb.cmd(&["run", "-q", "-e", "sqlite", "--shard", "0/2"]).output().unwrap();
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("needs --start-at TIME"));
    // The same from a config file, whose keys are the long options.
    let toml = sb.out("shard.toml");
    std::fs::write(&toml, format!("engine = [\"postgres\"]\nurl = [\"{URL}\"]\nprofile = [\"disk\"]\nclients = [3]\nshard = \"1/3\"\nstart-at = \"+60\"\n")).unwrap();
    let dry = sb.cmd(&["run", "--config", toml.to_str().unwrap(), "--dry-run"]).output().unwrap();
    let said = String::from_utf8_lossy(&dry.stdout);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(said.contains("postgres/disk/insert-commit/c3") && said.contains("shard = \"1/3\""), "{said}");
}
