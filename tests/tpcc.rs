//! `-w tpcc` end to end on the real binary: PostgreSQL, MariaDB and SQLite each load two
//! warehouses, run the standard mix from several clients and pass the specification's
//! consistency conditions; the five transaction types add up to each repeat and come in
//! the mix's proportions; tpmC and the types are under the table; `--tpcc-mix` and a
//! sweep over warehouses; terminals that key and think; bad input (MariaDB's MEMORY tables among it) refused, exit 2.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// The five types, as the table and the results name them.
const TYPES: [&str; 5] = ["new-order", "payment", "order-status", "delivery", "stock-level"];

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Each type's committed transactions in a repeat, in `TYPES`' order.
fn counts(rep: &Value) -> Vec<u64> {
    let types = rep["types"].as_array().unwrap_or_else(|| panic!("no types: {rep}"));
    TYPES.iter().map(|name| types.iter().find(|t| t["name"] == *name).map_or(0, |t| n(&t["transactions"]))).collect()
}

/// `dbrace ARGS` must succeed; its table and its results file.
fn run(sb: &Sandbox, args: &[&str]) -> (String, Value) {
    let out = sb.out("tpcc.json");
    let o = sb.cmd(&[args, &["-q", "--out", out.to_str().unwrap()]].concat()).output().unwrap();
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}\n{table}", String::from_utf8_lossy(&o.stderr));
    (table, read_json(&out))
}

#[test]
fn three_engines_run_the_mix_on_two_warehouses_and_stay_consistent() {
    let sb = Sandbox::new();
    let args = ["run", "-e", "postgres,mysql,sqlite", "-p", "ram", "-w", "tpcc", "--warehouses", "2", "-c", "3"];
    let (table, r) = run(&sb, &[&args[..], &["-t", "300", "-r", "1", "--warmup", "0s", "--by-type"]].concat());
    for cell in r["cells"].as_array().unwrap() {
        let id = cell["id"].as_str().unwrap();
        let rep = &cell["repeats"][0];
        assert_eq!(rep["status"], "ok", "{id}: {rep}");
        let verify = rep["verify"]["detail"].as_str().unwrap();
        assert!(verify.starts_with("consistency conditions 1-4 hold"), "{id}: {verify}");
        assert_eq!(n(&rep["transactions"]), 900, "{id}");
        let c = counts(rep);
        assert_eq!(c.iter().sum::<u64>(), 900, "{id}: the types add up: {c:?}");
        // 45% and 43% of 900, well inside their spread; each 4% type drawn at all.
        assert!((330..=480).contains(&c[0]) && (310..=460).contains(&c[1]), "{id}: {c:?}");
        assert!(c[2..].iter().all(|&k| (10..=80).contains(&k)), "{id}: {c:?}");
        assert!(table.contains(&format!("{id}: ")) && table.contains(" tpmC"), "{id}: no tpmC line\n{table}");
    }
    for t in TYPES {
        assert_eq!(table.matches(&format!("↳ {t}")).count(), 3, "a {t} row under each cell\n{table}");
    }
}

#[test]
fn a_mix_of_one_type_runs_that_type_alone() {
    let sb = Sandbox::new();
    let args = ["run", "-e", "sqlite", "-p", "nosync", "-w", "tpcc", "--tpcc-mix", "0,0,0,100,0", "-t", "40"];
    let (_, r) = run(&sb, &[&args[..], &["-r", "1", "--warmup", "0s"]].concat());
    let rep = &r["cells"][0]["repeats"][0];
    assert_eq!(counts(rep), [0, 0, 0, 40, 0], "{rep}");
    // Forty deliveries of ten districts each took 400 of the 9,000 orders left to deliver.
    let verify = rep["verify"]["detail"].as_str().unwrap();
    assert!(verify.contains("new_order 8600"), "{verify}");
}

#[test]
fn a_sweep_over_warehouses_loads_each_size() {
    let sb = Sandbox::new();
    let args = ["run", "-e", "sqlite", "-p", "nosync", "-w", "tpcc", "--sweep", "warehouses=1,3", "-t", "50"];
    let (_, r) = run(&sb, &[&args[..], &["-r", "1", "--warmup", "0s"]].concat());
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for (cell, orders) in cells.iter().zip([30_000, 90_000]) {
        let verify = cell["repeats"][0]["verify"]["detail"].as_str().unwrap();
        // Loaded orders, and the New-Orders of 50 transactions on top.
        let said: u64 = verify.split("orders ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        assert!((orders..=orders + 50).contains(&said), "{verify}");
    }
}

#[test]
fn terminals_that_key_and_think_wait_between_transactions() {
    let sb = Sandbox::new();
    let args = ["run", "-e", "sqlite", "-p", "nosync", "-w", "tpcc", "--tpcc-think", "-c", "10", "-T", "2s"];
    let began = std::time::Instant::now();
    let (_, r) = run(&sb, &[&args[..], &["-r", "1", "--warmup", "0s"]].concat());
    let rep = &r["cells"][0]["repeats"][0];
    // Each terminal's first transaction at once, then at least 2 s of keying before its next.
    assert_eq!(n(&rep["transactions"]), 10, "{rep}");
    assert!(r["options"]["tpcc_think"] == true, "{}", r["options"]);
    // The measured phase ends on time: a client waiting out a think time sees the stop.
    let load = rep["load_s"].as_f64().unwrap() + rep["start_s"].as_f64().unwrap();
    assert!(began.elapsed().as_secs_f64() < load + 10.0, "{:?}", began.elapsed());
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let sb = Sandbox::new();
    for (args, says) in [
        (vec!["-e", "sqlite", "--tpcc-mix", "50,50"], "five percentages"),
        (vec!["-e", "sqlite", "--warehouses", "0"], "warehouses must be at least 1"),
        (vec!["-e", "redis"], "tpcc"),
        (vec!["-e", "mysql", "-p", "unlogged"], "tables keep a rolled-back transaction's changes"),
    ] {
        let o = sb.cmd(&[&["run", "-w", "tpcc", "-t", "1"][..], &args].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn tpmc_is_in_each_cells_summary_and_its_csv_columns() {
    let sb = Sandbox::new();
    let out = sb.out("tpmc.json");
    let args = ["run", "-q", "-e", "sqlite", "-p", "disk,nosync", "-w", "tpcc", "-c", "2", "-r", "3", "-T", "0.5s"];
    let mut o = sb.cmd(&[&args[..], &["--warmup", "0s", "--format", "csv", "--out", out.to_str().unwrap()]].concat());
    let csv = String::from_utf8(o.assert().success().get_output().stdout.clone()).unwrap();
    let r = read_json(&out);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name}: {head:?}"));
    for (cell, line) in r["cells"].as_array().unwrap().iter().zip(csv.lines().skip(1)) {
        let s = &cell["summary"];
        let new_orders = s["types"].as_array().unwrap().iter().find(|t| t["name"] == "new-order").unwrap();
        // tpmC is New-Order's rate per minute: 60 times its median tps, with an interval.
        let want = 60.0 * new_orders["tps"]["median"].as_f64().unwrap();
        let tpmc = s["tpmc"]["median"].as_f64().unwrap_or_else(|| panic!("no tpmc: {s}"));
        assert!((tpmc - want).abs() < 1e-6 * want && tpmc > 0.0, "{tpmc} vs {want}");
        assert!(s["tpmc"]["lo"].as_f64().unwrap() <= tpmc, "{s}");
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[at("id")], cell["id"].as_str().unwrap());
        assert_eq!(fields[at("tpmc_median")].parse::<f64>().unwrap(), tpmc, "{line}");
    }
}
