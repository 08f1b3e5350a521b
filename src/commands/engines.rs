//! `dbrace engines`: the engines usable here, the locations, Docker and the images each
//! engine's containers would run, the profiles and workloads.

use super::gib;
use crate::cli::EnginesArgs;
use crate::error::Result;
use crate::instance::{Location, Locations};
use crate::launcher::docker;
use crate::startup::{launched, machine};
use crate::{engine, profile, signals, workload};
use std::io::IsTerminal;

pub(super) fn engines(a: EnginesArgs) -> Result<i32> {
    signals::install();
    let machine = launched(machine(&a.locations), &a.launcher);
    // Asked for whatever the launcher, as `docker info` shows its client without a daemon;
    // without docker or a daemon that is one quick line, and an error when it was asked for.
    let docker = docker_info(&machine);
    if machine.launcher.runs_containers()
        && let Some(problem) = &docker.problem
    {
        return Err(bad_input!("--launcher docker: {problem}"));
    }
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), true, None)?;
    signals::check()?;
    let engines = engine_infos(&machine);
    let locs = locations.all();
    if a.json {
        print_json(&engines, &locs, machine.launcher.name(), &docker)?;
        return Ok(0);
    }
    print_engines(&engines);
    print_locations(&locs);
    print_docker(&docker);
    print_profiles();
    print_workloads();
    if std::io::stdout().is_terminal() {
        println!("(a disk fsync far above a ram one is what makes ram profiles faster for commit-heavy workloads)");
    }
    Ok(0)
}

/// Every engine: whether it is usable here, its version (or why not), its client and settings.
fn engine_infos(machine: &engine::Machine) -> Vec<EngineInfo> {
    engine::all()
        .iter()
        .map(|e| {
            let (usable, version) = match e.version(machine) {
                Ok(v) => (true, v),
                Err(err) => (false, err.to_string()),
            };
            let interface = format!("{:?}", e.facts().interface).to_lowercase();
            EngineInfo { engine: e.name(), usable, version, interface, settings: e.facts().setting_keys }
        })
        .collect()
}

/// All of it as one JSON object (`--json`).
fn print_json(engines: &[EngineInfo], locs: &[&Location], launcher: &str, docker: &DockerInfo) -> Result<()> {
    let v = serde_json::json!({"engines": engines, "locations": locs, "launcher": launcher, "docker": docker});
    println!("{}", serde_json::to_string_pretty(&v).map_err(|e| failed!("{e}"))?);
    Ok(())
}

/// A row per engine.
fn print_engines(engines: &[EngineInfo]) {
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
    for e in engines {
        let usable = if e.usable { "yes" } else { "no" };
        t.add_row([e.engine, usable, &e.version, &e.interface, &e.settings.join(", ")]);
    }
    println!("{t}");
}

/// A row per location: where it is, its filesystem, free space and fsync latency.
fn print_locations(locs: &[&Location]) {
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
            let (median, max) = (f.median_us / 1000.0, f.max_us / 1000.0);
            format!("median {median:.3} ms, max {max:.3} ms ({} ops){}", f.ops, f.drive_flush_words())
        });
        t.add_row([l.kind.to_string(), l.path.display().to_string(), l.fs_type.clone(), gib(l.free_bytes), fsync]);
    }
    println!("{t}");
}

/// The built-in profiles and the `+tls` suffix.
fn print_profiles() {
    println!("profiles:");
    for (n, h) in profile::builtin_help() {
        println!("  {n:<11} {h}");
    }
    println!("  PROFILE+tls the same, its throwaway server with TLS (docs/tls.md)");
}

