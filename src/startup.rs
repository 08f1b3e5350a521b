//! What commands do before they start, shared by run, exec, serve and the others: the
//! machine options, the leftovers of killed runs, the output files.

use crate::error::Result;
use crate::instance::{Locations, datadir, location};
use crate::results::now_rfc3339;
use crate::runner::progress::Progress;
use std::path::{Path, PathBuf};

/// Raise this process's soft limit of open files to its hard limit: hundreds of clients
/// need a socket each, and many systems start processes at a soft limit of 1,024.
pub fn open_files() {
    crate::platform::process::raise_open_files();
}

/// The machine options every command shares, as one value to pass down.
pub fn machine(a: &crate::cli::LocationArgs) -> crate::engine::Machine {
    let launcher = crate::launcher::How { run_as: a.run_as.clone(), ..Default::default() };
    crate::engine::Machine { bin_dirs: a.bin_dirs.clone(), launcher, ..Default::default() }
}

/// The machine options with `--launcher` and `--image`.
pub fn launched(machine: crate::engine::Machine, a: &crate::cli::LauncherArgs) -> crate::engine::Machine {
    let images = a.images.iter().cloned().collect();
    let launcher = crate::launcher::How {
        kind: a.launcher,
        init: a.docker_init,
        disk: a.docker_disk,
        network: a.docker_network,
        ..machine.launcher
    };
    crate::engine::Machine { launcher, images, ..machine }
}

/// Remove what killed runs of the launcher in use left (containers, volumes), and say so.
pub fn reap_containers(machine: &crate::engine::Machine, progress: Progress) {
    if let Some(reaped) = machine.launcher.reap() {
        progress.line(&format!("removed {reaped} left by a killed run"));
    }
}

/// Remove what killed runs left in both locations, and say so; warn of a location that
/// is not what its name says (a ram location the kernel may swap to disk).
pub fn reap_locations(locations: &Locations, progress: Progress) {
    for w in locations.all().iter().filter_map(|l| l.warning()) {
        progress.line(&format!("warning: {w}"));
    }
    for r in crate::platform::storage::reap_ram_disks() {
        progress.line(&format!("removed {r}"));
    }
    for l in locations.all() {
        let n = datadir::reap(&l.path);
        if n > 0 {
            progress.line(&format!(
                "removed {n} data director{} left by a killed run in {}",
                if n == 1 { "y" } else { "ies" },
                l.path.display()
            ));
        }
    }
}

/// Refuse an unusable output file (`flag` names its option) before measuring anything.
pub fn check_writable(out: &Path, flag: &str, example: &str) -> Result<()> {
    if out.is_dir() {
        return Err(bad_input!("{flag} {} is a directory; give a file name such as {example}", out.display()));
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(bad_input!(
            "the directory of {flag} {} does not exist; create it or choose another path",
            out.display()
        ));
    }
    let probe = datadir::scratch(parent, "out");
    std::fs::write(&probe, b"")
        .map_err(|e| bad_input!("cannot write next to {}: {e}; choose another {flag}", out.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// Where a run keeps its results when --out is not given: a new file in the cache.
pub fn default_results_path() -> Result<PathBuf> {
    let dir = location::cache_dir()?.join("results");
    std::fs::create_dir_all(&dir)
        .map_err(|e| failed!("cannot create {}: {e}; give a results file with --out", dir.display()))?;
    let stamp: String = now_rfc3339().chars().filter(|c| c.is_ascii_digit()).collect();
    Ok(dir.join(format!("{stamp}-{}.json", std::process::id())))
}
