//! Throwaway MariaDB / MySQL servers from the machine's own binaries: `mariadb-install-db`
//! (or `mysqld --initialize-insecure`) once into a cached template, a copy of it per
//! instance, the server started with `--no-defaults` (so no /etc/mysql/my.cnf: never the
//! system server's port, socket or data) on a unix socket in the instance's 0700
//! directory, or a free 127.0.0.1 port, ready as soon as a connection succeeds.

use super::client::MyClient;
use super::endpoint::Endpoint;
use crate::engine::SqlClient;
use crate::engine::access::{Access, Listen};
use crate::engine::kit;
use crate::error::Result;
use crate::instance::DataDir;
use crate::instance::certs::Certs;
use crate::instance::datadir::private_dir;
use crate::instance::server::random_password;
use crate::instance::user::RunAs;
use crate::launcher::{Launcher, Recipe, Server, Step};
use mysql_async::OptsBuilder;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Bump when the install options change, so old templates are not reused.
const TEMPLATE_VERSION: u32 = 1;
/// The database clients of a throwaway server use.
pub const DATABASE: &str = "dbrace";
/// The account TCP clients use (the socket uses root, with no password).
const TCP_USER: &str = "dbrace";

/// Settings fixed when the data directory is created: a `--set` of one of these gets a
/// template of its own.
const INIT_ONLY: &[&str] =
    &["innodb_page_size", "innodb_data_file_path", "innodb_undo_tablespaces", "lower_case_table_names"];

/// Which server it is: they differ in how a data directory is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// MariaDB: `mariadbd` and `mariadb-install-db`.
    MariaDb,
    /// Oracle MySQL: `mysqld --initialize-insecure`.
    MySql,
}

/// The server binaries in use.
#[derive(Clone, Debug)]
pub struct Binaries {
    /// `mariadbd` or `mysqld`.
    pub server: PathBuf,
    /// `mariadb-install-db` (MariaDB only).
    pub install: Option<PathBuf>,
    /// The version, e.g. 10.11.19-MariaDB.
    pub version: String,
    /// MariaDB or MySQL.
    pub flavor: Flavor,
}

const INSTALL_HINT: &str = "install them (apt-get install mariadb-server) or pass --mysql-bin DIR";

/// Find the binaries: `--mysql-bin`, else PATH and the usual sbin directories; mariadbd
/// before mysqld (on Debian mysqld is a link to mariadbd).
pub fn binaries(given: Option<&Path>) -> Result<Binaries> {
    let dirs: Vec<PathBuf> = match given {
        Some(d) => vec![d.to_path_buf()],
        None => {
            let mut v: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect();
            v.extend(["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/mysql/bin"].map(PathBuf::from));
            v
        }
    };
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    let Some(server) = find("mariadbd").or_else(|| find("mysqld")) else {
        return Err(match given {
            Some(d) => bad_input!("--mysql-bin {}: no mariadbd or mysqld there", d.display()),
            None => bad_input!("MariaDB/MySQL server binaries (mariadbd or mysqld) not found; {INSTALL_HINT}"),
        });
    };
    let out = Command::new(&server)
        .arg("--version")
        .output()
        .map_err(|e| bad_input!("cannot run {}: {e}; {INSTALL_HINT}", server.display()))?;
    // "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
    // "mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let full = text.split_whitespace().skip_while(|w| *w != "Ver").nth(1).unwrap_or("unknown");
    let flavor = if full.contains("MariaDB") { Flavor::MariaDb } else { Flavor::MySql };
    let version = match full.find("-MariaDB") {
        Some(i) => full[..i + "-MariaDB".len()].to_string(),
        None => full.split('-').next().unwrap_or(full).to_string(),
    };
    let install = match flavor {
        Flavor::MySql => None,
        // Debian keeps the server in /usr/sbin and the installer in /usr/bin.
        Flavor::MariaDb => {
            let sibling = server.parent().and_then(Path::parent).map(|p| p.join("bin"));
            let found = dirs
                .iter()
                .chain(sibling.iter())
                .flat_map(|d| [d.join("mariadb-install-db"), d.join("mysql_install_db")])
                .find(|p| p.is_file());
            Some(found.ok_or_else(|| {
                bad_input!("mariadb-install-db not found next to {}; {INSTALL_HINT}", server.display())
            })?)
        }
    };
    Ok(Binaries { server, install, version, flavor })
}

