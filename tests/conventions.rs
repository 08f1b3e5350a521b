//! What users expect of a command-line tool: shell completions, a man page, and a
//! `--version` that names the commit it was built from.

mod common;

use assert_cmd::Command;
use common::{Sandbox, read_json};
use std::io::Write;
use std::process::Stdio;

const SUBCOMMANDS: [&str; 11] =
    ["run", "report", "compare", "merge", "engines", "clean", "exec", "serve", "suggest", "completions", "man"];

fn dbrace(args: &[&str]) -> String {
    let out = Command::cargo_bin("dbrace").unwrap().args(args).assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// `program ARGS` with `input` on its stdin: (success, stdout + stderr).
fn pipe(program: &str, args: &[&str], input: &str) -> (bool, String) {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program} ({e}); install it: apt-get install man-db"));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn completions_name_every_subcommand_and_the_matrix_flags() {
    // fish spells a long option `-l engine`; bash and zsh as typed.
    for (shell, flag) in [("bash", "--"), ("zsh", "--"), ("fish", "-l "), ("elvish", "--"), ("powershell", "--")] {
        let script = dbrace(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {script}");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} misses {sub}");
        }
        for option in ["engine", "profile", "workload", "fail-if-slower"] {
            assert!(script.contains(&format!("{flag}{option}")), "{shell} misses {option}");
        }
    }
}

#[test]
fn bash_completion_parses_and_completes() {
    let script = dbrace(&["completions", "bash"]);
    let (ok, said) = pipe("bash", &["-n"], &script);
    assert!(ok, "bash -n: {said}");
    // As bash calls it: the command, the word being completed, the word before it.
    let complete = |words: &str, cword: usize, args: &str| {
        let probe = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD={cword}; _dbrace {args}; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let (ok, said) = pipe("bash", &[], &probe);
        assert!(ok, "{said}");
        said
    };
    assert_eq!(complete("dbrace run --eng", 2, "dbrace --eng run").trim(), "--engine");
    let subs = complete("dbrace com", 1, "dbrace com dbrace");
    assert_eq!(subs.split_whitespace().collect::<Vec<_>>(), ["compare", "completions"], "{subs}");
}

#[test]
fn man_page_renders_with_every_subcommand() {
    let page = dbrace(&["man"]);
    assert!(page.contains(".TH dbrace 1"), "{page}");
    for sub in SUBCOMMANDS {
        assert!(page.contains(&format!("dbrace\\-{sub}(1)")), "man page misses {sub}");
    }
    let (ok, text) = pipe("man", &["-l", "-"], &page);
    assert!(ok, "man -l: {text}");
    // Justified lines space words out as the page's other lines fall.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for section in ["NAME", "SYNOPSIS", "SUBCOMMANDS", "EXIT STATUS", "dbrace-run(1)", "Bad input"] {
        assert!(words.contains(section), "rendered page misses {section}: {text}");
    }
    assert!(!text.contains("warning"), "{text}");
}

#[test]
fn man_dir_writes_a_page_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let man1 = dir.path().join("man1");
    Command::cargo_bin("dbrace").unwrap().args(["man", "--dir"]).arg(&man1).assert().success();
    let top = std::fs::read_to_string(man1.join("dbrace.1")).unwrap();
    assert_eq!(top, dbrace(&["man"]));
    for sub in SUBCOMMANDS {
        let page = std::fs::read_to_string(man1.join(format!("dbrace-{sub}.1"))).unwrap();
        assert!(page.contains(&format!(".TH dbrace-{sub} 1")), "{page}");
    }
    let run = std::fs::read_to_string(man1.join("dbrace-run.1")).unwrap();
    for option in ["engine", "profile", "workload", "repeat"] {
        assert!(run.contains(&format!("\\-\\-{option}")), "dbrace-run.1 misses --{option}");
    }
    let (ok, text) = pipe("man", &["-l", man1.join("dbrace-run.1").to_str().unwrap()], "");
    assert!(ok && text.contains("--engine"), "{text}");
    assert_eq!(std::fs::read_dir(&man1).unwrap().count(), SUBCOMMANDS.len() + 1);
}

/// HEAD's short hash and date when this checkout is a git work tree of dbrace itself.
fn head() -> Option<(String, String)> {
    let git = |args: &[&str]| {
        let out =
            std::process::Command::new("git").arg("-C").arg(env!("CARGO_MANIFEST_DIR")).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let ours = std::fs::canonicalize(top).ok()? == std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).ok()?;
    ours.then(|| Some((git(&["rev-parse", "--short", "HEAD"])?, git(&["log", "-1", "--format=%cs", "HEAD"])?)))?
}

#[test]
fn version_names_the_commit_and_results_record_it() {
    let version = dbrace(&["--version"]);
    let expected = match head() {
        Some((hash, date)) => format!("{} ({hash} {date})", env!("CARGO_PKG_VERSION")),
        None => env!("CARGO_PKG_VERSION").to_string(),
    };
    assert_eq!(version.trim(), format!("dbrace {expected}"));

    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let args = ["run", "-q", "-e", "memory", "-T", "0.05s", "--warmup", "0s", "--repeat", "1", "--out"];
    sb.cmd(&args).arg(&out).assert().success();
    assert_eq!(read_json(&out)["dbrace_version"], expected.as_str());
}
