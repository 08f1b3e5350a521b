//! How a container's storage is laid out (`Layout`): each directory of the profile
//! mounted where the image expects it as `--docker-init` and `--docker-disk` say, with
//! where its fsync was measured; and what a container's instance records of itself.
//!
//! A directory of the profile in a container: with a template, a copy of it in a fresh
//! directory of the profile's location, bind-mounted (for ram, the ram location: a host
//! tmpfs on Linux); fresh, a tmpfs for ram and an empty directory of the disk location for
//! disk, which the image's entrypoint initializes. `--docker-disk volume` puts disk data
//! in a named volume instead, the template copied in by a one-shot container.

use crate::error::{Error, Result};
use crate::instance::DataDir;
use crate::instance::datadir::{copy_tree, private_dir};
use crate::instance::fsync_probe::FsyncProbe;
use crate::instance::user::RunAs;
use crate::launcher::Mount;
use crate::launcher::container::{Disk, Init, Network};
use crate::launcher::docker::{Image, Volume};
use crate::profile::LocationKind;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// What a container's instance records beside the settings read back: the launcher, the
/// image and its id, the storage's `facts`, and the network path: `network` (none or
/// host) and, on a socket, `transport` as the socket's path on the host (what clients
/// connect to), where a read-back says no more than "socket"; on TCP the read-back's
/// `tcp 127.0.0.1:P` stands.
pub fn noted(image: &Image, facts: Facts, network: &Network, socket_file: &str) -> BTreeMap<String, String> {
    let mut noted: BTreeMap<String, String> = facts.into_iter().collect();
    noted.insert("launcher".to_string(), "docker".to_string());
    noted.insert("image".to_string(), image.name.clone());
    noted.insert("image_id".to_string(), image.id.clone());
    noted.insert("network".to_string(), network.mode().to_string());
    if let Some(path) = network.socket(socket_file) {
        noted.insert("transport".to_string(), format!("socket {}", path.display()));
    }
    noted
}

/// What a container's start records beside the settings read back, as (key, value) pairs.
pub type Facts = Vec<(String, String)>;

/// The uid and gid a container runs as: the run-as user's, else dbrace's own.
pub fn ids(user: Option<&RunAs>) -> (u32, u32) {
    user.map_or_else(|| crate::platform::user::ids().unwrap_or((0, 0)), |u| (u.uid, u.gid))
}

/// How one container's storage is laid out, and what that is in words to record.
pub struct Layout<'a> {
    image: &'a Image,
    user: Option<&'a RunAs>,
    disk: Disk,
    /// The template laid into each directory; None: the image initializes it.
    template: Option<&'a Path>,
    /// How the data began, in words: template, fresh, or none (an image without init).
    init: &'static str,
    /// Where each mount's fsync was measured, in words.
    fsync: Vec<String>,
}

impl<'a> Layout<'a> {
    /// The storage of a container of `image` run as `user`, from `template` when given
    /// (`--docker-init template`), on the disk `machine` asks for.
    pub fn new(disk: Disk, image: &'a Image, user: Option<&'a RunAs>, template: Option<&'a Path>) -> Self {
        let init = if template.is_some() { Init::Template.name() } else { Init::Fresh.name() };
        Layout { image, user, disk, template, init, fsync: Vec::new() }
    }

    /// The storage of a container whose image initializes nothing (redis): ram is a
    /// tmpfs, disk a directory or volume, whatever `--docker-init` says.
    pub fn without_init(disk: Disk, image: &'a Image, user: Option<&'a RunAs>) -> Self {
        Layout { init: "none", ..Layout::new(disk, image, user, None) }
    }