/// The `--set` values that shape the data directory, as `--key=value` options.
pub(super) fn init_options(settings: &[(String, String)]) -> Vec<String> {
    settings
        .iter()
        .filter(|(k, _)| INIT_ONLY.contains(&k.replace('-', "_").as_str()))
        .map(|(k, v)| format!("--{k}={v}"))
        .collect()
}

/// The cached template data directory for these binaries and init-time options, made once.
pub fn template(
    launcher: &dyn Launcher,
    b: &Binaries,
    user: Option<&RunAs>,
    settings: &[(String, String)],
) -> Result<PathBuf> {
    let options = init_options(settings);
    let flavor = match b.flavor {
        Flavor::MariaDb => "mariadb",
        Flavor::MySql => "mysql",
    };
    let key: String = options
        .iter()
        .flat_map(|o| o.trim_start_matches('-').chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }))
        .collect();
    let name = format!("{flavor}-{}-v{TEMPLATE_VERSION}{}{key}", b.version, if key.is_empty() { "" } else { "-" });
    let cache_key = format!("mysql {} {} {name}", b.server.display(), user.map_or(0, |u| u.uid));
    kit::template::cached(cache_key, || {
        kit::template::install(
            launcher,
            &name,
            "mysql",
            user,
            |tmp| install_step(b, user, &options, tmp),
            |out| {
                let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                let why = text.lines().rfind(|l| l.contains("ERROR")).or(text.lines().last()).unwrap_or("");
                let what = if options.is_empty() { String::new() } else { format!(" with {}", options.join(" ")) };
                failed!("creating a MariaDB/MySQL data directory{what} failed: {}", why.trim())
            },
        )
    })
}

/// The step that fills an empty data directory `tmp`.
fn install_step(b: &Binaries, user: Option<&RunAs>, options: &[String], tmp: &Path) -> Step {
    let mut step = match (&b.install, b.flavor) {
        (Some(install), Flavor::MariaDb) => {
            let mut s = Step::new(install, user);
            // Root with an empty password on the socket (a 0700 directory); no test database.
            s.arg("--no-defaults").arg(format!("--datadir={}", tmp.display()));
            s.args(["--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"]);
            if let Some(base) = install.parent().and_then(Path::parent) {
                s.arg(format!("--basedir={}", base.display()));
            }
            s
        }
        _ => {
            let mut s = Step::new(&b.server, user);
            s.arg("--no-defaults").arg(format!("--datadir={}", tmp.display())).arg("--initialize-insecure");
            s
        }
    };
    step.args(options);
    step
}

/// A started server: root on its socket, and its TCP port when it listens there too.
pub struct Started {
    /// The server process.
    pub server: Server,
    /// Root on the unix socket (no password), in dbrace's database.
    pub root: Endpoint,
    /// The TCP port on 127.0.0.1, when asked for.
    pub port: Option<u16>,
}

