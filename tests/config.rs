//! `--config bench.toml`, `--dry-run` and sweeps over clients and scale, through the real
//! binary and real SQLite (and PostgreSQL for a dry run that must start nothing).

mod common;

use common::{QUICK, Sandbox, read_json};

#[test]
fn a_config_file_describes_the_matrix_and_the_command_line_wins() {
    let sb = Sandbox::new();
    let cfg = sb.out("bench.toml");
    std::fs::write(
        &cfg,
        "engine = [\"sqlite\"]\nprofile = [\"ram\", \"nosync\"]\nworkload = \"tpcb\"\nrepeat = 3\n\
         [sweep]\nclients = [1, 2]\n",
    )
    .unwrap();
    let (out, svg) = (sb.out("r.json"), sb.out("sweep.svg"));
    let mut args = vec!["run", "--config", cfg.to_str().unwrap(), "--repeat", "1", "--out", out.to_str().unwrap()];
    args.extend(["--plot", svg.to_str().unwrap(), "--chart", "sweep"]);
    args.extend(QUICK);
    let o = sb.cmd(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    let ids: Vec<&str> = r["cells"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["sqlite/ram/tpcb/c1", "sqlite/nosync/tpcb/c1", "sqlite/ram/tpcb/c2", "sqlite/nosync/tpcb/c2"]);
    for c in r["cells"].as_array().unwrap() {
        assert_eq!(c["repeats"].as_array().unwrap().len(), 1, "--repeat 1 on the command line wins over the file");
    }
    // The sweep chart draws each profile as a line over the client counts.
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("Sweep of clients"), "{svg}");
    // (The panel of what the sweep changed, from the counters, follows it.)
    let sweep = svg.split(r#"data-chart="sweep""#).nth(1).and_then(|s| s.split("</svg>").next()).unwrap();
    assert_eq!(sweep.matches("<polyline").count(), 2, "one line per profile");
}

#[test]
fn a_scale_sweep_loads_each_size() {
    let sb = Sandbox::new();
    let out = sb.out("r.json");
    let mut args = vec!["run", "-e", "sqlite", "-p", "ram", "-w", "select-only", "--sweep", "scale=1,2", "-r", "1"];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(QUICK);
    let o = sb.cmd(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    let ids: Vec<&str> = cells.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["sqlite/ram+scale=1/select-only/c1", "sqlite/ram+scale=2/select-only/c1"]);
    // tpcb's verify counts the accounts loaded: 100,000 per scale unit.
    for (c, accounts) in cells.iter().zip(["100000", "200000"]) {
        let detail = c["repeats"][0]["verify"]["detail"].as_str().unwrap();
        assert!(detail.contains(accounts), "{detail}");
    }
}

#[test]
fn a_dry_run_lists_cells_and_starts_nothing() {
    let sb = Sandbox::new();
    let out = sb.out("never.json");
    let args = ["run", "-e", "sqlite,postgres", "-p", "disk,ram", "-w", "tpcb", "--sweep", "clients=1,4", "-T", "5s"];
    let o = sb.cmd(&[&args[..], &["--dry-run", "--out", out.to_str().unwrap()]].concat()).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.starts_with("would measure 8 cells in rounds, a round ≈ "), "{text}");
    assert!(
        text.contains("until every cell's comparison with its baseline is settled or --budget 50.0 s is spent"),
        "{text}"
    );
    assert!(text.contains("postgres/ram/tpcb/c4"), "{text}");
    assert!(!out.exists(), "a dry run writes no results");
    assert!(sb.no_servers(&["postgres"]), "a dry run starts no server");
    // What it prints as a config file runs the same matrix.
    let cfg = sb.out("again.toml");
    std::fs::write(&cfg, text.split_once("as a --config file:\n").unwrap().1).unwrap();
    let again = sb.cmd(&["run", "--config", cfg.to_str().unwrap(), "--dry-run"]).output().unwrap();
    let again = String::from_utf8_lossy(&again.stdout);
    let cells = |t: &str| t.lines().take_while(|l| !l.is_empty()).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(cells(&again), cells(&text));
}

#[test]
fn a_bad_config_names_the_file_and_line() {
    let sb = Sandbox::new();
    let cfg = sb.out("bad.toml");
    for (text, needle) in [
        ("engine = \"sqlite\"\nrepets = 3\n", "bad.toml:2: unknown key 'repets'"),
        ("engine = \"sqlite\"\n\nscale = 0\n", "bad.toml:3: "),
        ("engine = [\"sqlite\"\n", "bad.toml:"),
    ] {
        std::fs::write(&cfg, text).unwrap();
        let o = sb.cmd(&["run", "--config", cfg.to_str().unwrap()]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.starts_with("dbrace: ") && err.contains(needle) && err.trim_end().lines().count() == 1, "{err}");
    }
    let o = sb.cmd(&["run", "--config", "/nonexistent/bench.toml"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}
