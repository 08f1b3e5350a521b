//! `script:FILE`: pgbench's documented example scripts run unmodified on a throwaway
//! PostgreSQL and verify; plain-SQL scripts on SQLite; values kept by `\gset`, `\if`
//! branches, `--define`, a mix by weight, per-statement latency; failures at run time are
//! counted while the run goes on; bad scripts are one line FILE:LINE:COLUMN, exit 2,
//! before any server starts. scripts/test installs the PostgreSQL binaries when missing.

mod common;

use common::{Sandbox, read_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn doc_script(name: &str) -> String {
    format!("script:{}/tests/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn require_postgres() {
    let found = std::fs::read_dir("/usr/lib/postgresql").map(|mut d| d.next().is_some()).unwrap_or(false);
    assert!(
        found,
        "PostgreSQL server binaries missing: run scripts/test, which installs them (apt-get install postgresql)"
    );
}

/// A script file of this test's own.
fn write(sb: &Sandbox, name: &str, text: &str) -> PathBuf {
    let p = sb.cache.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn spec(p: &Path) -> String {
    format!("script:{}", p.display())
}

/// `dbrace run` with `args` (one repeat, no warm-up); the results and stdout.
fn run(sb: &Sandbox, args: &[&str], expect_success: bool) -> (Value, String) {
    let out = sb.out(&format!("r{}.json", rand_suffix()));
    let o = sb
        .cmd(&["run", "-q", "--warmup", "0s", "-r", "1"])
        .args(args)
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.success(), expect_success, "{args:?}: {stderr}\n{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (read_json(&out), stdout)
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn repeat(r: &Value, cell: usize) -> &Value {
    &r["cells"][cell]["repeats"][0]
}

/// A documented script on a throwaway PostgreSQL: every repeat ok and verified, every
/// command run, no failure.
fn golden(file: &str, extra: &[&str]) {
    require_postgres();
    let sb = Sandbox::new();
    let w = doc_script(file);
    let mut args = vec!["-e", "postgres", "-p", "nosync", "-w", &w, "-c", "2", "-t", "25", "--report-per-statement"];
    args.extend_from_slice(extra);
    let (r, stdout) = run(&sb, &args, true);
    let rep = repeat(&r, 0);
    assert_eq!(rep["status"], "ok", "{rep}");
    assert_eq!(rep["verify"]["ok"], true, "{}", rep["verify"]);
    assert_eq!(rep["transactions"], 50);
    assert_eq!(rep["errors"], 0);
    let commands = std::fs::read_to_string(w.trim_start_matches("script:")).unwrap();
    let statements = rep["statements"].as_array().unwrap();
    assert!(!statements.is_empty() && statements.len() <= commands.lines().count(), "{statements:?}");
    for s in statements {
        assert!(s["executions"].as_u64().unwrap() >= 50, "{s}");
        assert_eq!(s["failures"], 0, "{s}");
        assert!(stdout.contains(s["command"].as_str().unwrap()), "{stdout}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn doc_tpcb_like() {
    golden("tpcb-like.sql", &[]);
}

#[test]
fn doc_simple_update() {
    golden("simple-update.sql", &[]);
}

#[test]
fn doc_select_only() {
    golden("select-only.sql", &[]);
}

#[test]
fn doc_set_examples() {
    golden("set-examples.sql", &["--script-data", "none", "-D", "x=3", "-D", "y=10"]);
}

#[test]
fn doc_sleep() {
    golden("sleep.sql", &["--script-data", "none"]);
}

#[test]
fn doc_gset_and_aset() {
    golden("gset.sql", &["-D", "delta=7", "-D", "aid=42"]);
}

#[test]
fn doc_hash_zipfian() {
    golden("hash-zipfian.sql", &["--script-data", "none"]);
}

#[test]
fn doc_hash_seeds() {
    golden("hash-seeds.sql", &["--script-data", "none", "-D", "r=12345"]);
}

#[test]
fn doc_hash_size() {
    golden("hash-size.sql", &["--script-data", "none"]);
}

#[test]
fn doc_permute() {
    golden("permute.sql", &["--script-data", "none"]);
}

#[test]
fn doc_permute_seeds() {
    golden("permute-seeds.sql", &["--script-data", "none", "-D", "r=77", "-D", "size=1000"]);
}

#[test]
fn plain_sql_scripts_run_on_sqlite_with_pgbench_tables_or_their_own() {
    let sb = Sandbox::new();
    let (r, _) = run(&sb, &["-e", "sqlite", "-p", "nosync", "-w", &doc_script("tpcb-like.sql"), "-t", "200"], true);
    assert_eq!(repeat(&r, 0)["status"], "ok");
    assert_eq!(repeat(&r, 0)["transactions"], 200);
    // Its own table, made by --script-init; nothing of pgbench's loaded.
    let init = write(&sb, "init.sql", "CREATE TABLE kv (k integer PRIMARY KEY, v integer);");
    let s = write(
        &sb,
        "kv.sql",
        "\\set k random(1, 50)\nINSERT INTO kv VALUES (:k, 1) ON CONFLICT (k) DO UPDATE SET v = kv.v + 1;\nSELECT v FROM kv WHERE k = :k;\n",
    );
    let init_arg = init.to_str().unwrap();
    let args = [
        "-e",
        "sqlite",
        "-p",
        "nosync",
        "-w",
        &spec(&s),
        "-t",
        "300",
        "--script-data",
        "none",
        "--script-init",
        init_arg,
    ];
    let (r, _) = run(&sb, &args, true);
    let rep = repeat(&r, 0);
    assert_eq!((rep["status"].as_str(), rep["errors"].as_u64()), (Some("ok"), Some(0)), "{rep}");
    assert_eq!(rep["verify"]["detail"], "300 script runs completed by the clients, 300 transactions committed");
}

#[test]
fn gset_keeps_values_and_if_branches_on_them() {
    require_postgres();
    let sb = Sandbox::new();
    // \gset and \aset store what the query returned: the \if finds 5 and 9, so no division by zero.
    let ok = write(
        &sb,
        "kept.sql",
        "SELECT 5 AS five \\gset\nSELECT 4 AS four \\; SELECT 9 AS nine \\aset p_\n\\if :five <> 5 or :p_nine <> 9\n\\set boom 1 / 0\n\\elif :five = 5\n\\set fine 1\n\\else\n\\set boom 1 / 0\n\\endif\n",
    );
    // A kept 0 divides: every transaction fails with the script's line, not an undefined variable.
    let zero = write(&sb, "zero.sql", "SELECT 0 AS zero \\gset\n\\set x 1 / :zero\n");
    for engine in ["sqlite", "postgres"] {
        let base = ["-e", engine, "-p", "nosync", "--script-data", "none", "-t", "50"];
        let (r, _) = run(&sb, &[&base[..], &["-w", &spec(&ok)]].concat(), true);
        let rep = repeat(&r, 0);
        assert_eq!((rep["status"].as_str(), rep["errors"].as_u64()), (Some("ok"), Some(0)), "{engine}: {rep}");
        let (r, _) = run(&sb, &[&base[..], &["-w", &spec(&zero)]].concat(), false);
        let rep = repeat(&r, 0);
        assert_eq!(rep["status"], "failed", "{engine}: {rep}");
        let err = rep["error"].as_str().unwrap();
        assert!(err.contains("zero.sql:2: division by zero"), "{engine}: {err}");
    }
}

#[test]
fn division_by_zero_fails_that_transaction_and_the_run_goes_on() {
    let sb = Sandbox::new();
    let s = write(&sb, "div.sql", "\\set d random(0, 1)\n\\set x 10 / :d\nSELECT :x;\n");
    let (r, stdout) =
        run(&sb, &["-e", "sqlite", "-p", "nosync", "--script-data", "none", "-t", "400", "-w", &spec(&s)], true);
    let rep = repeat(&r, 0);
    assert_eq!(rep["status"], "ok", "{rep}");
    assert_eq!(rep["transactions"], 400);
    let errors = rep["errors"].as_u64().unwrap();
    assert!((100..=700).contains(&errors), "about one in two fails: {errors} errors for 400 commits");
    assert!(rep["error"].as_str().unwrap().contains("div.sql:2: division by zero"), "{rep}");
    assert!(stdout.contains("failed transactions"), "{stdout}");
}

#[test]
fn script_entries_form_one_mix_drawn_by_weight() {
    let sb = Sandbox::new();
    let a = write(&sb, "a.sql", "SELECT 1;\n");
    let b = write(&sb, "b.sql", "\\set n :client_id + 1\nSELECT :n;\n");
    let w = format!("{}@3,{}@1", spec(&a), spec(&b));
    let (r, stdout) = run(
        &sb,
        &["-e", "sqlite", "-p", "nosync", "--script-data", "none", "-t", "2000", "-w", &w, "--report-per-statement"],
        true,
    );
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "one workload: {cells:?}");
    assert_eq!(cells[0]["workload"], "script:a.sql@3+b.sql@1");
    let detail = repeat(&r, 0)["verify"]["detail"].as_str().unwrap().to_string();
    let count = |label: &str| -> f64 {
        let at = detail.find(label).unwrap_or_else(|| panic!("{detail}")) + label.len() + 1;
        detail[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let ratio = count("a.sql") / count("b.sql");
    assert!((2.3..4.0).contains(&ratio), "weights 3:1 drew {ratio:.2}:1 ({detail})");
    assert!(stdout.contains("statement latencies in milliseconds") && stdout.contains("b.sql:2"), "{stdout}");
}

#[test]
fn defines_reach_expressions_and_statements() {
    let sb = Sandbox::new();
    let s = write(&sb, "d.sql", "\\set x :n + 1\n\\if :x <> 42\n\\set boom 1 / 0\n\\endif\nSELECT :word, :x;\n");
    let args = [
        "-e",
        "sqlite",
        "-p",
        "nosync",
        "--script-data",
        "none",
        "-t",
        "20",
        "-w",
        &spec(&s),
        "-D",
        "n=41",
        "-D",
        "word=hello",
    ];
    let (r, _) = run(&sb, &args, true);
    assert_eq!(repeat(&r, 0)["errors"], 0, "{}", repeat(&r, 0));
}

/// Run dbrace with `args`, expect exit 2 and one stderr line containing every `needle`.
fn refused(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let out = sb.cmd(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
}

#[test]
fn bad_scripts_are_one_line_at_file_line_column_before_any_server_starts() {
    let sb = Sandbox::new();
    let cases: &[(&str, &str, &str)] = &[
        ("expr.sql", "SELECT 1;\n\\set x (1 +\n", ":2:12: expected an expression"),
        ("undef.sql", "\\set a 1\nSELECT :a, :b;\n", ":2:12: undefined variable :b"),
        ("cmd.sql", "\\sete x 1\n", ":1:1: invalid command \\sete"),
        ("shell.sql", "\\setshell x echo 1\n", ":1:1: \\setshell is not supported by dbrace"),
        ("quote.sql", "SELECT 'abc;\n", ":1:8: unterminated quoted string"),
        ("if.sql", "\\if 1\nSELECT 1;\n", ":1:1: \\if without a matching \\endif"),
        ("func.sql", "\\set x random(1, 2, 3)\n", ":1:8: random takes 2 argument(s), got 3"),
        ("unit.sql", "\\sleep 1 min\n", ":1:10: unrecognized time unit 'min'"),
    ];
    for (name, text, want) in cases {
        let p = write(&sb, name, text);
        let w = spec(&p);
        // A missing PostgreSQL (a bogus --pg-bin) would be the error if a server were tried first.
        let args = ["run", "-e", "postgres,sqlite", "--pg-bin", "/nonexistent/bin", "-w", &w];
        refused(&sb, &args, &[&format!("{}{want}", p.display())]);
    }
    refused(&sb, &["run", "-w", "script:/no/such.sql"], &["cannot read script /no/such.sql"]);
    refused(
        &sb,
        &["run", "-w", &doc_script("tpcb-like.sql"), "-D", "novalue"],
        &["--define 'novalue' is not NAME=VALUE"],
    );
    refused(&sb, &["run", "-e", "memory", "-w", &doc_script("select-only.sql")], &["cannot run on memory", "sqlite"]);
    assert!(sb.leftovers().is_empty());
}
