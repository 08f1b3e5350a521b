//! Containers and volumes that dead dbrace processes left (a SIGKILL leaves its container
//! running and its volumes in place), known by their owner label: the containers removed
//! with their anonymous volumes first, then the named volumes they no longer use.

use super::cli::docker;

/// What one reaping removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reaped {
    /// Containers removed.
    pub containers: usize,
    /// Named volumes removed.
    pub volumes: usize,
}

impl Reaped {
    /// Whether nothing was removed.
    pub fn is_empty(self) -> bool {
        self.containers == 0 && self.volumes == 0
    }

    /// "2 containers and 1 volume", naming only what there was.
    pub fn described(self) -> String {
        let n = |k: usize, one: &str| format!("{k} {one}{}", if k == 1 { "" } else { "s" });
        match (self.containers, self.volumes) {
            (c, 0) => n(c, "container"),
            (0, v) => n(v, "volume"),
            (c, v) => format!("{} and {}", n(c, "container"), n(v, "volume")),
        }
    }
}

/// Remove the containers, then the volumes, whose owner is gone. Nothing when docker is
/// missing or its daemon does not answer: then there is nothing of ours to remove either.
pub fn reap() -> Reaped {
    let containers = remove(&["ps", "-a"], "{{.ID}}", &["rm", "-f", "-v"]);
    let volumes = remove(&["volume", "ls"], "{{.Name}}", &["volume", "rm", "-f"]);
    Reaped { containers, volumes }
}

/// List with `list` (its items' `id` and owner label), remove the dead owners' with
/// `rm`; how many.
fn remove(list: &[&str], id: &str, rm: &[&str]) -> usize {
    let format = format!("{id}\t{{{{.Label \"{}\"}}}}", super::name::OWNER_LABEL);
    let filter = format!("label={}", super::name::OWNER_LABEL);
    let mut args = list.to_vec();
    args.extend(["--filter", &filter, "--format", &format]);
    let Ok(out) = docker(&args) else { return 0 };
    if !out.status.success() {
        return 0;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let dead: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, owner)| !crate::instance::datadir::owner_alive(owner))
        .map(|(id, _)| id)
        .collect();
    if dead.is_empty() {
        return 0;
    }
    let mut args = rm.to_vec();
    args.extend(&dead);
    match docker(&args) {
        Ok(o) if o.status.success() => dead.len(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::Reaped;

    #[test]
    fn described_names_what_there_was() {
        assert_eq!(Reaped { containers: 1, volumes: 0 }.described(), "1 container");
        assert_eq!(Reaped { containers: 0, volumes: 2 }.described(), "2 volumes");
        assert_eq!(Reaped { containers: 2, volumes: 1 }.described(), "2 containers and 1 volume");
        assert!(Reaped::default().is_empty());
    }
}
