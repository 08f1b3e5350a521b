//! A Redis server as every launcher runs it: `redis-server` with a config file of ours in
//! the instance's 0700 directory (never /etc/redis; its password never on a command
//! line), its data in `dir`, on a unix socket in a 0700 directory or on 127.0.0.1 with a
//! password, in TLS only with `+tls`. From an image that follows the official redis
//! image's contract: a first argument ending in `.conf` is the config file (bind-mounted,
//! with the TLS files beside it), the data in /data; no init, so no template. Ready on the
//! first PING.

use super::client::RedisClient;
use super::endpoint::{Addr, Endpoint};
use super::image::IMAGE;
use crate::engine::Machine;
use crate::engine::access::Access;
use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use crate::instance::certs::Certs;
use crate::instance::datadir::write_private;
use crate::launcher::{Contract, Described, Dir, File, NativeServer, Place, Spec};
use crate::profile::Profile;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The socket's file name in its directory.
const SOCKET: &str = "redis.sock";
/// The config file's name in the instance directory.
const CONF: &str = "redis.conf";
/// Where the TLS files are in a container (`+tls`).
const TLS_DIR: &str = "/etc/dbrace/tls";
/// The TLS files `certs::make` writes in the instance directory.
const TLS_FILES: [&str; 3] = ["ca.crt", "server.crt", "server.key"];

/// A Redis server for a profile: its settings, and the login TCP clients use.
pub struct RedisServer {
    spec: Spec,
    settings: Vec<(String, String)>,
    user: Option<String>,
    password: String,
    db: i64,
}

impl RedisServer {
    /// The server `profile` asks for on this machine, with `settings` in its config file;
    /// TCP clients log in as `access` says (a random password unless given). With `+tls`
    /// the instance's certificate files must be made before it starts.
    pub fn new(profile: &Profile, machine: &Machine, settings: Vec<(String, String)>, access: &Access) -> Result<Self> {
        let mut files = vec![File { name: CONF, target: "/etc/dbrace/redis.conf".into() }];
        if profile.tls {
            files.extend(TLS_FILES.map(|name| File { name, target: format!("{TLS_DIR}/{name}") }));
        }
        let spec = Spec {
            engine: "redis",
            user: &super::USER,
            dirs: vec![Dir {
                name: "data",
                location: profile.location,
                apart: false,
                target: IMAGE.data_dir,
                moved: None,
            }],
            files,
            image: Contract {
                image: machine.image("redis", IMAGE.default_image).to_string(),
                program: IMAGE.programs[0],
                stop_signal: crate::platform::signal::TERM,
                template: None,
                init_port: None,
                refuses: None,
            },
            port: Some(IMAGE.port),
            socket_file: |_| SOCKET.to_string(),
            // On dbrace's death and on stop alike, SIGTERM: redis exits at once (nothing to
            // save with `save ""`) and takes its AOF-rewrite child, if any, with it.
            stop_signal: crate::platform::signal::TERM,
            death_signal: crate::platform::signal::TERM,
            within: Duration::from_secs(30),
        };
        let password = match &access.password {
            Some(p) => p.clone(),
            None => crate::instance::server::random_token(24)?,
        };
        Ok(RedisServer { spec, settings, user: access.user.clone(), password, db: database(access)? })
    }

    /// The server of any profile, for what does not depend on one.
    pub fn any(machine: &Machine) -> Result<Self> {
        let disk = Profile::builtin("disk").expect("disk is a built-in profile");
        RedisServer::new(&disk, machine, Vec::new(), &Access::default())
    }

    /// Where it listens at `place`, as its config file says.
    fn listen(&self, place: &Place) -> Listen {
        if !place.tcp {
            return Listen::Socket(place.socket(SOCKET).unwrap_or_else(|| place.dir(0).join(SOCKET)));
        }
        let tls = &place.files[1..];
        let certs = (!tls.is_empty()).then(|| Certs { ca: tls[0].clone(), cert: tls[1].clone(), key: tls[2].clone() });
        Listen::Tcp { port: place.port, password: self.password.clone(), user: self.user.clone(), certs }
    }
}

impl Described for RedisServer {
    type Login = Endpoint;
    type Ready = RedisClient;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn native(&self) -> Result<NativeServer<'_>> {
        let b = super::binary::binary()?;
        Ok(NativeServer { program: b.path.clone(), version: b.version, shown: b.path, template: None })
    }

    fn args(&self, place: &Place) -> Result<Vec<OsString>> {
        let text = config(place.dir(0), place.binds, &self.listen(place), &self.settings);
        write_private(&place.host.join(CONF), &text, place.user.as_ref())?;
        Ok(vec![place.files[0].clone().into()])
    }

    fn login(&self, place: &Place) -> Endpoint {
        let tcp = place.tcp;
        let addr = match place.client_socket(SOCKET) {
            Some(path) if !tcp => Addr::Unix(path),
            _ => Addr::Tcp("127.0.0.1".into(), place.port),
        };
        let tls = (tcp && self.spec.files.len() > 1)
            .then(|| Tls::new(Mode::VerifyFull, Some(place.host.join(TLS_FILES[0])), None));
        // As for a socket in a 0700 directory: no password, the directory guards it.
        let (username, password) = if tcp { (self.user.clone(), Some(self.password.clone())) } else { (None, None) };
        Endpoint { addr, username, password, db: self.db, timeout: Some(CONNECT_TIMEOUT), tls }
    }

    fn ready(&self, login: &Endpoint, _place: &Place) -> Option<RedisClient> {
        RedisClient::connect(login, b"").ok()
    }

    /// Where the data really is: the filesystem of its dir says ram or disk.
    fn noted_natively(&self, _native: &NativeServer, dirs: &[PathBuf]) -> Vec<(String, String)> {
        vec![("dir_filesystem".to_string(), crate::instance::location::fs_type(&dirs[0]))]
    }
}

