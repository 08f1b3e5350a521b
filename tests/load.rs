//! Loading a data set: a server's tables load side by side (oltp's tables, MySQL's
//! pgbench_accounts in ranges), the rows are those one stream loads (verify counts them
//! and the primary key refuses a row twice), and each phase's time is recorded.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;

/// The repeats of `dbrace run ARGS` (each cell's first), after asserting it succeeded.
fn repeats(sb: &Sandbox, name: &str, args: &[&str]) -> Vec<Value> {
    let out = sb.out(name);
    let o = sb
        .cmd(
            &[&["run", "-q", "-r", "1", "--warmup", "0s", "-t", "20"], args, &["--out", out.to_str().unwrap()]]
                .concat(),
        )
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    read_json(&out)["cells"].as_array().unwrap().iter().map(|c| c["repeats"][0].clone()).collect()
}

/// The phases' names, and their seconds summed.
fn phases(r: &Value) -> (Vec<String>, f64) {
    let p = r["load_phases"].as_array().unwrap_or_else(|| panic!("no load_phases in {r}"));
    let names = p.iter().map(|p| p["phase"].as_str().unwrap().to_string()).collect();
    (names, p.iter().map(|p| p["s"].as_f64().unwrap()).sum())
}

#[test]
fn tables_load_side_by_side_with_their_phases_timed_on_every_sql_engine() {
    let sb = Sandbox::new();
    for engine in ["postgres", "mysql", "sqlite"] {
        let args =
            ["-e", engine, "-p", "ram", "-w", "tpcb,oltp-rw", "-s", "2", "--tables", "3", "--table-size", "2000"];
        let rs = repeats(&sb, &format!("{engine}.json"), &args);
        assert_eq!(rs.len(), 2, "{engine}");
        for (r, want) in
            rs.iter().zip([&["create tables", "generate", "vacuum and keys"][..], &["generate", "indexes"]])
        {
            assert_eq!(r["status"], "ok", "{engine}: {r}");
            // tpcb counts 200,000 accounts, oltp 3 × 2,000 rows with ids 1..2000.
            assert_eq!(r["verify"]["ok"], true, "{engine}: {r}");
            let (names, sum) = phases(r);
            assert_eq!(names, want, "{engine}: {r}");
            let load = r["load_s"].as_f64().unwrap();
            // The phases are the load, less what lies between them.
            assert!(sum <= load && sum > 0.5 * load, "{engine}: phases {sum} s of a load of {load} s");
        }
    }
}
