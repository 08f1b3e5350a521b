//! The database service dbrace races, chosen from a project by its image (or
//! `--service`), and what of it each cell keeps: the image, the published port and the
//! account its environment creates, the settings of its command, and what the file tunes
//! (durability settings, a tmpfs on the data directory), which only the `as-written`
//! cell keeps.

use super::command;
use super::project::Project;
use super::service::Service;
use crate::engine::access::Access;
use crate::engine::image::Image;
use crate::engine::{self, Engine};
use crate::error::Result;

/// The name of the cell that runs the service as its file writes it.
pub const AS_WRITTEN: &str = "as-written";

/// Settings dbrace gives its servers itself: where they listen and keep their data.
const DBRACE_OWNS: &[&str] = &[
    "port",
    "listen_addresses",
    "unix_socket_directories",
    "data_directory",
    "config_file",
    "hba_file",
    "bind",
    "bind_ip",
    "dir",
    "datadir",
    "socket",
    "dbpath",
];

/// A database service, as dbrace runs it.
pub struct Chosen {
    /// Its name under `services:`.
    pub service: String,
    /// Its engine.
    pub engine: &'static dyn Engine,
    /// Its engine's image's terms.
    pub contract: &'static Image,
    /// Its image.
    pub image: String,
    /// Where its clients reach it and as whom: its published port, its account.
    pub access: Access,
    /// Its command's settings every cell keeps.
    pub kept: Vec<(String, String)>,
    /// Its command's durability settings: only the `as-written` cell's.
    pub tuned: Vec<(String, String)>,
    /// Its command's settings dbrace gives its own servers (port, listen address) and its
    /// account's (a password, as the variable `${NAME}`): no cell's, but a suggested
    /// command that replaces the service's keeps them.
    pub owned: Vec<(String, String)>,
    /// Its environment's other variables, which every cell's container gets.
    pub env: Vec<(String, String)>,
    /// Whether its data directory is a tmpfs (the `as-written` cell's data then on ram).
    pub on_tmpfs: bool,
    /// `docker run` flags of what its container gets (`--shm-size`, `--ulimit`, `--cpus`,
    /// `--memory`), which every cell's container gets too.
    pub resources: Vec<String>,
    /// The SQL init scripts it mounts, in the order the image runs them.
    pub init: Vec<std::path::PathBuf>,
    /// What was read, dropped or left alone, in words.
    pub notes: Vec<String>,
}

/// The database service of `project`: `service` if named, else the only one (of `engine`
/// when given), found by its image.
pub fn choose(project: &Project, service: Option<&str>, engine: Option<&str>) -> Result<Chosen> {
    let s = match service {
        Some(name) => project.services.get(name).ok_or_else(|| {
            bad_input!("the Compose file has no service '{name}'; its services: {}", names(project.services.values()))
        })?,
        None => only_database(project, engine)?,
    };
    let engine = match engine {
        Some(name) => engine::by_name(name)?,
        None => engine_of(s)?.ok_or_else(|| unknown_image(s))?,
    };
    let contract = engine.facts().image.ok_or_else(|| bad_input!("{} runs no container (--engine)", engine.name()))?;
    let mut chosen = read(s, engine, contract)?;
    let (init, other) = super::init::scripts(s, &project.dir, contract.init_dir)?;
    if !other.is_empty() {
        chosen.notes.push(format!("init scripts not run (dbrace applies SQL ones only): {}", other.join(", ")));
    }
    chosen.init = init;
    let others: Vec<&Service> = project.services.values().filter(|o| o.name != s.name).collect();
    if !others.is_empty() {
        chosen.notes.push(format!("left alone (start them as usual): {}", names(others.into_iter())));
    }
    Ok(chosen)
}

