//! Rounds in a random order, cells that keep their server, and a budget that stops each
//! comparison once it is settled: end to end, the real binary on real SQLite and
//! PostgreSQL, and exec on a command whose speed depends on the profile.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

fn cells(v: &Value) -> &Vec<Value> {
    v["cells"].as_array().unwrap()
}

fn repeats(c: &Value) -> &Vec<Value> {
    c["repeats"].as_array().unwrap()
}

fn rows(sb: &Sandbox, out: &std::path::Path) -> Vec<Value> {
    let o = sb.cmd(&["report", out.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice::<Value>(&o.stdout).unwrap().as_array().unwrap().clone()
}

#[test]
fn a_cell_keeps_its_server_and_data_across_repeats() {
    let sb = Sandbox::new();
    let out = sb.out("kept.json");
    let args = ["run", "-q", "-e", "postgres", "-p", "disk,ram", "-T", "0.2s", "--warmup", "0s", "-r", "3"];
    sb.cmd(&[&args[..], &["--out", out.to_str().unwrap()]].concat()).assert().success();
    let r = read_json(&out);
    for c in cells(&r) {
        let reps = repeats(c);
        let mut committed = 0;
        for (i, rep) in reps.iter().enumerate() {
            assert_eq!(rep["status"], "ok", "{rep}");
            assert_eq!(rep["round"], i + 1, "{}", c["id"]);
            // The first launched and loaded (in the preflight); the others reused it.
            assert_eq!(rep["kept"].as_bool().unwrap_or(false), i > 0, "{}", c["id"]);
            if i > 0 {
                assert_eq!((rep["start_s"].as_f64(), rep["load_s"].as_f64()), (Some(0.0), Some(0.0)));
            }
            // verify counts the rows of every repeat on the data set.
            committed += rep["transactions"].as_u64().unwrap() + rep["warmup_transactions"].as_u64().unwrap();
            let detail = rep["verify"]["detail"].as_str().unwrap();
            assert!(detail.starts_with(&format!("{committed} rows, {committed} committed")), "{detail}");
        }
    }
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());

    // --fresh: a server and a data set of its own for every repeat, as before.
    let fresh = sb.out("fresh.json");
    sb.cmd(&[&args[..], &["--fresh", "--out", fresh.to_str().unwrap()]].concat()).assert().success();
    let r = read_json(&fresh);
    assert_eq!(r["options"]["fresh"], true);
    for rep in cells(&r).iter().flat_map(repeats) {
        assert!(rep.get("kept").is_none() && rep["start_s"].as_f64().unwrap() > 0.0, "{rep}");
    }
}

#[test]
fn each_round_runs_its_cells_in_a_random_order() {
    let sb = Sandbox::new();
    let out = sb.out("order.json");
    let args = ["run", "-e", "sqlite", "-p", "disk,ram,async,nosync", "-T", "0.05s", "--warmup", "0s", "-r", "4"];
    let o = sb.cmd(&[&args[..], &["--seed", "7", "--out", out.to_str().unwrap()]].concat()).output().unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    // "[  3/16] sqlite/async/insert-commit/c1 #1: …": the cells in the order they ran.
    let ran: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with('['))
        .filter_map(|l| l.split_once("] ").map(|(_, rest)| rest.split(' ').next().unwrap()))
        .collect();
    assert_eq!(ran.len(), 16, "{err}");
    let rounds: Vec<Vec<&str>> = ran.chunks(4).map(<[&str]>::to_vec).collect();
    let plan: Vec<String> =
        ["disk", "ram", "async", "nosync"].iter().map(|p| format!("sqlite/{p}/insert-commit/c1")).collect();
    for round in &rounds {
        let mut sorted = round.clone();
        sorted.sort();
        let mut want: Vec<&str> = plan.iter().map(String::as_str).collect();
        want.sort();
        assert_eq!(sorted, want, "every cell once a round: {err}");
    }
    assert!(rounds.iter().any(|r| *r != plan), "four rounds in plan order: {err}");
    assert!(rounds.windows(2).any(|w| w[0] != w[1]), "the same order every round: {err}");
    // With six or more rounds the ratios are judged on the rounds' pairs; four cannot
    // reach 95% that way, so these are judged on all repeats.
    for row in rows(&sb, &out).iter().filter(|r| r["profile"] != "disk") {
        assert!(row["vs_baseline"].get("pairs").is_none(), "{row}");
    }
}

