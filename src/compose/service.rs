//! One service of a Compose file, as far as dbrace reads it: its image, environment,
//! command, published ports, tmpfs mounts, volumes and the resources its container gets,
//! in any of the forms the Compose Specification allows (lists or maps, short or long
//! syntax); every other key is named as left out, `x-` extensions aside.

use crate::error::Result;
use std::collections::BTreeMap;
use yaml_serde::Value;

/// A service, its values interpolated and its files merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Service {
    /// Its name under `services:`.
    pub name: String,
    /// `image:`.
    pub image: Option<String>,
    /// `environment:` over its `env_file:`s.
    pub environment: BTreeMap<String, String>,
    /// `command:`, in words.
    pub command: Option<Vec<String>>,
    /// `entrypoint:`, in words.
    pub entrypoint: Option<Vec<String>>,
    /// `ports:`.
    pub ports: Vec<Port>,
    /// Paths of `tmpfs:` mounts (and of `volumes:` of type tmpfs).
    pub tmpfs: Vec<String>,
    /// `volumes:` other than tmpfs ones.
    pub volumes: Vec<Volume>,
    /// `container_name:`.
    pub container_name: Option<String>,
    /// `shm_size:`, `ulimits:` and `deploy.resources.limits`: what its container gets.
    pub resources: Resources,
    /// Its keys dbrace does not take (`healthcheck`, `restart`, `networks`…), in order.
    pub left_out: Vec<String>,
}

/// What a service's container gets of the machine, as `docker run` flags say it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// `shm_size:` (`--shm-size`).
    pub shm_size: Option<String>,
    /// `ulimits:` as `NAME=SOFT:HARD` (`--ulimit`).
    pub ulimits: Vec<String>,
    /// `deploy.resources.limits.cpus` (`--cpus`).
    pub cpus: Option<String>,
    /// `deploy.resources.limits.memory` (`--memory`).
    pub memory: Option<String>,
}

impl Resources {
    /// The `docker run` flags that give them.
    pub fn flags(&self) -> Vec<String> {
        let mut f = Vec::new();
        let mut flag = |name: &str, v: &str| f.extend([name.to_string(), v.to_string()]);
        self.shm_size.iter().for_each(|v| flag("--shm-size", v));
        self.ulimits.iter().for_each(|v| flag("--ulimit", v));
        self.cpus.iter().for_each(|v| flag("--cpus", v));
        self.memory.iter().for_each(|v| flag("--memory", v));
        f
    }
}

/// A published port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// The port inside the container.
    pub target: u16,
    /// The port on the host, when one is given.
    pub published: Option<u16>,
    /// The host address it is published on, when one is given.
    pub host_ip: Option<String>,
}

/// A volume or bind mount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    /// A named volume's name or a host path; none for an anonymous volume.
    pub source: Option<String>,
    /// Where it is mounted in the container.
    pub target: String,
}

impl Volume {
    /// Whether its source is a path on the host (a bind mount), not a named volume.
    pub fn is_bind(&self) -> bool {
        self.source.as_deref().is_some_and(|s| s.starts_with(['.', '/', '~']))
    }
}

/// The service `name` from its merged mapping `v`.
pub fn parse(name: &str, v: &Value, env_files: BTreeMap<String, String>) -> Result<Service> {
    let at = |key: &str| format!("services.{name}.{key}");
    let get = |key: &str| v.get(key).filter(|x| !x.is_null());
    super::keys::check(v, &at)?;
    let mut environment = env_files;
    if let Some(e) = get("environment") {
        environment.extend(environment_of(e, &at("environment"))?);
    }
    let mut tmpfs = match get("tmpfs") {
        Some(t) => strings(t, &at("tmpfs"))?.iter().map(|s| s.split(':').next().unwrap_or(s).to_string()).collect(),
        None => Vec::new(),
    };
    let mut volumes = Vec::new();
    for (i, vol) in list(get("volumes"), &at("volumes"))?.iter().enumerate() {
        match volume(vol, &at(&format!("volumes[{i}]")))? {
            Mounted::Tmpfs(target) => tmpfs.push(target),
            Mounted::Volume(v) => volumes.push(v),
        }
    }
    let mut ports = Vec::new();
    for (i, p) in list(get("ports"), &at("ports"))?.iter().enumerate() {
        ports.push(port(p, &at(&format!("ports[{i}]")))?);
    }
    Ok(Service {
        name: name.to_string(),
        image: get("image").map(|i| scalar(i, &at("image"))).transpose()?,
        environment,
        command: get("command").map(|c| words(c, &at("command"))).transpose()?,
        entrypoint: get("entrypoint").map(|c| words(c, &at("entrypoint"))).transpose()?,
        ports,
        tmpfs,
        volumes,
        container_name: get("container_name").map(|c| scalar(c, &at("container_name"))).transpose()?,
        resources: resources(v, &at)?,
        left_out: super::keys::left_out(v),
    })
}

