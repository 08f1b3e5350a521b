//! A Compose file means what Compose says it means. For every project of
//! tests/compose_corpus/ (written in the shapes public projects use), Debian's
//! `docker-compose config` and dbrace's reading of the database service must agree on
//! its image, environment, command, published ports, tmpfs mounts, volumes and the
//! resources its container gets; a project Compose rejects (`bad-*`), dbrace rejects in
//! one line with exit 2. A project of several files lists them, in order, in `files`.

use dbrace::compose::{chosen, project, service::Service};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_serde::Value;

/// What both readings are compared on.
#[derive(Debug, PartialEq)]
struct View {
    image: Option<String>,
    environment: BTreeMap<String, String>,
    command: Option<Vec<String>>,
    /// (host address, published port, container port)
    ports: Vec<(Option<String>, Option<u16>, u16)>,
    tmpfs: Vec<String>,
    /// (source, target), a bind's source as an absolute path
    volumes: Vec<(Option<String>, String)>,
    resources: Vec<String>,
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compose_corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    cases
}

fn files(case: &Path) -> Vec<PathBuf> {
    let listed = std::fs::read_to_string(case.join("files")).unwrap_or_else(|_| "docker-compose.yml".into());
    listed.lines().map(|f| case.join(f.trim())).collect()
}

/// `docker-compose config` of the case, in a clean environment: the normalized project.
fn compose_config(case: &Path) -> Result<Value, String> {
    let mut cmd = Command::new("docker-compose");
    for f in files(case) {
        cmd.arg("-f").arg(f);
    }
    let out = cmd
        .arg("config")
        .current_dir(case)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output()
        .expect("docker-compose (apt-get install docker-compose; scripts/test installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    match out.status.success() {
        true => Ok(yaml_serde::from_str(&text).unwrap()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// `[[IP:]PUBLISHED:]TARGET[/PROTO]` or the long form; a published range as its first port.
fn compose_port(p: &Value) -> (Option<String>, Option<u16>, u16) {
    let first = |s: &str| s.split('-').next().unwrap().parse::<u16>().unwrap();
    if p.is_mapping() {
        let published = p.get("published").map(text).filter(|s| !s.is_empty());
        return (p.get("host_ip").map(text), published.as_deref().map(first), first(&text(&p["target"])));
    }
    let s = text(p);
    let s = s.split('/').next().unwrap();
    let parts: Vec<&str> = s.rsplitn(3, ':').collect();
    match parts.as_slice() {
        [t] => (None, None, first(t)),
        [t, h] => (None, Some(first(h)), first(t)),
        [t, h, ip] => (Some(ip.to_string()), Some(first(h)), first(t)),
        _ => unreachable!(),
    }
}

/// The service as `docker-compose config` has it.
fn compose_view(s: &Value) -> View {
    let strings = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::Sequence(l)) => l.iter().map(text).collect(),
            Some(x) => vec![text(x)],
            None => Vec::new(),
        }
    };
    let mut tmpfs: Vec<String> = strings(s.get("tmpfs")).iter().map(|t| t.split(':').next().unwrap().into()).collect();
    let mut volumes = Vec::new();
    for v in s.get("volumes").and_then(Value::as_sequence).into_iter().flatten() {
        match v.get("type").map(text).as_deref() {
            Some("tmpfs") => tmpfs.push(text(&v["target"])),
            Some(_) => volumes.push((v.get("source").map(text), text(&v["target"]))),
            None => {
                let t = text(v);
                let parts: Vec<&str> = t.split(':').collect();
                volumes.push(match parts.as_slice() {
                    [target] => (None, target.to_string()),
                    [source, target, ..] => (Some(source.to_string()), target.to_string()),
                    [] => unreachable!(),
                });
            }
        }
    }
    let command = s.get("command").map(|c| match c {
        Value::Sequence(_) => strings(Some(c)),
        other => shell_words::split(&text(other)).unwrap(),
    });
    let environment = s.get("environment").and_then(Value::as_mapping).into_iter().flatten();
    View {
        image: s.get("image").map(text),
        environment: environment.map(|(k, v)| (text(k), text(v))).collect(),
        command,
        ports: s.get("ports").and_then(Value::as_sequence).into_iter().flatten().map(compose_port).collect(),
        tmpfs,
        volumes,
        resources: compose_resources(s),
    }
}