/// A config value as redis's config parser reads it: quoted, `"` and `\` escaped.
fn quoted(v: &str) -> String {
    format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The config file: where the server listens and keeps its files, then `settings`.
fn config(dir: &Path, binds: &[&str], listen: &Listen, settings: &[(String, String)]) -> String {
    let mut c = String::from("# dbrace's throwaway redis-server; removed with its directory\n");
    let mut line = |k: &str, v: &[&str]| {
        let words: Vec<String> = v.iter().map(|w| quoted(w)).collect();
        c.push_str(&format!("{k} {}\n", words.join(" ")));
    };
    line("daemonize", &["no"]);
    // Keep the command line (it names this file, hence the directory) for the reaper.
    line("set-proc-title", &["no"]);
    line("logfile", &[""]);
    line("dir", &[&dir.to_string_lossy()]);
    line("bind", binds);
    line("protected-mode", &["yes"]);
    match listen {
        Listen::Socket(path) => {
            line("port", &["0"]);
            line("unixsocket", &[&path.to_string_lossy()]);
            line("unixsocketperm", &["700"]);
        }
        Listen::Tcp { port, password, user, certs } => {
            match certs {
                // TLS only: the plain port stays closed.
                Some(c) => {
                    line("port", &["0"]);
                    line("tls-port", &[&port.to_string()]);
                    line("tls-cert-file", &[&c.cert.to_string_lossy()]);
                    line("tls-key-file", &[&c.key.to_string_lossy()]);
                    line("tls-ca-cert-file", &[&c.ca.to_string_lossy()]);
                    line("tls-auth-clients", &["no"]);
                }
                None => line("port", &[&port.to_string()]),
            }
            line("requirepass", &[password]);
            if let Some(u) = user {
                // An account of the user's naming, allowed everything, as `default` is.
                line("user", &[u, "on", &format!(">{password}"), "~*", "&*", "+@all"]);
            }
        }
    }
    for (k, v) in settings {
        line(k, &[v]);
    }
    c
}

/// Where a server listens, as its config file says: with `certs`, in TLS only.
enum Listen {
    Socket(PathBuf),
    Tcp { port: u16, password: String, user: Option<String>, certs: Option<Certs> },
}

/// The database number `--database` names (Redis has 16 by default).
pub fn database(access: &Access) -> Result<i64> {
    match &access.database {
        None => Ok(0),
        Some(d) => match d.parse::<i64>() {
            Ok(n) if (0..16).contains(&n) => Ok(n),
            _ => Err(bad_input!("--database {d}: Redis databases are numbers, 0 to 15")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_quotes_every_value_and_ends_with_the_settings() {
        let c = config(
            Path::new("/d/x \"y\""),
            &["0.0.0.0"],
            &Listen::Tcp { port: 7000, password: "pw".into(), user: None, certs: None },
            &[("save".into(), "".into()), ("appendfsync".into(), "always".into())],
        );
        assert!(c.contains("dir \"/d/x \\\"y\\\"\"\n"), "{c}");
        assert!(c.contains("bind \"0.0.0.0\"\n") && c.contains("port \"7000\"\nrequirepass \"pw\"\n"), "{c}");
        assert!(c.ends_with("save \"\"\nappendfsync \"always\"\n"), "{c}");
        let c = config(Path::new("/d"), &["127.0.0.1"], &Listen::Socket("/d/redis.sock".into()), &[]);
        assert!(c.contains("port \"0\"\nunixsocket \"/d/redis.sock\"\nunixsocketperm \"700\"\n"), "{c}");
        assert!(!c.contains("requirepass"), "{c}");
        let c = config(
            Path::new("/d"),
            &["127.0.0.1", "::1"],
            &Listen::Tcp { port: 1, password: "p w".into(), user: Some("app".into()), certs: None },
            &[],
        );
        assert!(c.contains("bind \"127.0.0.1\" \"::1\"\n"), "{c}");
        assert!(c.contains("user \"app\" \"on\" \">p w\" \"~*\" \"&*\" \"+@all\"\n"), "{c}");
        let certs = Certs { ca: "/d/ca.crt".into(), cert: "/d/server.crt".into(), key: "/d/server.key".into() };
        let c = config(
            Path::new("/d"),
            &["127.0.0.1", "::1"],
            &Listen::Tcp { port: 7001, password: "pw".into(), user: None, certs: Some(certs) },
            &[],
        );
        let tls = "port \"0\"\ntls-port \"7001\"\ntls-cert-file \"/d/server.crt\"\ntls-key-file \"/d/server.key\"\n\
                   tls-ca-cert-file \"/d/ca.crt\"\ntls-auth-clients \"no\"\nrequirepass \"pw\"\n";
        assert!(c.contains(tls), "{c}");
        let db = |d: &str| database(&Access { database: Some(d.into()), ..Access::default() });
        assert_eq!(db("3").unwrap(), 3);
        assert!(db("16").is_err() && db("shop").is_err());
    }
}
