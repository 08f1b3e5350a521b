//! `--launcher docker` storage: containers started from an initialized template of their
//! image or by the image's own init (`--docker-init`), disk data in a bind-mounted
//! directory or a named volume (`--docker-disk`), and where each mount's fsync was
//! measured. These tests need a Docker daemon and the images scripts/test-images builds;
//! without them they fail with the fix, never pass.

mod common;

use common::docker::{
    MARIADB_IMAGE, PG_IMAGE, containers_of, docker_lines, require_docker, settle_killed, volumes_of, wait_for,
};
use common::{Sandbox, read_json};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Stdio;

/// Run insert-commit once per profile in containers of `image` (`ENGINE=IMAGE`) with
/// `extra` flags, check every repeat measured and verified and nothing is left behind;
/// (pid, each cell's profile and settings).
fn run(sb: &Sandbox, image: &str, profiles: &str, extra: &[&str]) -> (u32, Vec<(String, serde_json::Value)>) {
    let (engine, _) = image.split_once('=').unwrap();
    let out = sb.out(&format!("r-{}.json", profiles.replace(',', "-")));
    let mut child = sb
        .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
        .args(["-e", engine, "--launcher", "docker", "--image", image, "-p", profiles])
        .args(["-w", "insert-commit", "--repeat", "1", "-T", "0.2s", "--warmup", "0s"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(child.wait().unwrap().success(), "{err}");
    let r = read_json(&out);
    let cells: Vec<(String, serde_json::Value)> = r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let rep = &c["repeats"][0];
            assert_eq!(rep["status"], "ok", "measured and verified: {rep}");
            (c["profile"]["name"].as_str().unwrap().to_string(), rep["settings"].clone())
        })
        .collect();
    assert_eq!(cells.len(), profiles.split(',').count(), "a cell per profile");
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(volumes_of(pid).is_empty(), "left behind: {:?}", volumes_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
    (pid, cells)
}

/// A setting recorded as a string.
fn text<'a>(s: &'a serde_json::Value, key: &str) -> &'a str {
    s[key].as_str().unwrap_or_else(|| panic!("no {key} in {s}"))
}

/// Both ways of beginning a container's data, on disk and ram, for `image` whose data
/// directory is `target` in the container and `sub` in the template.
fn template_and_fresh(image: &str, target: &str, sub: &str) {
    require_docker();
    let sb = Sandbox::new();
    for init in ["template", "fresh"] {
        let (_, cells) = run(&sb, image, "disk,ram", &["--docker-init", init]);
        for (profile, s) in &cells {
            assert_eq!(text(s, "docker_init"), init, "{profile}: {s}");
            assert_eq!(text(s, "docker_disk"), "bind", "{profile}: {s}");
            let (mounts, fsync) = (text(s, "mounts"), text(s, "fsync_probe"));
            match (init, profile.as_str()) {
                ("template", "ram") => {
                    let bind = format!("{target} tmpfs bind {}", sb.ram.path().display());
                    assert!(mounts.starts_with(&bind), "a copy in the ram location: {mounts}");
                    assert!(fsync.starts_with(&format!("{target} RAM (tmpfs of the ram location)")), "{fsync}");
                }
                ("fresh", "ram") => {
                    assert!(mounts.starts_with(&format!("{target} tmpfs ")) && mounts.ends_with(" MiB"), "{mounts}");
                    assert_eq!(fsync, format!("{target} RAM (tmpfs)"));
                }
                (_, _) => {
                    assert!(mounts.contains(&format!("bind {}", sb.disk.path().display())), "{mounts}");
                    assert!(fsync.starts_with(&format!("{target} disk location")), "{fsync}");
                }
            }
            if init == "template" {
                let t = Path::new(text(s, "template"));
                assert!(t.join(sub).is_dir(), "the template {} holds {sub}", t.display());
                let name = t.file_name().unwrap().to_string_lossy().to_string();
                let id = text(s, "image_id").trim_start_matches("sha256:");
                assert!(name.contains(&id[..16]), "named by the image id: {name}");
            } else {
                assert!(s.get("template").is_none(), "{s}");
            }
        }
    }
}

#[test]
fn postgres_from_a_template_and_fresh_on_disk_and_ram() {
    template_and_fresh(PG_IMAGE, "/var/lib/postgresql/data", "pgdata");
}

#[test]
fn mariadb_from_a_template_and_fresh_on_disk_and_ram() {
    template_and_fresh(MARIADB_IMAGE, "/var/lib/mysql", "data");
}

/// A template's directory: its inode and data files' mtimes, which a reuse leaves alone.
fn stamp(template: &Path) -> (u64, Vec<(String, i64)>) {
    let mut files: Vec<(String, i64)> = std::fs::read_dir(template.join("pgdata"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().to_string(), e.metadata().unwrap().mtime())
        })
        .collect();
    files.sort();
    (std::fs::metadata(template).unwrap().ino(), files)
}