/// The one service whose image is a database's (of `engine` when given).
fn only_database<'a>(project: &'a Project, engine: Option<&str>) -> Result<&'a Service> {
    let mut found = Vec::new();
    for s in project.services.values() {
        if let Some(e) = engine_of(s)?
            && engine.is_none_or(|want| want == e.name())
        {
            found.push(s);
        }
    }
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(bad_input!(
            "the Compose file has no {} service (an image named {}); its services: {}; name one with --service and say its engine with --engine",
            engine.unwrap_or("database"),
            known_images(),
            names(project.services.values())
        )),
        several => Err(bad_input!(
            "the Compose file has several database services ({}); choose one with --service",
            several
                .iter()
                .map(|s| format!("{}: {}", s.name, s.image.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The engine whose image the service runs, if dbrace knows it.
fn engine_of(s: &Service) -> Result<Option<&'static dyn Engine>> {
    let Some(image) = &s.image else { return Ok(None) };
    let name = repository(image);
    Ok(engine::all().iter().copied().find(|e| e.facts().image.is_some_and(|c| c.images.contains(&name))))
}

/// An image reference's last path part, without registry, tag or digest:
/// `docker.io/library/postgres:16-alpine@sha256:…` is `postgres`.
pub fn repository(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    let last = image.rsplit('/').next().unwrap_or(image);
    last.split(':').next().unwrap_or(last)
}

/// The service read with its engine's contract.
fn read(s: &Service, engine: &'static dyn Engine, c: &'static Image) -> Result<Chosen> {
    let at = |key: &str| format!("services.{}.{key}", s.name);
    if let Some(e) = &s.entrypoint {
        return Err(bad_input!(
            "{} replaces the image's entrypoint with '{}'; dbrace runs the image's own: drop it from the file, or race this server without --compose",
            at("entrypoint"),
            e.join(" ")
        ));
    }
    let image = s.image.clone().ok_or_else(|| bad_input!("{} is not set; dbrace runs an image", at("image")))?;
    let all = match &s.command {
        Some(words) => command::settings(words, c, &at("command"))?,
        None => Vec::new(),
    };
    let mut notes = Vec::new();
    let (mut kept, mut tuned, mut owned) = (Vec::new(), Vec::new(), Vec::new());
    let mut account = std::collections::BTreeMap::new();
    for (k, v) in all {
        if c.account_settings.contains(&k.as_str()) {
            // A suggested command names the secret's variable, never its value.
            owned.push((k.clone(), format!("${{{}}}", k.to_uppercase())));
            account.insert(k, v);
        } else if DBRACE_OWNS.contains(&k.as_str()) {
            notes.push(format!("{}: {k} is dbrace's to set; dropped", at("command")));
            owned.push((k, v));
        } else if c.durability.contains(&k.as_str()) {
            tuned.push((k, v));
        } else {
            kept.push((k, v));
        }
    }
    let mut access = (c.access)(&s.environment, &account);
    let env = passed_env(s, c, &mut notes);
    access.port = published(s, c.port, &mut notes);
    let on_tmpfs = s.tmpfs.iter().any(|t| same_dir(t, c.data_dir));
    notes.extend(data_dir_notes(s, c, on_tmpfs, &tuned));
    notes.extend(container_notes(s));
    Ok(Chosen {
        service: s.name.clone(),
        engine,
        contract: c,
        image,
        access,
        kept,
        tuned,
        owned,
        env,
        on_tmpfs,
        resources: s.resources.flags(),
        init: Vec::new(),
        notes,
    })
}

/// The service's variables its containers get: all but those its engine's image reads
/// for the account or the data's place.
fn passed_env(s: &Service, c: &Image, notes: &mut Vec<String>) -> Vec<(String, String)> {
    let env: Vec<(String, String)> =
        s.environment.iter().filter(|(k, _)| !c.owns(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    if !env.is_empty() {
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        notes.push(format!("services.{}.environment: every cell's container gets {}", s.name, names.join(", ")));
    }
    env
}

/// The host port the service publishes its server's port on, if it does.
fn published(s: &Service, target: u16, notes: &mut Vec<String>) -> Option<u16> {
    let port = s.ports.iter().find(|p| p.target == target)?;
    if let Some(ip) = port.host_ip.as_deref().filter(|ip| !matches!(*ip, "127.0.0.1" | "::1" | "localhost" | "")) {
        notes.push(format!(
            "services.{}.ports publishes on {ip}; dbrace's servers listen on the loopback (127.0.0.1, ::1) only",
            s.name
        ));
    }
    port.published
}

/// What every cell's container gets of the service, and what of it dbrace leaves out.
fn container_notes(s: &Service) -> Vec<String> {
    let mut notes = Vec::new();
    let flags = s.resources.flags();
    if !flags.is_empty() {
        notes.push(format!("services.{}: every cell's container gets {}", s.name, flags.join(" ")));
    }
    if !s.left_out.is_empty() {
        notes.push(format!(
            "services.{}: {} left out (dbrace starts, checks, networks and stops each cell's server itself)",
            s.name,
            s.left_out.join(", ")
        ));
    }
    notes
}

/// What the file does to the data directory, and what the cells do instead.
fn data_dir_notes(s: &Service, c: &Image, on_tmpfs: bool, tuned: &[(String, String)]) -> Vec<String> {
    let mut notes = Vec::new();
    if on_tmpfs {
        notes.push(format!(
            "a tmpfs on {}: {AS_WRITTEN} keeps its data on ram; each profile puts it where it says",
            c.data_dir
        ));
    }
    for v in s.volumes.iter().filter(|v| same_dir(&v.target, c.data_dir)) {
        notes.push(format!(
            "volume {} on {} is not used: each cell's data is a throwaway one in its profile's location",
            v.source.as_deref().unwrap_or("(anonymous)"),
            c.data_dir
        ));
    }
    if !tuned.is_empty() {
        let set: Vec<String> = tuned.iter().map(|(k, v)| format!("{k}={v}")).collect();
        notes.push(format!("its command sets {}: {AS_WRITTEN} keeps them; each profile sets its own", set.join(" ")));
    }
    notes
}

/// Whether two container paths are the same directory.
fn same_dir(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Services' names, comma-separated.
fn names<'a>(services: impl Iterator<Item = &'a Service>) -> String {
    let n: Vec<&str> = services.map(|s| s.name.as_str()).collect();
    if n.is_empty() { "none".into() } else { n.join(", ") }
}

/// The image names dbrace knows, for messages.
fn known_images() -> String {
    let n: Vec<&str> =
        engine::all().iter().filter_map(|e| e.facts().image).flat_map(|c| c.images.iter().copied()).collect();
    n.join(", ")
}

/// A service whose image dbrace does not know.
fn unknown_image(s: &Service) -> crate::error::Error {
    bad_input!(
        "services.{} runs {}, which dbrace does not know as a database's image ({}); say which engine it is with --engine",
        s.name,
        s.image.as_deref().map_or("no image".to_string(), |i| format!("image {i}")),
        known_images()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(yaml: &str) -> Project {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("compose.yml");
        std::fs::write(&f, yaml).unwrap();
        super::super::project::load(&[f]).unwrap()
    }

    const FILE: &str = "services:\n  db:\n    image: docker.io/library/postgres:16-alpine\n    environment: {POSTGRES_USER: app, POSTGRES_PASSWORD: pw}\n    command: postgres -c fsync=off -c max_connections=50 -c port=5432\n    ports: ['15432:5432']\n    tmpfs: [/var/lib/postgresql/data]\n    volumes: ['pgdata:/var/lib/postgresql/data']\n  cache:\n    image: redis:7\n  web:\n    build: .\n";

    #[test]
    fn a_service_is_found_by_its_image_and_read_as_written() {
        let p = project(FILE);
        let c = choose(&p, None, Some("postgres")).unwrap();
        assert_eq!((c.service.as_str(), c.engine.name()), ("db", "postgres"));
        assert_eq!(c.access.port, Some(15432));
        assert_eq!(c.access.user.as_deref(), Some("app"));
        assert_eq!(c.access.database.as_deref(), Some("app"));
        assert_eq!(c.kept, vec![("max_connections".to_string(), "50".to_string())]);
        assert_eq!(c.tuned, vec![("fsync".to_string(), "off".to_string())]);
        assert!(c.on_tmpfs);
        let notes = c.notes.join("\n");
        assert!(notes.contains("port is dbrace's") && notes.contains("volume pgdata") && notes.contains("cache, web"));
        let redis = choose(&p, Some("cache"), None).unwrap();
        assert_eq!(redis.access.password.as_deref(), Some(""));
        assert_eq!(repository("registry:5000/team/mariadb:11@sha256:ab"), "mariadb");
    }

    fn refusal(r: Result<Chosen>) -> String {
        r.err().expect("refused").to_string()
    }

    #[test]
    fn no_several_or_unknown_services_are_one_line_each() {
        let p = project(FILE);
        let several = refusal(choose(&p, None, None));
        assert!(several.contains("several") && several.contains("--service"), "{several}");
        let none = refusal(choose(&p, None, Some("mysql")));
        assert!(none.contains("no mysql service"), "{none}");
        let unknown = refusal(choose(&p, Some("web"), None));
        assert!(unknown.contains("--engine"), "{unknown}");
        assert!(refusal(choose(&p, Some("nope"), None)).contains("no service 'nope'"));
    }
}