/// The workloads with the engines each drives, then the counters family and scripts.
fn print_workloads() {
    println!("workloads:");
    for w in workload::all() {
        let on: Vec<_> = engine::all().iter().filter(|e| w.drives(e.facts().interface)).map(|e| e.name()).collect();
        println!("  {:<14} {} [{}]", w.name(), w.about(), on.join(", "));
    }
    let both: Vec<_> = engine::all().iter().map(|e| e.name()).collect();
    println!("  {:<14} counters-write and counters-read, a row each [{}]", workload::counters::FAMILY, both.join(", "));
    let sql: Vec<_> =
        engine::all().iter().filter(|e| e.facts().interface == engine::Interface::Sql).map(|e| e.name()).collect();
    println!(
        "  {:<14} pgbench's script format (script:FILE@WEIGHT to weigh it; the script: entries of a list form one mix) [{}]",
        "script:FILE",
        sql.join(", ")
    );
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

/// What `dbrace engines` says of Docker.
#[derive(serde::Serialize)]
struct DockerInfo {
    /// The docker command's version, when it answered.
    client: Option<String>,
    /// The daemon's version, when one answered.
    server: Option<String>,
    /// What the daemon runs in, when it says (Docker Desktop does).
    platform: Option<String>,
    /// Why no daemon answers, with the fix.
    problem: Option<String>,
    /// The image each engine's containers would run.
    images: Vec<ImageInfo>,
}

/// The image one engine's containers would run, and whether this machine has it.
#[derive(serde::Serialize)]
struct ImageInfo {
    engine: &'static str,
    /// `--image`'s, else the engine's default.
    image: String,
    /// Its id, when it is here.
    id: Option<String>,
    /// The names it goes by here.
    tags: Vec<String>,
    /// Its size in bytes, when it is here.
    size_bytes: Option<u64>,
    /// How to bring it here, when it is not.
    fix: Option<String>,
}

/// Docker's versions and each engine's image; no images when no daemon answers.
fn docker_info(machine: &engine::Machine) -> DockerInfo {
    let versions = match docker::versions() {
        Ok(v) => v,
        Err(problem) => {
            return DockerInfo { client: None, server: None, platform: None, problem: Some(problem), images: vec![] };
        }
    };
    let images = engine::all()
        .iter()
        .filter_map(|e| Some((e.name(), machine.image(e.name(), e.facts().image?.default_image))))
        .map(|(engine, image)| {
            let mut info =
                ImageInfo { engine, image: image.to_string(), id: None, tags: vec![], size_bytes: None, fix: None };
            match docker::inspect(image) {
                Ok(Some(i)) => (info.id, info.tags, info.size_bytes) = (Some(i.id), i.tags, Some(i.size)),
                Ok(None) => info.fix = Some(docker::fetch_hint(image)),
                Err(e) => info.fix = Some(e.to_string()),
            }
            info
        })
        .collect();
    let platform = Some(versions.platform).filter(|p| !p.is_empty());
    DockerInfo { client: Some(versions.client), server: Some(versions.server), platform, problem: None, images }
}

/// Docker in a line, then a row per engine with its image, or the one line that says why
/// there is no daemon to ask.
fn print_docker(d: &DockerInfo) {
    let (Some(client), Some(server)) = (&d.client, &d.server) else {
        println!("--launcher docker: {}", d.problem.as_deref().unwrap_or("no Docker daemon answers"));
        return;
    };
    let platform = d.platform.as_ref().map_or(String::new(), |p| format!(" on {p}"));
    println!(
        "docker: client {client}, daemon {server}{platform} (--launcher docker runs servers in containers: docs/docker.md)"
    );
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED).set_header(["engine", "image", "on this machine"]);
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    if t.width().is_none() {
        t.set_width(120);
    }
    for i in &d.images {
        let here = match (&i.id, i.size_bytes) {
            (Some(id), Some(size)) => {
                let short = id.trim_start_matches("sha256:").get(..12).unwrap_or(id);
                let also: Vec<&str> = i.tags.iter().map(String::as_str).filter(|t| *t != i.image).collect();
                let also = if also.is_empty() { String::new() } else { format!(", also {}", also.join(" ")) };
                // Decimal megabytes, as `docker images` counts them.
                format!("yes: {short}, {:.0} MB{also}", size as f64 / 1e6)
            }
            _ => format!("no: {}", i.fix.as_deref().unwrap_or("")),
        };
        t.add_row([i.engine, &i.image, &here]);
    }
    println!("{t}");
}
