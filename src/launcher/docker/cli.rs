//! The `docker` command: found, its daemon answering, an image on this machine.

use crate::error::Result;
use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::sync::Mutex;

/// An image on this machine.
#[derive(Clone, Debug)]
pub struct Image {
    /// The reference it was asked for by, e.g. postgres:17.
    pub name: String,
    /// Its id (sha256:…).
    pub id: String,
}

/// Run `docker ARGS` to its end; a missing binary or a daemon that does not answer is
/// the user's to fix (exit 2), with the fix.
pub fn docker(args: &[&str]) -> Result<Output> {
    let out = Command::new("docker").args(args).output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            bad_input!("--launcher docker: docker not found; install it (apt-get install docker.io) or Docker Desktop")
        }
        _ => bad_input!("--launcher docker: cannot run docker: {e}"),
    })?;
    Ok(out)
}

/// The first line of a command's error output.
pub fn first_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").trim().to_string()
}

/// Fail unless a Docker daemon answers.
pub fn daemon() -> Result<()> {
    let out = docker(&["version", "--format", "{{.Server.Version}}"])?;
    if out.status.success() {
        return Ok(());
    }
    Err(bad_input!(
        "--launcher docker: no Docker daemon answers ({}); start it (systemctl start docker, or dockerd --bridge=none --iptables=false &)",
        first_line(&out)
    ))
}

/// `name`, the image of `engine`'s containers, as an image of this machine, or the user's
/// mistake to fix (exit 2). Asked of the daemon once per image and process.
pub fn image(engine: &str, name: &str) -> Result<Image> {
    static SEEN: Mutex<BTreeMap<String, Image>> = Mutex::new(BTreeMap::new());
    if let Some(i) = SEEN.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return Ok(i.clone());
    }
    daemon()?;
    let out = docker(&["image", "inspect", "--format", "{{.Id}}", name])?;
    if !out.status.success() {
        return Err(bad_input!(
            "image {name} is not on this machine and no registry answered; pull or build it, or pass --image {engine}=IMAGE"
        ));
    }
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let image = Image { name: name.to_string(), id };
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).insert(name.to_string(), image.clone());
    Ok(image)
}