/// A list's items (none when absent); anything but a list is refused, as Compose does.
fn list<'a>(v: Option<&'a Value>, at: &str) -> Result<&'a [Value]> {
    match v {
        None => Ok(&[]),
        Some(x) => x.as_sequence().map(Vec::as_slice).ok_or_else(|| bad_input!("{at}: expected a list")),
    }
}

/// `shm_size`, `ulimits` (`nofile: 1024` or `{soft, hard}`) and the CPU and memory limits.
fn resources(v: &Value, at: &dyn Fn(&str) -> String) -> Result<Resources> {
    let text = |x: Option<&Value>, key: &str| x.filter(|x| !x.is_null()).map(|x| scalar(x, &at(key))).transpose();
    let mut ulimits = Vec::new();
    for (name, l) in v.get("ulimits").and_then(Value::as_mapping).into_iter().flatten() {
        let name = scalar(name, &at("ulimits"))?;
        let key = format!("ulimits.{name}");
        ulimits.push(match l.as_mapping() {
            Some(_) => format!(
                "{name}={}:{}",
                text(l.get("soft"), &key)?.unwrap_or_default(),
                text(l.get("hard"), &key)?.unwrap_or_default()
            ),
            None => format!("{name}={}", scalar(l, &at(&key))?),
        });
    }
    let limits = v.get("deploy").and_then(|d| d.get("resources")).and_then(|r| r.get("limits"));
    // The version 2 file's own keys, where the deploy section says nothing.
    let cpus = limits.and_then(|l| l.get("cpus")).or(v.get("cpus"));
    let memory = limits.and_then(|l| l.get("memory")).or(v.get("mem_limit"));
    Ok(Resources {
        shm_size: text(v.get("shm_size"), "shm_size")?,
        ulimits,
        cpus: text(cpus, "cpus")?,
        memory: text(memory, "memory")?,
    })
}

/// A scalar as text (numbers and booleans as YAML writes them).
pub fn scalar(v: &Value, at: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok(String::new()),
        _ => Err(bad_input!("{at}: expected a single value")),
    }
}

/// A string or a list of strings.
fn strings(v: &Value, at: &str) -> Result<Vec<String>> {
    match v.as_sequence() {
        Some(list) => list.iter().map(|x| scalar(x, at)).collect(),
        None => Ok(vec![scalar(v, at)?]),
    }
}

/// A command or entrypoint: a list as it is, a string split as a shell would.
fn words(v: &Value, at: &str) -> Result<Vec<String>> {
    match v.as_sequence() {
        Some(_) => strings(v, at),
        None => shell_words::split(&scalar(v, at)?).map_err(|e| bad_input!("{at}: cannot split into words: {e}")),
    }
}

/// `environment:` as a map (`KEY: value`) or a list (`KEY=value`; a bare `KEY` takes the
/// shell's value, as Compose does).
pub fn environment_of(v: &Value, at: &str) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    if let Some(map) = v.as_mapping() {
        for (k, val) in map {
            env.insert(scalar(k, at)?, scalar(val, at)?);
        }
    } else if let Some(list) = v.as_sequence() {
        for item in list {
            let item = scalar(item, at)?;
            match item.split_once('=') {
                Some((k, val)) => env.insert(k.to_string(), val.to_string()),
                None => env.insert(item.clone(), std::env::var(&item).unwrap_or_default()),
            };
        }
    } else {
        return Err(bad_input!("{at}: expected a map or a list of KEY=VALUE"));
    }
    Ok(env)
}

/// What one `volumes:` entry mounts.
enum Mounted {
    Tmpfs(String),
    Volume(Volume),
}

/// A `volumes:` entry: `SOURCE:TARGET[:MODE]`, `TARGET`, or the long syntax.
fn volume(v: &Value, at: &str) -> Result<Mounted> {
    if v.as_mapping().is_some() {
        let field = |k: &str| v.get(k).map(|x| scalar(x, at)).transpose();
        let target = field("target")?.ok_or_else(|| bad_input!("{at}: a volume needs its target"))?;
        return Ok(match field("type")?.as_deref() {
            Some("tmpfs") => Mounted::Tmpfs(target),
            _ => Mounted::Volume(Volume { source: field("source")?, target }),
        });
    }
    let text = scalar(v, at)?;
    let parts: Vec<&str> = text.split(':').collect();
    Ok(Mounted::Volume(match parts.as_slice() {
        [target] => Volume { source: None, target: target.to_string() },
        [source, target, ..] => Volume { source: Some(source.to_string()), target: target.to_string() },
        [] => return Err(bad_input!("{at}: an empty volume")),
    }))
}