    /// Where a directory of the profile lives in the container: `sub` of the instance
    /// directory `dir` (of the template too), at `target` inside.
    pub fn mount(&mut self, kind: LocationKind, dir: &DataDir, sub: &str, target: &str) -> Result<Mount> {
        let from = self.template.map(|t| t.join(sub));
        let mount = match (kind, self.disk, &from) {
            (LocationKind::Disk, Disk::Volume, _) => {
                let volume = Volume::create()?;
                let (uid, gid) = ids(self.user);
                let fsync = volume_fsync(&volume)?;
                volume.fill(&self.image.name, from.as_deref(), uid, gid)?;
                self.fsync.push(format!("{target} {fsync}"));
                Mount::Volume { volume: Arc::new(volume), target: target.into() }
            }
            (LocationKind::Ram, _, None) => {
                self.fsync.push(format!("{target} RAM (tmpfs)"));
                Mount::Tmpfs { target: target.into(), bytes: crate::launcher::container::default_tmpfs_bytes() }
            }
            (kind, _, from) => {
                let source = dir.path().join(sub);
                match from {
                    Some(from) => copy_tree(from, &source)?,
                    None => drop(private_dir(&source, self.user)?),
                }
                self.fsync.push(match kind {
                    LocationKind::Ram => {
                        format!("{target} RAM ({} of the ram location)", crate::instance::location::fs_type(&source))
                    }
                    LocationKind::Disk => format!("{target} disk location (probed at the start: see locations)"),
                });
                Mount::Bind { source, target: target.into() }
            }
        };
        Ok(mount)
    }

    /// What the run records of this storage beside the settings read back: the mounts,
    /// where fsync was measured, how the data began and where the disk data lives.
    pub fn facts(&self, mounts: &[Mount]) -> Facts {
        let mut facts = vec![
            ("mounts".to_string(), described(mounts)),
            ("fsync_probe".to_string(), self.fsync.join("; ")),
            ("docker_init".to_string(), self.init.to_string()),
            ("docker_disk".to_string(), self.disk.name().to_string()),
        ];
        if let Some(t) = self.template {
            facts.push(("template".to_string(), t.display().to_string()));
        }
        facts
    }
}

/// The fsync latency of a volume's filesystem, in words: probed in its host directory
/// once per run and filesystem (all of a daemon's local volumes share one), or why not.
fn volume_fsync(volume: &Volume) -> Result<String> {
    static PROBED: Mutex<BTreeMap<u64, FsyncProbe>> = Mutex::new(BTreeMap::new());
    let name = volume.name();
    let Some(dir) = volume.host_dir() else {
        return Ok(format!("volume {name}: not measured (its files are not in a directory this host can read)"));
    };
    let dev = std::fs::metadata(&dir).map(|m| crate::platform::files::device(&m)).unwrap_or(0);
    let known = PROBED.lock().unwrap_or_else(|p| p.into_inner()).get(&dev).cloned();
    let probe = match known {
        Some(p) => p,
        None => match crate::instance::fsync_probe::probe(&dir) {
            Ok(p) => {
                PROBED.lock().unwrap_or_else(|p| p.into_inner()).insert(dev, p.clone());
                p
            }
            Err(Error::Run(why)) => return Ok(format!("volume {name}: not measured ({why})")),
            Err(e) => return Err(e),
        },
    };
    Ok(format!(
        "volume {name}: fdatasync median {:.3} ms, max {:.3} ms, {} ops (probed once per run on {})",
        probe.median_us / 1000.0,
        probe.max_us / 1000.0,
        probe.ops,
        crate::instance::location::fs_type(&dir)
    ))
}

/// The mounts in words, to record: "/data tmpfs 512 MiB, /etc/x ext4 bind /var/tmp/…,
/// /v volume dbrace-1-v1" (a bind with its host directory's filesystem).
fn described(mounts: &[Mount]) -> String {
    let one = |m: &Mount| match m {
        Mount::Tmpfs { target, bytes } => format!("{target} tmpfs {} MiB", bytes >> 20),
        Mount::Bind { source, target } => {
            format!("{target} {} bind {}", crate::instance::location::fs_type(source), source.display())
        }
        Mount::Volume { volume, target } => format!("{target} volume {}", volume.name()),
    };
    mounts.iter().map(one).collect::<Vec<_>>().join(", ")
}
