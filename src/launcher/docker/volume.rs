//! Named volumes for `--docker-disk volume`: one per directory of an instance, on the
//! daemon's own disk (on Docker Desktop, the VM's), labelled with their owner so the
//! reaper knows those of dead runs, and removed when dropped. A one-shot container lays
//! the template in and gives the volume to the server's user: the host may not reach a
//! volume's files at all (Docker Desktop keeps them in its VM), a container always can.

use super::cli::{docker, first_line};
use crate::error::Result;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// Where the one-shot container sees the volume and the template.
const AT: &str = "/dbrace-volume";
const FROM: &str = "/dbrace-template";

/// A named volume of ours, removed when dropped.
#[derive(Debug)]
pub struct Volume {
    name: String,
}

impl Volume {
    /// Create a volume named as containers are, labelled with this process as its owner.
    pub fn create() -> Result<Volume> {
        let name = format!("dbrace-{}-v{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let label =
            format!("{}={}", super::name::OWNER_LABEL, crate::instance::datadir::owner_line(std::process::id()));
        let out = docker(&["volume", "create", "--label", &label, &name])?;
        if !out.status.success() {
            return Err(failed!("cannot create docker volume {name}: {}", first_line(&out)));
        }
        Ok(Volume { name })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The directory that holds its files on this host, when this process can read it
    /// there (Linux's local driver as root: /var/lib/docker/volumes/NAME/_data); None on
    /// Docker Desktop, whose volumes live in its VM, or for a user the directory is closed to.
    pub fn host_dir(&self) -> Option<PathBuf> {
        let out = docker(&["volume", "inspect", "--format", "{{.Mountpoint}}", &self.name]).ok()?;
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        (out.status.success() && path.is_absolute() && std::fs::read_dir(&path).is_ok()).then_some(path)
    }

    /// Fill the volume with a copy of the directory `from` (None: leave it empty) and
    /// give its root to `uid:gid`, mode 0700, in a one-shot container of `image` run as
    /// root without a network (the images of the official contract all have sh and cp).
    pub fn fill(&self, image: &str, from: Option<&Path>, uid: u32, gid: u32) -> Result<()> {
        let name = super::name::next_name();
        let label =
            format!("{}={}", super::name::OWNER_LABEL, crate::instance::datadir::owner_line(std::process::id()));
        let mut a: Vec<OsString> =
            ["run", "--rm", "--network", "none", "--user", "0:0", "--name", &name, "--label", &label]
                .iter()
                .map(OsString::from)
                .collect();
        a.push("--mount".into());
        // Not the image's files at that path either: the volume holds what we put in it.
        a.push(format!("type=volume,source={},target={AT},volume-nocopy", self.name).into());
        if let Some(from) = from {
            let mut m = OsString::from("type=bind,readonly,source=");
            m.push(from);
            m.push(format!(",target={FROM}"));
            a.push("--mount".into());
            a.push(m);
        }
        a.extend(["--entrypoint", "sh", image, "-c"].map(OsString::from));
        // The paths and the owner are the script's arguments, never spliced into it.
        a.push(r#"set -e; if [ -n "$1" ]; then cp -a "$1/." "$2/"; fi; chown "$3" "$2"; chmod 0700 "$2""#.into());
        a.push("sh".into());
        a.push(if from.is_some() { FROM } else { "" }.into());
        a.push(AT.into());
        a.push(format!("{uid}:{gid}").into());
        let out = std::process::Command::new("docker")
            .args(&a)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| bad_input!("--launcher docker: cannot run docker: {e}"))?;
        crate::signals::check()?;
        if !out.status.success() {
            return Err(failed!(
                "cannot fill docker volume {} in a container of {image}: {}",
                self.name,
                first_line(&out)
            ));
        }
        Ok(())
    }
}

impl Drop for Volume {
    fn drop(&mut self) {
        let _ = docker(&["volume", "rm", "-f", &self.name]);
    }
}
