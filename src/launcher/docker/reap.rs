//! Containers that dead dbrace processes left (a SIGKILL leaves its container running),
//! known by their owner label and removed with their anonymous volumes.

use super::cli::docker;

/// Remove the containers whose owner is gone; how many. Nothing when docker is missing
/// or its daemon does not answer: then there is nothing of ours to remove either.
pub fn reap() -> usize {
    let format = format!("{{{{.ID}}}}\t{{{{.Label \"{}\"}}}}", super::OWNER_LABEL);
    let filter = format!("label={}", super::OWNER_LABEL);
    let Ok(out) = docker(&["ps", "-a", "--filter", &filter, "--format", &format]) else { return 0 };
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
    let mut args = vec!["rm", "-f", "-v"];
    args.extend(&dead);
    match docker(&args) {
        Ok(o) if o.status.success() => dead.len(),
        _ => 0,
    }
}