/// A `ports:` entry: `[[HOST_IP:]HOST_PORT:]CONTAINER_PORT[/PROTOCOL]`, a number, or the
/// long syntax.
fn port(v: &Value, at: &str) -> Result<Port> {
    let number = |s: &str| -> Result<u16> {
        s.parse().map_err(|_| bad_input!("{at}: '{s}' is not a port number (a range cannot be a database's port)"))
    };
    // A host range for one container port: Compose takes a free one of them; dbrace the first.
    let host = |s: &str| number(s.split_once('-').map_or(s, |(first, _)| first));
    if v.as_mapping().is_some() {
        let field = |k: &str| v.get(k).map(|x| scalar(x, at)).transpose();
        let target = field("target")?.ok_or_else(|| bad_input!("{at}: a port needs its target"))?;
        let published = field("published")?.filter(|p| !p.is_empty());
        return Ok(Port {
            target: number(&target)?,
            published: published.as_deref().map(host).transpose()?,
            host_ip: field("host_ip")?,
        });
    }
    let text = scalar(v, at)?;
    let text = text.split('/').next().unwrap_or(&text);
    // An IPv6 host address is in brackets; the ports are the last two fields either way.
    let (host_ip, ports) = match text.rsplitn(3, ':').collect::<Vec<_>>().as_slice() {
        [c] => (None, (None, *c)),
        [c, h] => (None, (Some(*h), *c)),
        [c, h, ip] => (Some(ip.trim_matches(['[', ']']).to_string()), (Some(*h), *c)),
        _ => return Err(bad_input!("{at}: an empty port")),
    };
    Ok(Port { target: number(ports.1)?, published: ports.0.filter(|h| !h.is_empty()).map(host).transpose()?, host_ip })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(yaml: &str) -> Result<Service> {
        let v: Value = yaml_serde::from_str(yaml).unwrap();
        parse("db", &v, BTreeMap::new())
    }

    #[test]
    fn short_and_long_forms_read_alike() {
        let short = service(
            "image: postgres:16\nenvironment: [POSTGRES_PASSWORD=pw, POSTGRES_DB=shop]\ncommand: postgres -c fsync=off\nports: ['127.0.0.1:15432:5432/tcp', 6000]\ntmpfs: /var/lib/postgresql/data:size=1g\nvolumes: ['pgdata:/data', './init:/docker-entrypoint-initdb.d:ro']\ncontainer_name: shop-db\n",
        )
        .unwrap();
        assert_eq!(short.image.as_deref(), Some("postgres:16"));
        assert_eq!(short.environment["POSTGRES_DB"], "shop");
        assert_eq!(short.command, Some(vec!["postgres".into(), "-c".into(), "fsync=off".into()]));
        assert_eq!(short.ports[0], Port { target: 5432, published: Some(15432), host_ip: Some("127.0.0.1".into()) });
        assert_eq!(short.ports[1], Port { target: 6000, published: None, host_ip: None });
        assert_eq!(short.tmpfs, vec!["/var/lib/postgresql/data".to_string()]);
        assert!(!short.volumes[0].is_bind() && short.volumes[1].is_bind());
        let long = service(
            "image: postgres:16\nenvironment: {POSTGRES_PASSWORD: pw, POSTGRES_DB: shop}\ncommand: [postgres, -c, fsync=off]\nports: [{target: 5432, published: '15432', host_ip: 127.0.0.1}, 6000]\nvolumes: [{type: tmpfs, target: /var/lib/postgresql/data}, {type: volume, source: pgdata, target: /data}, {type: bind, source: ./init, target: /docker-entrypoint-initdb.d}]\ncontainer_name: shop-db\n",
        )
        .unwrap();
        assert_eq!(long, short);
    }

    /// The container's resources are taken, a published range gives its first port, and
    /// every other key but an extension is named as left out.
    #[test]
    fn resources_are_taken_and_the_rest_named() {
        let s = service(
            "image: postgres:16\nports: ['127.0.0.1:6000-6001:5432/tcp']\nshm_size: 256m\nulimits: {nofile: {soft: 1024, hard: 2048}, nproc: 512}\ndeploy: {resources: {limits: {cpus: '1.5', memory: 1g}, reservations: {memory: 512m}}, replicas: 1}\nhealthcheck: {test: [CMD, pg_isready]}\nrestart: always\nx-note: mine\nnetworks: [back]\n",
        )
        .unwrap();
        assert_eq!(s.ports[0].published, Some(6000));
        assert_eq!(
            s.resources.flags(),
            [
                "--shm-size",
                "256m",
                "--ulimit",
                "nofile=1024:2048",
                "--ulimit",
                "nproc=512",
                "--cpus",
                "1.5",
                "--memory",
                "1g"
            ]
        );
        assert_eq!(
            s.left_out,
            ["healthcheck", "restart", "networks", "deploy.resources.reservations", "deploy.replicas"]
        );
    }

    #[test]
    fn what_cannot_be_read_is_named() {
        let e = service("ports: ['8000:5432-5433']").unwrap_err().to_string();
        assert!(e.contains("services.db.ports[0]") && e.contains("5432-5433"), "{e}");
        let e = service("environment: 5").unwrap_err().to_string();
        assert!(e.contains("services.db.environment"), "{e}");
        assert!(service("command: \"postgres -c 'unclosed\"").is_err());
    }
}