/// The flags of the resources Compose gives the container.
fn compose_resources(s: &Value) -> Vec<String> {
    let mut f = Vec::new();
    let mut flag = |n: &str, v: String| f.extend([n.to_string(), v]);
    if let Some(v) = s.get("shm_size") {
        flag("--shm-size", text(v));
    }
    for (name, l) in s.get("ulimits").and_then(Value::as_mapping).into_iter().flatten() {
        let limit = match l.is_mapping() {
            true => format!("{}:{}", text(&l["soft"]), text(&l["hard"])),
            false => text(l),
        };
        flag("--ulimit", format!("{}={limit}", text(name)));
    }
    let limits = s.get("deploy").and_then(|d| d.get("resources")).and_then(|r| r.get("limits"));
    if let Some(c) = limits.and_then(|l| l.get("cpus")).or(s.get("cpus")) {
        flag("--cpus", text(c));
    }
    if let Some(m) = limits.and_then(|l| l.get("memory")).or(s.get("mem_limit")) {
        flag("--memory", text(m));
    }
    f
}

/// The service as dbrace reads it, a bind's source made absolute as Compose makes it.
fn dbrace_view(s: &Service, dir: &Path) -> View {
    let absolute = |src: &str| dir.join(src.trim_start_matches("./")).display().to_string();
    View {
        image: s.image.clone(),
        environment: s.environment.clone(),
        command: s.command.clone(),
        ports: s.ports.iter().map(|p| (p.host_ip.clone(), p.published, p.target)).collect(),
        tmpfs: s.tmpfs.clone(),
        volumes: s
            .volumes
            .iter()
            .map(|v| {
                (v.source.as_deref().map(|src| if v.is_bind() { absolute(src) } else { src.into() }), v.target.clone())
            })
            .collect(),
        resources: s.resources.flags(),
    }
}

/// dbrace's reading of a case: the database service it chooses, or the error it gives.
fn dbrace_reading(case: &Path) -> Result<Service, dbrace::error::Error> {
    let p = project::load(&files(case))?;
    let c = chosen::choose(&p, None, None)?;
    Ok(p.services[&c.service].clone())
}

#[test]
fn dbrace_reads_every_corpus_file_as_docker_compose_config_does() {
    let (mut agreed, mut disagreed) = (0, Vec::new());
    for case in corpus() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let compose = compose_config(&case);
        let ours = dbrace_reading(&case);
        if name.starts_with("bad-") {
            let theirs = compose.expect_err(&format!("{name}: docker-compose took it"));
            let e = ours.expect_err(&format!("{name}: dbrace took what docker-compose refused: {theirs}"));
            assert_eq!(e.exit_code(), 2, "{name}: {e}");
            assert!(!e.to_string().contains('\n'), "{name}: not one line: {e}");
            agreed += 1;
            continue;
        }
        let config = compose.unwrap_or_else(|e| panic!("{name}: docker-compose refused it: {e}"));
        let ours = ours.unwrap_or_else(|e| panic!("{name}: dbrace refused it: {e}"));
        let theirs = compose_view(&config["services"][ours.name.as_str()]);
        let mine = dbrace_view(&ours, &case);
        if mine == theirs {
            agreed += 1;
        } else {
            disagreed.push(format!("{name}:\n  docker-compose {theirs:?}\n  dbrace         {mine:?}"));
        }
    }
    eprintln!(
        "compose corpus: {agreed} of {} projects read as docker-compose config reads them",
        agreed + disagreed.len()
    );
    assert!(agreed + disagreed.len() >= 25, "the corpus holds at least 25 projects");
    assert!(disagreed.is_empty(), "{} agree, these do not:\n{}", agreed, disagreed.join("\n"));
}

/// The binary says a rejected file in one line and exits 2, before anything starts.
#[test]
fn a_file_compose_rejects_is_one_line_and_exit_2() {
    let case = corpus().into_iter().find(|c| c.ends_with("bad-03-unknown-service-key")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dbrace"))
        .args(["exec", "--compose"])
        .arg(case.join("docker-compose.yml"))
        .args(["--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("services.db.imagee"), "{err}");
}
