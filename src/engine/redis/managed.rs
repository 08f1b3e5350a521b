//! Throwaway `redis-server`s from the machine's own binary: a config file of ours in the
//! instance's 0700 directory (never /etc/redis), its `dir` there too, and a unix socket
//! beside it or a free 127.0.0.1 port with a random password. Ready on the first PING.

use super::client::RedisClient;
use super::endpoint::{Addr, Endpoint};
use crate::engine::access::{self, Access};
use crate::engine::kit;
use crate::engine::kit::patient::CONNECT_TIMEOUT;
use crate::engine::kit::tls::{Mode, Tls};
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::certs::{self, Certs};
use crate::instance::datadir::write_private;
use crate::instance::server;
use crate::instance::user::RunAs;
use crate::launcher::{Launcher, Recipe, Server, Step};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// The server binary in use.
#[derive(Clone, Debug)]
pub struct Binary {
    /// Path of redis-server.
    pub path: PathBuf,
    /// Its version, e.g. 7.0.15.
    pub version: String,
}

/// Find redis-server on PATH or in the usual places, once per process.
pub fn binary() -> Result<Binary> {
    static FOUND: OnceLock<std::result::Result<Binary, String>> = OnceLock::new();
    FOUND.get_or_init(find).clone().map_err(|m| bad_input!("{m}"))
}

fn find() -> std::result::Result<Binary, String> {
    let path_dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    let usual = ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/opt/homebrew/bin"].map(PathBuf::from);
    let Some(path) = path_dirs.iter().chain(&usual).map(|d| d.join("redis-server")).find(|p| p.is_file()) else {
        return Err("redis-server not found; install it (apt-get install redis-server) or put it on PATH".into());
    };
    let out =
        Command::new(&path).arg("--version").output().map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    // "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=…"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().find_map(|w| w.strip_prefix("v=")).unwrap_or("unknown").to_string();
    Ok(Binary { path, version })
}

/// A config value as redis's config parser reads it: quoted, `"` and `\` escaped.
fn quoted(v: &str) -> String {
    format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The config file: where the server listens and keeps its files, then `settings`.
pub(super) fn config(dir: &Path, bind: &str, listen: &Listen, settings: &[(String, String)]) -> String {
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
    line("bind", &[bind]);
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
pub(super) enum Listen {
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

/// Start a server in `dir` with `settings` (the profile's and `--set`'s) in its config
/// file, on a socket beside it or on 127.0.0.1 as `listen` says; TCP clients log in as
/// `access` says (a random password unless given). With `tls`, it listens on TCP in TLS
/// only, with a certificate from a CA made in `dir`, which its clients check (verify-full).
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    b: &Binary,
    dir: &DataDir,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: access::Listen,
    access: &Access,
    tls: bool,
) -> Result<(Server, Endpoint)> {
    if let Some(u) = user {
        dir.give_to(u)?;
    }
    let certs = if tls { Some(certs::make(dir.path(), user)?) } else { None };
    // TLS runs over TCP only.
    let listen = if tls && listen == access::Listen::Socket { access::Listen::Tcp(None) } else { listen };
    let conf = dir.path().join("redis.conf");
    let db = database(access)?;
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(30),
        |port| {
            let (how, endpoint) = match port {
                Some(port) => {
                    let password = match &access.password {
                        Some(p) => p.clone(),
                        None => server::random_token(24)?,
                    };
                    let ep = Endpoint {
                        addr: Addr::Tcp("127.0.0.1".into(), port),
                        username: access.user.clone(),
                        password: Some(password.clone()),
                        db,
                        timeout: Some(CONNECT_TIMEOUT),
                        tls: certs.as_ref().map(|c| Tls::new(Mode::VerifyFull, Some(c.ca.clone()), None)),
                    };
                    (Listen::Tcp { port, password, user: access.user.clone(), certs: certs.clone() }, ep)
                }
                None => {
                    let sock = dir.path().join("redis.sock");
                    let ep = Endpoint {
                        addr: Addr::Unix(sock.clone()),
                        username: None,
                        password: None,
                        db,
                        timeout: Some(CONNECT_TIMEOUT),
                        tls: None,
                    };
                    (Listen::Socket(sock), ep)
                }
            };
            write_private(&conf, &config(dir.path(), "127.0.0.1", &how, settings), user)?;
            let mut server = Step::new(&b.path, user);
            server.arg(&conf);
            // On dbrace's death and on stop alike, SIGTERM: redis exits at once (nothing to
            // save with `save ""`) and takes its AOF-rewrite child, if any, with it.
            let recipe = Recipe {
                server,
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGTERM,
                container: None,
            };
            Ok((recipe, endpoint))
        },
        |endpoint| RedisClient::connect(endpoint, b"").ok(),
        kit::start::taken(listen),
    )?;
    Ok((started.server, started.probe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_quotes_every_value_and_ends_with_the_settings() {
        let c = config(
            Path::new("/d/x \"y\""),
            "0.0.0.0",
            &Listen::Tcp { port: 7000, password: "pw".into(), user: None, certs: None },
            &[("save".into(), "".into()), ("appendfsync".into(), "always".into())],
        );
        assert!(c.contains("dir \"/d/x \\\"y\\\"\"\n"), "{c}");
        assert!(c.contains("bind \"0.0.0.0\"\n") && c.contains("port \"7000\"\nrequirepass \"pw\"\n"), "{c}");
        assert!(c.ends_with("save \"\"\nappendfsync \"always\"\n"), "{c}");
        let c = config(Path::new("/d"), "127.0.0.1", &Listen::Socket("/d/redis.sock".into()), &[]);
        assert!(c.contains("port \"0\"\nunixsocket \"/d/redis.sock\"\nunixsocketperm \"700\"\n"), "{c}");
        assert!(!c.contains("requirepass"), "{c}");
        let c = config(
            Path::new("/d"),
            "127.0.0.1",
            &Listen::Tcp { port: 1, password: "p w".into(), user: Some("app".into()), certs: None },
            &[],
        );
        assert!(c.contains("user \"app\" \"on\" \">p w\" \"~*\" \"&*\" \"+@all\"\n"), "{c}");
        let certs = Certs { ca: "/d/ca.crt".into(), cert: "/d/server.crt".into(), key: "/d/server.key".into() };
        let c = config(
            Path::new("/d"),
            "127.0.0.1",
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