#[test]
fn a_budget_stops_each_comparison_once_it_is_settled() {
    let sb = Sandbox::new();
    let out = sb.out("budget.json");
    let args = ["run", "-e", "sqlite,memory", "-p", "disk,unlogged", "-T", "0.1s", "--warmup", "0s"];
    let run = sb.cmd(&[&args[..], &["--budget", "1m", "--out", out.to_str().unwrap()]].concat()).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let r = read_json(&out);
    assert_eq!(r["options"]["budget_s"], 60.0);
    // Hundreds of times faster than a synced disk: settled at a look, nearly always the
    // first (7 rounds), the next (10) when a busy machine slowed one repeat.
    let o = &r["budget_outcome"];
    assert_eq!(
        (o["reason"].as_str(), o["comparisons"].as_u64(), o["settled"].as_u64()),
        (Some("reached"), Some(2), Some(2))
    );
    let rounds = o["rounds"].as_u64().unwrap();
    assert!([7, 10, 14].contains(&rounds), "{o}");
    assert_eq!(r["options"]["repeat"], rounds);
    for row in rows(&sb, &out).iter().filter(|r| r["profile"] == "unlogged") {
        let v = &row["vs_baseline"];
        let (pairs, looks) = (v["pairs"].as_u64().unwrap(), v["looks"].as_u64().unwrap());
        assert_eq!((v["verdict"].as_str(), [7, 10, 14][looks as usize - 1]), (Some("faster"), pairs), "{row}");
        assert_eq!(v["confidence"], 0.95, "{row}");
        // The cell left the rounds once its comparison was settled.
        let c = cells(&r).iter().find(|c| c["id"] == row["id"]).unwrap();
        assert_eq!(repeats(c).len() as u64, pairs);
    }
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(table.contains(&format!("budget: all 2 comparisons settled in {rounds} rounds.")), "{table}");
    assert!(table.contains("looked at after 7, 10, 14, … of them"), "{table}");
}

#[test]
fn an_aa_pair_is_measured_until_the_budget_is_spent() {
    let sb = Sandbox::new();
    let out = sb.out("aa.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "ram,again=ram", "-T", "0.1s", "--warmup", "0s", "--budget", "3s"];
    let started = std::time::Instant::now();
    let o = sb.cmd(&[&args[..], &["--out", out.to_str().unwrap()]].concat()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(started.elapsed().as_secs_f64() < 20.0, "a 3 s budget took {:?}", started.elapsed());
    let r = read_json(&out);
    let outcome = &r["budget_outcome"];
    // Identical cells rarely settle; the rounds then end with the budget.
    if outcome["settled"] == 0 {
        assert_eq!(outcome["reason"], "max-time", "{outcome}");
        let table = String::from_utf8_lossy(&o.stdout);
        assert!(table.contains("stopped when the budget could not hold another round"), "{table}");
    }
    let rounds = outcome["rounds"].as_u64().unwrap();
    assert!(rounds >= 7, "{outcome}");
    assert_eq!(repeats(&cells(&r)[1]).len() as u64, rounds);
}

#[test]
fn a_busy_neighbour_is_named_under_the_table() {
    let sb = Sandbox::new();
    // A process of no one's run, spinning on a core while the run measures.
    std::process::Command::new("setsid")
        .args(["-f", "timeout", "20", "sh", "-c", "while :; do :; done"])
        .status()
        .expect("setsid runs");
    let args = ["run", "-q", "-e", "sqlite", "-p", "ram", "-T", "0.3s", "--warmup", "0s", "-r", "3"];
    let o = sb.cmd(&args).output().unwrap();
    let _ = std::process::Command::new("pkill").args(["-f", "while :; do :; done"]).status();
    assert!(o.status.success());
    let table = String::from_utf8_lossy(&o.stdout);
    let line = table.lines().find(|l| l.starts_with("disturbed: ")).unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains("sqlite/ram/insert-commit/c1 (") && line.contains("other processes up to"), "{line}");
}

#[test]
fn exec_runs_rounds_until_every_profile_is_settled() {
    let sb = Sandbox::new();
    let out = sb.out("exec.json");
    // Disk takes five times as long as ram, every run.
    let script = "case $DBRACE_PROFILE in disk) sleep 0.1 ;; *) sleep 0.02 ;; esac";
    let args = ["exec", "-q", "-e", "sqlite", "-p", "disk,ram", "--reuse", "--warmup", "0"];
    let o =
        sb.cmd(&[&args[..], &["--out", out.to_str().unwrap(), "--", "sh", "-c", script]].concat()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    assert_eq!((r["options"]["repeat"].as_u64(), r["options"]["max_repeat"].as_u64()), (Some(7), Some(20)));
    for p in r["profiles"].as_array().unwrap() {
        let rounds: Vec<u64> = p["runs"].as_array().unwrap().iter().map(|x| x["round"].as_u64().unwrap()).collect();
        assert_eq!(rounds, (1..=7).collect::<Vec<_>>());
    }
    let v = &r["summary"]["profiles"][1]["versus"];
    assert_eq!((v["verdict"].as_str(), v["speedup"]["pairs"].as_u64()), (Some("faster"), Some(7)), "{v}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("ram ran ") && text.contains("times faster than disk"), "{text}");
}
