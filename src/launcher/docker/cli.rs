//! The `docker` command: found, its daemon answering and its version, an image on this
//! machine with its id, tags and size.

use crate::error::Result;
use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a question to the daemon may go unanswered: a socket that accepts and then
/// says nothing must not hang dbrace.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// What to do when there is no `docker` command.
const NOT_FOUND: &str = "docker not found; install it (apt-get install docker.io) or Docker Desktop";

/// An image on this machine.
#[derive(Clone, Debug)]
pub struct Image {
    /// The reference it was asked for by, e.g. postgres:17.
    pub name: String,
    /// Its id (sha256:…).
    pub id: String,
    /// Every name:tag it goes by here.
    pub tags: Vec<String>,
    /// Its size in bytes, as `docker images` counts it.
    pub size: u64,
}

/// The versions of the docker client and of the daemon that answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versions {
    /// The `docker` command's version.
    pub client: String,
    /// The daemon's version.
    pub server: String,
    /// What the daemon runs in, when it says (e.g. "Docker Desktop 4.37.1 (178610)").
    pub platform: String,
}

/// Run `docker ARGS` to its end; a missing binary or a daemon that does not answer is
/// the user's to fix (exit 2), with the fix.
pub fn docker(args: &[&str]) -> Result<Output> {
    Command::new("docker").args(args).output().map_err(spawn_error)
}

/// A `docker` that could not be started, as the user's to fix.
fn spawn_error(e: std::io::Error) -> crate::error::Error {
    bad_input!("--launcher docker: {}", not_started(&e))
}

/// Why `docker` could not be started, and the fix.
fn not_started(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => NOT_FOUND.to_string(),
        _ => format!("cannot run docker: {e}"),
    }
}

/// `docker ARGS` for a question to the daemon: as `docker`, but given up after
/// `ANSWER_WITHIN` (killed, and the answer is an error saying so).
fn ask(args: &[&str]) -> std::io::Result<Output> {
    let mut child =
        Command::new("docker").args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    // Read both pipes while waiting, so a long answer cannot block the command on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < ANSWER_WITHIN => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            _ => break None,
        }
    };
    let status = match status {
        Some(s) => s,
        None => {
            let _ = child.kill();
            child.wait()?
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let mut stderr = stderr.join().unwrap_or_default();
    if !status.success() && start.elapsed() >= ANSWER_WITHIN {
        stderr = format!("docker {}: no answer within {} s", args[0], ANSWER_WITHIN.as_secs()).into_bytes();
    }
    Ok(Output { status, stdout, stderr })
}

/// The first line of a command's error output.
pub fn first_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").trim().to_string()
}

/// The client's and the daemon's versions, or why there is no daemon to ask, in one line
/// with the fix (the command's own words, without run's `--launcher docker:`).
pub fn versions() -> std::result::Result<Versions, String> {
    let out = ask(&["version", "--format", "{{json .}}"]).map_err(|e| not_started(&e))?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let (client, server) = (text(&v["Client"]["Version"]), text(&v["Server"]["Version"]));
    if out.status.success() && !server.is_empty() {
        return Ok(Versions { client, server, platform: text(&v["Server"]["Platform"]["Name"]) });
    }
    let why = first_line(&out);
    let fix = if why.to_lowercase().contains("permission denied") {
        "join the docker group (usermod -aG docker $USER, then log in again) or run as root".to_string()
    } else {
        let elsewhere = std::env::var("DOCKER_HOST")
            .map_or(String::new(), |h| format!(", or point DOCKER_HOST (now {h}) at one that runs"));
        format!(
            "start it (systemctl start docker, or dockerd --bridge=none --iptables=false --ip6tables=false &){elsewhere}"
        )
    };
    Err(format!("no Docker daemon answers ({why}); {fix}"))
}

/// Fail unless a Docker daemon answers.
pub fn daemon() -> Result<()> {
    versions().map(drop).map_err(|why| bad_input!("--launcher docker: {why}"))
}

/// Fail unless the daemon has its default bridge network, which a published port needs
/// (a daemon started with `--bridge=none` runs such a container with no network at all).
/// Asked once per process.
pub fn bridge() -> Result<()> {
    static ANSWER: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    let answer = ANSWER.get_or_init(|| {
        let out = ask(&["network", "inspect", "--format", "{{.Driver}}", "bridge"]).map_err(|e| not_started(&e))?;
        if out.status.success() {
            return Ok(());
        }
        Err(format!(
            "the Docker daemon has no bridge network ({}), which a published port needs; use --docker-network host, or a daemon with its default bridge",
            first_line(&out)
        ))
    });
    answer.clone().map_err(|why| bad_input!("--docker-network publish: {why}"))
}

/// The image `name` as this machine has it, or `None` when it has no such image.
pub fn inspect(name: &str) -> Result<Option<Image>> {
    let out = ask(&["image", "inspect", name]).map_err(spawn_error)?;
    if !out.status.success() {
        let why = first_line(&out);
        if why.to_lowercase().contains("no such image") {
            return Ok(None);
        }
        return Err(bad_input!("docker image inspect {name}: {why}"));
    }
    let parsed: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| failed!("docker image inspect {name} printed what is not JSON: {e}"))?;
    let i = &parsed[0];
    let Some(id) = i["Id"].as_str() else {
        return Err(failed!("docker image inspect {name} printed no image id"));
    };
    let tags = i["RepoTags"].as_array().into_iter().flatten().filter_map(|t| t.as_str().map(str::to_string));
    Ok(Some(Image {
        name: name.to_string(),
        id: id.to_string(),
        tags: tags.collect(),
        size: i["Size"].as_u64().unwrap_or(0),
    }))
}

/// How to bring the image `name` onto this machine, in one line.
pub fn fetch_hint(name: &str) -> String {
    format!("docker pull {name}, or docker load -i FILE")
}

/// `name`, the image of `engine`'s containers, as an image of this machine, or the user's
/// mistake to fix (exit 2). Asked of the daemon once per image and process.
pub fn image(engine: &str, name: &str) -> Result<Image> {
    static SEEN: Mutex<BTreeMap<String, Image>> = Mutex::new(BTreeMap::new());
    if let Some(i) = SEEN.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return Ok(i.clone());
    }
    daemon()?;
    let Some(image) = inspect(name)? else {
        return Err(bad_input!(
            "image {name} is not on this machine (dbrace never pulls); {}; or pass --image {engine}=IMAGE",
            fetch_hint(name)
        ));
    };
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).insert(name.to_string(), image.clone());
    Ok(image)
}
