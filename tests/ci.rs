//! docs/ci/github-actions.yml's dbrace commands, read out of the file and run here with the
//! real binary against throwaway PostgreSQL servers, so the docs cannot drift from what is
//! tested. Three things differ from a real job, each on purpose: the suite (what follows
//! exec's `--`) is psql, the durations are short, and the pull request's transaction is
//! planted slower than its base's, so the gate has a regression to fail on.

mod common;

use common::Sandbox;
use std::path::{Path, PathBuf};
use std::process::Output;
use yaml_serde::Value;

/// One dbrace step of a workflow: its argv and the directory it runs in.
struct Step {
    argv: Vec<String>,
    dir: Option<String>,
}

fn docs(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A command line as argv, split as the shell would split it (no shell runs it).
fn words(line: &str) -> Vec<String> {
    shell_words::split(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// The steps of the GitHub workflow's jobs whose `run:` is a dbrace command, in order.
fn github_steps() -> Vec<Step> {
    let file: Value = yaml_serde::from_str(&docs("github-actions.yml")).expect("github-actions.yml is YAML");
    let jobs = file["jobs"].as_mapping().expect("jobs");
    let steps = jobs.values().flat_map(|job| job["steps"].as_sequence().expect("a job's steps").iter());
    steps
        .filter_map(|s| {
            let run = s["run"].as_str().filter(|r| r.starts_with("dbrace "))?;
            Some(Step { argv: words(run), dir: s["working-directory"].as_str().map(String::from) })
        })
        .collect()
}

/// The GitLab job's dbrace commands, in order.
fn gitlab_commands() -> Vec<Vec<String>> {
    let file: Value = yaml_serde::from_str(&docs("gitlab-ci.yml")).expect("gitlab-ci.yml is YAML");
    let script = file["dbrace"]["script"].as_sequence().expect("the dbrace job's script");
    script.iter().filter_map(|l| l.as_str().filter(|l| l.starts_with("dbrace "))).map(words).collect()
}

#[test]
fn the_gitlab_job_runs_the_same_commands_as_the_github_workflow() {
    let github: Vec<Vec<String>> = github_steps().into_iter().map(|s| s.argv).collect();
    assert_eq!(gitlab_commands(), github);
    let script = docs("gitlab-ci.yml");
    let (cd, back) = (script.find("- cd base\n").expect("cd base"), script.find("- cd ..\n").expect("cd .."));
    let base_run = script.find("--out ../base.json").expect("the base branch's run");
    assert!(cd < base_run && base_run < back, "the base branch's run is made in its checkout");
}

/// `argv` with the value after `flag` set to `value`; the flag must be there.
fn set(argv: &mut [String], flag: &str, value: &str) {
    let at = argv.iter().position(|a| a == flag).unwrap_or_else(|| panic!("no {flag} in {argv:?}"));
    argv[at + 1] = value.to_string();
}

/// A step's argv as the test runs it: short durations, and psql for the user's suite.
fn quick(mut argv: Vec<String>) -> Vec<String> {
    match argv[1].as_str() {
        "run" => set(&mut argv, "-T", "0.3s"),
        "exec" => {
            // Two rounds instead of a budget; psql against the run's server as the suite.
            let at = argv.iter().position(|a| a == "--budget").expect("exec's --budget");
            argv.splice(at..at + 2, ["--repeat".to_string(), "2".to_string()]);
            let suite = argv.iter().position(|a| a == "--").expect("exec's -- before the suite");
            argv.truncate(suite + 1);
            argv.extend(["psql", "-XAtc", "select 1"].map(String::from));
        }
        _ => {}
    }
    argv
}

/// The user's repository: its base branch in base/, the pull request's checkout at the
/// top, each with the transaction the gate races and its schema.
fn repository(sb: &Sandbox) -> PathBuf {
    let top = sb.cache.path().join("repo");
    let schema = "CREATE TABLE orders (id bigserial PRIMARY KEY, customer int NOT NULL, total int NOT NULL);\n";
    let checkout = "\\set customer random(1, 1000)\nINSERT INTO orders (customer, total) VALUES (:customer, 42);\n";
    for (dir, transaction) in [
        (top.join("base/perf"), checkout.to_string()),
        // The regression: every transaction also waits 2 ms, many times what an insert takes.
        (top.join("perf"), format!("{checkout}SELECT pg_sleep(0.002);\n")),
    ] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("schema.sql"), schema).unwrap();
        std::fs::write(dir.join("checkout.sql"), transaction).unwrap();
    }
    top
}

/// `dbrace ARGV` in `dir` of `top`, with GITHUB_STEP_SUMMARY set to `summary` if given.
fn dbrace(sb: &Sandbox, argv: &[String], top: &Path, dir: Option<&str>, summary: Option<&Path>) -> Output {
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let mut cmd = sb.cmd(&args);
    cmd.current_dir(dir.map_or(top.to_path_buf(), |d| top.join(d)));
    if let Some(file) = summary {
        cmd.env("GITHUB_STEP_SUMMARY", file);
    }
    cmd.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_workflow_appends_the_exec_and_compare_tables_to_the_step_summary() {
    let started = std::time::Instant::now();
    let sb = Sandbox::new();
    let top = repository(&sb);
    let summary = sb.out("summary.md");
    // What an earlier step of the job wrote: appended to, never truncated.
    std::fs::write(&summary, "### Unit tests\nall passed\n").unwrap();
    let steps = github_steps();
    let kinds: Vec<&str> = steps.iter().map(|s| s.argv[1].as_str()).collect();
    assert_eq!(kinds, ["exec", "run", "run", "compare"], "the workflow's dbrace steps");

    let outputs: Vec<Output> = steps
        .iter()
        .map(|step| dbrace(&sb, &quick(step.argv.clone()), &top, step.dir.as_deref(), Some(&summary)))
        .collect();
    for out in &outputs[..3] {
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let gate = &outputs[3];
    assert_eq!(gate.status.code(), Some(1), "the planted regression fails the gate: {}", text(&gate.stderr));
    assert!(text(&gate.stderr).contains(CELL), "{}", text(&gate.stderr));
    tables_appended(&std::fs::read_to_string(&summary).unwrap());

    again_with_markdown(&sb, &steps[3], &top, &summary);
    eprintln!("the workflow's commands took {:.1} s", started.elapsed().as_secs_f64());
}

/// The cell the gate races.
const CELL: &str = "postgres/ram-nosync/script:checkout.sql/c1";

/// The summary `written` holds the earlier step's lines, then exec's table, then compare's.
fn tables_appended(written: &str) {
    let exec_at = written.find("| profile | mean ± σ |").expect(written);
    let compare_at = written.find("**dbrace compare** `base.json` → `head.json`").expect(written);
    assert!(written.starts_with("### Unit tests\nall passed\n\n`psql -XAtc 'select 1'` on postgres\n"), "{written}");
    assert!(exec_at < compare_at, "exec's table, then compare's: {written}");
    for row in ["| disk |", "| ram-nosync |"] {
        assert!(written[exec_at..compare_at].contains(row), "{written}");
    }
    assert!(written[compare_at..].contains(&format!("| {CELL} |")), "{written}");
    assert!(written[compare_at..].contains("**SLOWER, beyond the 5% limit**"), "{written}");
}

/// The gate again: with `--format markdown` its stdout is exactly what it appends after the
/// reports already there; without the variable nothing is written; a file that cannot be
/// written is one warning, and the gate's answer is unchanged.
fn again_with_markdown(sb: &Sandbox, gate: &Step, top: &Path, summary: &Path) {
    let argv = [&gate.argv[..], &["--format".into(), "markdown".into()]].concat();
    let before = std::fs::read_to_string(summary).unwrap();
    let out = dbrace(sb, &argv, top, None, Some(summary));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(summary).unwrap(), format!("{before}\n{}", text(&out.stdout)));

    let after = std::fs::read_to_string(summary).unwrap();
    assert_eq!(dbrace(sb, &argv, top, None, None).status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(summary).unwrap(), after, "no variable, no summary");

    let out = dbrace(sb, &argv, top, None, Some(top));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), after[before.len() + 1..], "the report is on stdout all the same");
    let stderr = text(&out.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("GITHUB_STEP_SUMMARY") && warnings[0].contains(&top.display().to_string()),
        "{stderr}"
    );
}
