//! Bad input: one line naming the problem and the fix, exit code 2, no panic.

mod common;

use common::Sandbox;

/// Run dbrace with `args`, expect exit 2 and a single stderr line containing every `needles`.
fn refused(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let out = sb.cmd(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
}

#[test]
fn unknown_names_list_the_valid_ones() {
    let sb = Sandbox::new();
    refused(&sb, &["run", "--engine", "oracle"], &["unknown engine 'oracle'", "sqlite, memory"]);
    refused(&sb, &["run", "--profile", "fast"], &["unknown profile 'fast'", "ram-nosync"]);
    refused(&sb, &["run", "--workload", "tpcd"], &["unknown workload 'tpcd'", "insert-commit, tpcb"]);
    refused(
        &sb,
        &["run", "--engine", "memory", "--workload", "tpcb"],
        &["tpcb cannot run on memory", "engines that can: sqlite"],
    );
    refused(&sb, &["run", "--baseline", "ram-nosync"], &["baseline 'ram-nosync'", "sqlite:disk"]);
    refused(&sb, &["run", "--bogus"], &["unexpected argument '--bogus'"]);
}

#[test]
fn counts_and_durations_must_be_positive() {
    let sb = Sandbox::new();
    refused(&sb, &["run", "--clients", "0"], &["clients must be at least 1"]);
    refused(&sb, &["run", "--clients", "-1"], &["clients"]);
    refused(&sb, &["run", "--clients", "two"], &["whole number"]);
    refused(&sb, &["run", "--duration", "0"], &["greater than zero"]);
    refused(&sb, &["run", "--duration", "-5s"], &["must not be negative"]);
    refused(&sb, &["run", "--duration", "5 parsecs"], &["unknown unit"]);
    refused(&sb, &["run", "--transactions", "0"], &["transactions must be at least 1"]);
    refused(&sb, &["run", "--repeat", "0"], &["repeat must be at least 1"]);
    refused(&sb, &["run", "--repeat", "5000"], &["repeat must be at most 1000"]);
    refused(&sb, &["run", "--confidence", "0"], &["confidence '0' must be above 0% and below 100%"]);
    refused(&sb, &["run", "--confidence", "100%"], &["below 100%"]);
    refused(&sb, &["run", "--confidence", "-5%"], &["above 0%"]);
    refused(&sb, &["report", "r.json", "--confidence", "sure"], &["not a confidence level", "95%"]);
    refused(&sb, &["compare", "a.json", "b.json", "--confidence", "150"], &["below 100%"]);
    refused(&sb, &["exec", "--confidence", "high", "--", "true"], &["not a confidence level"]);
    refused(&sb, &["run", "--duration", "100000000000000000000"], &["longer than a week"]);
    refused(&sb, &["run", "--warmup", "10000000000000000000"], &["longer than a week"]);
    refused(&sb, &["run", "--rows-per-commit", "0"], &["rows-per-commit must be at least 1 (got 0)"]);
    refused(&sb, &["run", "--rows-per-commit", "ten"], &["rows-per-commit must be a whole number", "'ten'"]);
    refused(&sb, &["run", "--rows-per-commit", "20000"], &["rows-per-commit must be at most 10000"]);
    refused(&sb, &["run", "--sweep", "rows-per-commit=1,0"], &["--sweep rows-per-commit=1,0", "at least 1 (got 0)"]);
    refused(&sb, &["run", "--sweep", "rows-per-commit=10,x"], &["--sweep rows-per-commit=10,x", "whole number"]);
}

#[test]
fn a_budget_must_hold_a_round_and_stand_alone() {
    let sb = Sandbox::new();
    let pg = ["run", "-e", "postgres", "-p", "disk,ram"];
    refused(&sb, &[&pg[..], &["--budget", "0"]].concat(), &["greater than zero"]);
    refused(&sb, &[&pg[..], &["--budget", "-5s"]].concat(), &["must not be negative"]);
    refused(&sb, &[&pg[..], &["--budget", "100000000000000000000"]].concat(), &["longer than a week"]);
    refused(&sb, &[&pg[..], &["--budget", "soon"]].concat(), &["not a duration"]);
    refused(
        &sb,
        &[&pg[..], &["--budget", "500ms"]].concat(),
        &["--budget 500ms cannot hold one round of these 2 cells", "--budget 2.0 s or more"],
    );
    refused(
        &sb,
        &[&pg[..], &["--budget", "1m", "--repeat", "3"]].concat(),
        &["--budget 1m and --repeat 3", "drop one"],
    );
    refused(&sb, &[&pg[..], &["--budget", "1m", "--precision", "5%"]].concat(), &["--budget 1m and --precision"]);
    refused(&sb, &["exec", "--budget", "1m", "--repeat", "3", "--", "true"], &["--repeat 3 and --budget 1m"]);
    refused(&sb, &["exec", "--max-repeat", "0", "--", "true"], &["at least 1"]);
    // Refused before any server started.
    assert!(sb.no_servers(&["postgres"]), "a refused budget starts no server");
}

#[test]
fn settings_must_be_known_and_well_formed() {
    let sb = Sandbox::new();
    refused(&sb, &["run", "--set", "bogus_knob=1"], &["unknown setting 'bogus_knob'"]);
    refused(&sb, &["run", "--set", "cache_size"], &["not KEY=VALUE"]);
    refused(
        &sb,
        &["run", "--engine", "sqlite", "--set", "memory.cache_size=1"],
        &["engine 'memory' is not in this run"],
    );
}

#[test]
fn locations_must_be_what_they_claim_and_writable() {
    let sb = Sandbox::new();
    let ram = sb.ram.path().to_str().unwrap().to_string();
    let disk = sb.disk.path().to_str().unwrap().to_string();
    // The sandbox adds its own --disk-dir/--ram-dir after these; clap keeps the last, so
    // build the command by hand for location tests.
    let run = |disk_dir: &str, ram_dir: &str, needles: &[&str]| {
        let mut c = assert_cmd::Command::cargo_bin("dbrace").unwrap();
        c.env("XDG_CACHE_HOME", sb.cache.path()).args(["run", "-q", "--disk-dir", disk_dir, "--ram-dir", ram_dir]);
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        for n in needles {
            assert!(err.contains(n), "expected '{n}' in: {err}");
        }
    };
    run(&ram, &ram, &["disk location", "tmpfs", "--disk-dir"]);
    run(&disk, &disk, &["ram location", "not tmpfs", "--ram-dir"]);
    run("/nonexistent/dbrace", &ram, &["not an existing directory", "--disk-dir"]);
    run(&disk, "/dev/shm/nonexistent-dbrace-dir", &["not an existing directory", "--ram-dir"]);
    // sysfs refuses new files even to root: an unwritable directory anyone can name.
    run("/sys/fs", &ram, &["cannot write to the disk location /sys/fs", "writable directory"]);
}

#[test]
fn outputs_and_space_are_checked_before_measuring() {
    let sb = Sandbox::new();
    refused(&sb, &["run", "--out", "/nonexistent/dir/r.json"], &["does not exist", "--out"]);
    refused(&sb, &["run", "--out", sb.cache.path().to_str().unwrap()], &["is a directory"]);
    refused(
        &sb,
        &["run", "-e", "sqlite", "-p", "ram", "-w", "tpcb", "--scale", "100000"],
        &["tpcb with --scale 100000 needs about", "smaller data set"],
    );
}

#[test]
fn report_refuses_what_is_not_a_results_file() {
    let sb = Sandbox::new();
    let bad = sb.out("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    refused(&sb, &["report", bad.to_str().unwrap()], &["not a dbrace results file", "invalid JSON"]);
    std::fs::write(&bad, r#"{"hello": 1}"#).unwrap();
    refused(&sb, &["report", bad.to_str().unwrap()], &["no schema field"]);
    std::fs::write(&bad, r#"{"schema": 99}"#).unwrap();
    refused(&sb, &["report", bad.to_str().unwrap()], &["schema 99", "reads schema 1"]);
    std::fs::write(&bad, r#"{"schema": 1, "cells": 3}"#).unwrap();
    refused(&sb, &["report", bad.to_str().unwrap()], &["not a valid dbrace results file"]);
    refused(&sb, &["report", sb.out("missing.json").to_str().unwrap()], &["cannot read results file"]);
    // A real results file, but a baseline it does not have.
    let good = sb.out("good.json");
    sb.cmd(&["run", "-q", "-e", "memory", "-T", "0.05s", "--warmup", "0s", "-r", "1", "-o", good.to_str().unwrap()])
        .assert()
        .success();
    refused(&sb, &["report", good.to_str().unwrap(), "--baseline", "bogus"], &["baseline 'bogus'", "memory:unlogged"]);
}

#[test]
fn a_run_with_url_measures_only_the_engines_its_urls_name() {
    let sb = Sandbox::new();
    let pg = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";
    let my = "mysql://dbrace_test:not-a-real-secret@127.0.0.1:3306/";
    refused(
        &sb,
        &["run", "--engine", "mysql", "--url", pg],
        &["--engine mysql has no --url", "(postgres)", "add a mysql://… --url for it, or leave it out of --engine"],
    );
    refused(&sb, &["run", "-e", "postgres,sqlite", "--url", pg], &["--engine sqlite has no --url", "takes no --url"]);
    refused(
        &sb,
        &["run", "-e", "postgres", "--url", pg, "--url", my],
        &["--url is for mysql, which --engine leaves out", "add --engine mysql, or leave out --engine"],
    );
    refused(&sb, &["run", "--url", pg, "--url", "postgresql://u@h/d"], &["two --url values for postgres"]);
    // A named profile a --url cannot apply is still an error, with the reason.
    refused(&sb, &["run", "--url", pg, "-p", "ram"], &["profile 'ram'", "against --url only disk, async and unlogged"]);
    let out = sb.cmd(&["run", "-e", "mysql", "--url", pg]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not-a-real-secret"));
    // The same in a config file: its keys are the command line's.
    let cfg = sb.out("url.toml");
    std::fs::write(&cfg, format!("engine = \"mysql\"\nurl = [\"{pg}\"]\n")).unwrap();
    refused(&sb, &["run", "--config", cfg.to_str().unwrap()], &["--engine mysql has no --url"]);
    std::fs::write(&cfg, format!("url = [\"{pg}\", \"{my}\"]\n")).unwrap();
    let out = sb.cmd(&["run", "--config", cfg.to_str().unwrap(), "--dry-run"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cells: Vec<&str> =
        text.lines().filter_map(|l| l.split_whitespace().next()).filter(|w| w.contains('/')).collect();
    assert_eq!(
        cells,
        [
            "postgres/disk/insert-commit/c1",
            "postgres/async/insert-commit/c1",
            "postgres/unlogged/insert-commit/c1",
            "mysql/disk/insert-commit/c1",
            "mysql/unlogged/insert-commit/c1"
        ],
        "{text}"
    );
}