#[test]
fn a_template_is_made_once_keeps_its_secret_private_and_its_servers_skip_init() {
    require_docker();
    let sb = Sandbox::new();
    let (_, first) = run(&sb, PG_IMAGE, "disk", &[]);
    let template = Path::new(text(&first[0].1, "template")).to_path_buf();
    let before = stamp(&template);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&template), 0o700, "{}", template.display());
    assert_eq!(mode(&template.join("secret")), 0o600);
    let (_, second) = run(&sb, PG_IMAGE, "disk", &[]);
    assert_eq!(Path::new(text(&second[0].1, "template")), template, "the same template");
    assert_eq!(stamp(&template), before, "the template was reused, not made again");

    // A server handed out stays up: its container's log and environment can be read.
    let secret = std::fs::read_to_string(template.join("secret")).unwrap();
    for (init, initialized) in [("template", false), ("fresh", true)] {
        let args =
            ["serve", "postgres", "-p", "disk", "--launcher", "docker", "--image", PG_IMAGE, "--docker-init", init];
        let mut child = sb.spawn(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut exports = String::new();
        child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
        let pid = child.id();
        let names = containers_of(pid);
        assert_eq!(names.len(), 1, "{names:?}: {exports}");
        let log = docker_lines(&["logs", &names[0]]).join("\n");
        let env = docker_lines(&["inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", &names[0]]);
        common::signal(pid as i32, libc::SIGTERM);
        assert_eq!(child.wait().unwrap().code(), Some(0));
        assert_eq!(log.contains("docker-entrypoint: initialized"), initialized, "{init}: {log}");
        if init == "template" {
            assert!(!env.iter().any(|v| v.contains("PASSWORD")), "no password in the environment: {env:?}");
            assert!(!exports.contains(secret.trim()), "the template's secret is not handed out");
        }
        assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    }
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn volumes_from_a_config_file_hold_the_data_record_their_fsync_and_go_with_the_run() {
    require_docker();
    let sb = Sandbox::new();
    let config = sb.out("volume.toml");
    std::fs::write(&config, "docker_disk = \"volume\"\ndocker_init = \"template\"\n").unwrap();
    for (image, target, extra) in [
        (PG_IMAGE, "/var/lib/postgresql/data", vec!["--config", config.to_str().unwrap()]),
        (MARIADB_IMAGE, "/var/lib/mysql", vec!["--docker-disk", "volume", "--docker-init", "fresh"]),
    ] {
        let (pid, cells) = run(&sb, image, "disk,wal-ram", &extra);
        for (profile, s) in &cells {
            assert_eq!(text(s, "docker_disk"), "volume", "{profile}: {s}");
            let (mounts, fsync) = (text(s, "mounts"), text(s, "fsync_probe"));
            let volume = format!("{target} volume dbrace-{pid}-v");
            assert!(mounts.starts_with(&volume), "{profile}: {mounts}");
            // As root on Linux the local driver's directory is the host's to probe.
            let measured = if common::is_root() { "fdatasync median " } else { "not measured" };
            assert!(fsync.starts_with(&volume) && fsync.contains(measured), "{profile}: {fsync}");
            if profile == "wal-ram" {
                assert!(fsync.contains(" RAM ("), "the WAL or redo log in RAM: {fsync}");
            }
        }
    }
}

/// A long docker run on a volume, in the background, SIGKILLed while a volume of it
/// exists (tried again when the kill landed between two repeats): its pid.
fn killed_volume_run(sb: &Sandbox) -> u32 {
    for _ in 0..3 {
        let out = sb.out("long.json");
        let _ = std::fs::remove_file(&out);
        let mut child = sb
            .spawn(&["run", "-q", "--out", out.to_str().unwrap()])
            .args(["-e", "postgres", "--launcher", "docker", "--image", PG_IMAGE, "-p", "disk"])
            .args(["--docker-disk", "volume", "-w", "insert-commit", "-T", "0.5s", "--warmup", "0s", "-r", "50"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        sb.wait_past_preflight(&out);
        wait_for("a volume", || !volumes_of(pid).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
        settle_killed(pid);
        if !volumes_of(pid).is_empty() {
            return pid;
        }
        sb.cmd(&["clean"]).assert().success();
    }
    panic!("no SIGKILL in three landed while a volume existed");
}

#[test]
fn volumes_left_by_sigkill_are_removed_by_clean_and_by_the_next_run() {
    require_docker();
    let sb = Sandbox::new();
    let pid = killed_volume_run(&sb);
    let clean = sb.cmd(&["clean"]).assert().success();
    let said = String::from_utf8_lossy(&clean.get_output().stdout).to_string();
    assert!(said.contains("volume"), "{said}");
    assert!(volumes_of(pid).is_empty(), "not removed: {:?}: {said}", volumes_of(pid));
    assert!(containers_of(pid).is_empty(), "not removed: {:?}: {said}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "not reaped {:?}: {said}", sb.leftovers());

    let pid = killed_volume_run(&sb);
    run(&sb, PG_IMAGE, "ram", &[]);
    assert!(volumes_of(pid).is_empty(), "the next run removes them: {:?}", volumes_of(pid));
    assert!(containers_of(pid).is_empty(), "the next run removes them: {:?}", containers_of(pid));
}
