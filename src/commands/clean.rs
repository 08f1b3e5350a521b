//! `dbrace clean`: what killed runs left behind, removed.

use crate::cli::CleanArgs;
use crate::error::Result;
use crate::instance::{Locations, datadir};

pub(super) fn clean(a: CleanArgs) -> Result<i32> {
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), false, None)?;
    for r in crate::platform::storage::reap_ram_disks() {
        println!("removed {r}");
    }
    for l in locations.all() {
        let n = datadir::reap(&l.path);
        println!("{}: removed {n} leftover{} of killed runs", l.path.display(), if n == 1 { "" } else { "s" });
    }
    let reaped = crate::launcher::docker::reap::reap();
    if !reaped.is_empty() {
        println!("docker: removed {} of killed runs", reaped.described());
    }
    let n = crate::launcher::template::remove_abandoned();
    if n > 0 {
        println!("templates: removed {n} unfinished template{} of killed runs", if n == 1 { "" } else { "s" });
    }
    Ok(0)
}