/// Start a server on a copy of `template` in `dir` (the redo log in `wal` when given),
/// with `settings` as `--key=value` options, on its socket and, when `listen` says so,
/// on 127.0.0.1; with `tls`'s certificate, TCP clients must use TLS (the socket is
/// trusted as it is).
#[allow(clippy::too_many_arguments)]
pub fn start(
    launcher: &dyn Launcher,
    b: &Binaries,
    template: &Path,
    dir: &DataDir,
    wal: Option<&DataDir>,
    user: Option<&RunAs>,
    settings: &[(String, String)],
    listen: Listen,
    tls: Option<&Certs>,
) -> Result<Started> {
    if let Some(u) = user {
        std::iter::once(dir).chain(wal).try_for_each(|d| d.give_to(u))?;
    }
    let data = dir.path().join("data");
    launcher.copy(template, &data)?;
    if let Some(w) = wal {
        // The redo log elsewhere: moved, and the server told where.
        let log = w.path().join("ib_logfile0");
        launcher.copy(&data.join("ib_logfile0"), &log)?;
        std::fs::remove_file(data.join("ib_logfile0")).map_err(|e| failed!("cannot move the redo log: {e}"))?;
    }
    let sock = private_dir(&dir.path().join("sock"), user)?;
    let tmp = private_dir(&dir.path().join("tmp"), user)?;
    let socket = sock.join("mysqld.sock");
    let root = Endpoint::new(OptsBuilder::default().socket(Some(socket.to_string_lossy())).user(Some("root")));
    let started = kit::start::listening(
        launcher,
        listen,
        Duration::from_secs(60),
        |port| {
            let mut server = Step::new(&b.server, user);
            // --no-defaults must come first: no my.cnf of the system's, ever.
            server.arg("--no-defaults").arg(format!("--datadir={}", data.display()));
            server.arg(format!("--socket={}", socket.display())).arg(format!("--tmpdir={}", tmp.display()));
            server.arg(format!("--pid-file={}", dir.path().join("mysqld.pid").display()));
            match port {
                Some(port) => {
                    server.args(["--bind-address=127.0.0.1", "--skip-name-resolve"]).arg(format!("--port={port}"));
                }
                None => {
                    server.arg("--skip-networking");
                }
            }
            if b.flavor == Flavor::MySql {
                // MySQL's X plugin would listen on 33060 and /tmp/mysqlx.sock.
                server.arg("--mysqlx=OFF");
            }
            // The data directory is deleted after the stop: nothing to flush, dump or load.
            server.args([
                "--innodb-fast-shutdown=2",
                "--innodb-buffer-pool-dump-at-shutdown=OFF",
                "--innodb-buffer-pool-load-at-startup=OFF",
            ]);
            if let Some(w) = wal {
                server.arg(format!("--innodb-log-group-home-dir={}", w.path().display()));
            }
            if let Some(c) = tls {
                server.arg(format!("--ssl-cert={}", c.cert.display())).arg(format!("--ssl-key={}", c.key.display()));
                server.arg(format!("--ssl-ca={}", c.ca.display())).arg("--require-secure-transport=ON");
            }
            for (k, v) in settings {
                server.arg(option(k, v));
            }
            let recipe = Recipe {
                server,
                dir: dir.path().to_path_buf(),
                stop_signal: libc::SIGTERM,
                death_signal: libc::SIGKILL,
                container: None,
            };
            Ok((recipe, ()))
        },
        |()| socket.exists().then(|| MyClient::connect(&root, false).ok()).flatten(),
        |server, e| {
            let log = server.log();
            listen.taken(&log, first_errors(e, &log))
        },
    )?;
    let mut c = started.ready;
    c.batch(&format!("CREATE DATABASE {DATABASE}")).map_err(|e| failed!("cannot set up the throwaway server: {e}"))?;
    Ok(Started { server: started.server, root: root.with_database(DATABASE), port: started.port })
}

/// Open a started server to TCP clients as `access` says: the account (all privileges;
/// `dbrace` by default), its password (random unless given) and the database (created
/// unless it exists; `dbrace` by default). Returns where those clients connect.
pub fn account(root: &Endpoint, port: u16, access: &Access) -> Result<Endpoint> {
    let user = access.user.clone().unwrap_or_else(|| TCP_USER.to_string());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => random_password()?,
    };
    let database = access.database.clone().unwrap_or_else(|| DATABASE.to_string());
    let mut c = MyClient::connect(root, false).map_err(|e| failed!("throwaway server: {e}"))?;
    let (who, secret) = (format!("{}@'127.0.0.1'", literal(&user)), literal(&password));
    let sql = format!(
        "CREATE USER IF NOT EXISTS {who} IDENTIFIED BY {secret}; ALTER USER {who} IDENTIFIED BY {secret}; \
         GRANT ALL ON *.* TO {who} WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS `{}`",
        database.replace('`', "``")
    );
    c.batch(&sql).map_err(|e| {
        if access.given() {
            bad_input!("mysql refused the account or database: {e}; check --user, --password and --database")
        } else {
            failed!("cannot set up the throwaway server's account: {e}")
        }
    })?;
    let at = OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(port).user(Some(user)).pass(Some(password));
    Ok(Endpoint::new(at.db_name(Some(database))))
}

/// A quoted SQL string literal (backslashes are escapes in MySQL's strings).
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// A failed start told by the server's first `[ERROR]` lines, which name the cause (its
/// last lines only say it aborted).
pub(super) fn first_errors(e: crate::error::Error, text: &str) -> crate::error::Error {
    let errors: Vec<&str> = text.lines().filter_map(|l| l.split_once("[ERROR] ").map(|(_, m)| m)).take(2).collect();
    match e {
        crate::error::Error::Run(_) if !errors.is_empty() => {
            failed!("the server did not start: {}", errors.join(" | "))
        }
        e => e,
    }
}

/// A setting as a server option; `log_bin` is an option whose value names files, so
/// on/off turn the binlog on (default name) or off.
pub(super) fn option(key: &str, value: &str) -> String {
    match (key, value.to_ascii_lowercase().as_str()) {
        ("log_bin" | "log-bin", "on" | "1" | "true") => "--log-bin".into(),
        ("log_bin" | "log-bin", "off" | "0" | "false") => "--skip-log-bin".into(),
        _ => format!("--{key}={value}"),
    }
}
