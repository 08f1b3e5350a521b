//! Build facts: `DBRACE_VERSION` is the crate version, followed by the commit and its date
//! when built from a git checkout of dbrace itself (`0.1.0 (937dbff 2026-12-01)`), and the
//! crate version alone otherwise (a crates.io or tarball build).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let full = match commit(&dir) {
        Some((hash, date)) => format!("{version} ({hash} {date})"),
        None => version,
    };
    println!("cargo:rustc-env=DBRACE_VERSION={full}");
}

/// The short hash and commit date of HEAD, when `dir` is the top of a git work tree (not a
/// tarball unpacked inside some other repository, whose commit would not be ours).
fn commit(dir: &Path) -> Option<(String, String)> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(dir).ok()? {
        return None;
    }
    watch_head(dir);
    let hash = git(dir, &["rev-parse", "--short", "HEAD"])?;
    let date = git(dir, &["log", "-1", "--format=%cs", "HEAD"])?;
    Some((hash, date))
}

/// Rerun when HEAD moves, and only then: HEAD itself (a checkout), the branch it points to
/// (a commit) and packed-refs (where that branch may live). In a linked worktree `.git` is a
/// file, so the paths come from git. A path that does not exist is left out, since cargo
/// would rerun the script on every build for it.
fn watch_head(dir: &Path) {
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    let Some(git_dir) = git(dir, &["rev-parse", "--git-dir"]).map(abs) else { return };
    let common = git(dir, &["rev-parse", "--git-common-dir"]).map(abs).unwrap_or_else(|| git_dir.clone());
    let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common.join(branch));
    }
    for p in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

/// One line of git's output, or nothing when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    let line = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !line.is_empty()).then_some(line)
}
