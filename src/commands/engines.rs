//! `dbrace engines`: the engines usable here, the locations, profiles and workloads.

use super::gib;
use crate::cli::EnginesArgs;
use crate::error::Result;
use crate::instance::Locations;
use crate::startup::machine;
use crate::{engine, profile, signals, workload};
use std::io::IsTerminal;

pub(super) fn engines(a: EnginesArgs) -> Result<i32> {
    signals::install();
    let machine = machine(&a.locations);
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), true)?;
    signals::check()?;
    let engines: Vec<EngineInfo> = engine::all()
        .iter()
        .map(|e| {
            let (usable, version) = match e.version(&machine) {
                Ok(v) => (true, v),
                Err(err) => (false, err.to_string()),
            };
            let interface = format!("{:?}", e.interface()).to_lowercase();
            EngineInfo { engine: e.name(), usable, version, interface, settings: e.setting_keys() }
        })
        .collect();
    let locs = [&locations.disk, &locations.ram];
    if a.json {
        let v = serde_json::json!({"engines": engines, "locations": locs});
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| failed!("{e}"))?);
        return Ok(0);
    }
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED).set_header([
        "engine",
        "usable",
        "version",
        "client",
        "settings for --set",
    ]);
    // Long setting lists wrap instead of stretching the table past the terminal.
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    if t.width().is_none() {
        t.set_width(120);
    }
    for e in &engines {
        let usable = if e.usable { "yes" } else { "no" };
        t.add_row([e.engine, usable, &e.version, &e.interface, &e.settings.join(", ")]);
    }
    println!("{t}");
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED).set_header([
        "location",
        "path",
        "filesystem",
        "free",
        "fsync (8 KiB write + fdatasync)",
    ]);
    for l in locs {
        let fsync = l.fsync.as_ref().map_or("-".into(), |f| {
            format!("median {:.3} ms, max {:.3} ms ({} ops)", f.median_us / 1000.0, f.max_us / 1000.0, f.ops)
        });
        t.add_row([l.kind.to_string(), l.path.display().to_string(), l.fs_type.clone(), gib(l.free_bytes), fsync]);
    }
    println!("{t}");
    println!("profiles:");
    for (n, h) in profile::builtin_help() {
        println!("  {n:<11} {h}");
    }
    println!("workloads:");
    for w in workload::all() {
        let on: Vec<_> = engine::all().iter().filter(|e| w.drives(e.interface())).map(|e| e.name()).collect();
        println!("  {:<14} {} [{}]", w.name(), w.about(), on.join(", "));
    }
    let both: Vec<_> = engine::all().iter().map(|e| e.name()).collect();
    println!("  {:<14} counters-write and counters-read, a row each [{}]", workload::counters::FAMILY, both.join(", "));
    let sql: Vec<_> =
        engine::all().iter().filter(|e| e.interface() == engine::Interface::Sql).map(|e| e.name()).collect();
    println!(
        "  {:<14} pgbench's script format (script:FILE@WEIGHT to weigh it; the script: entries of a list form one mix) [{}]",
        "script:FILE",
        sql.join(", ")
    );
    if std::io::stdout().is_terminal() {
        println!("(a disk fsync far above a ram one is what makes ram profiles faster for commit-heavy workloads)");
    }
    Ok(0)
}

/// What `dbrace engines` says of one engine.
#[derive(serde::Serialize)]
struct EngineInfo {
    engine: &'static str,
    usable: bool,
    version: String,
    interface: String,
    settings: &'static [&'static str],
}
