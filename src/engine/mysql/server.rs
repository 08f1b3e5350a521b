//! A MariaDB / MySQL server as every launcher runs it. Natively: `mariadb-install-db` (or
//! `mysqld --initialize-insecure`) once into a cached template, a copy of it per instance,
//! the server started with `--no-defaults` (so no /etc/mysql/my.cnf: never the system
//! server's port, socket or data). From an image that follows the official mariadb
//! image's contract: root's password through MARIADB_ROOT_PASSWORD, dbrace's database
//! through MARIADB_DATABASE (and their MYSQL_* names, which the mysql image reads), the
//! data in /var/lib/mysql. Either way the settings are `--key=value` arguments (given to
//! the image's init too, so init-time ones such as the page size hold), the redo log in a
//! directory of its own when the profile puts it apart, and the server is ready when root
//! logs in and finds networking as it was asked for: the image's temporary init server
//! runs with none.

use super::client::MyClient;
use super::endpoint::Endpoint;
use super::image::IMAGE;
use crate::engine::Machine;
use crate::error::Result;
use crate::instance::datadir::private_dir;
use crate::instance::user::RunAs;
use crate::launcher::{Contract, Described, Dir, File, Moved, NativeServer, NativeTemplate, Place, Spec};
use crate::profile::Profile;
use mysql_async::OptsBuilder;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The socket's file name in its directory.
const SOCKET: &str = "mysqld.sock";
/// The TLS files `certs::make` writes in the instance directory: CA, certificate, key.
const TLS_FILES: [&str; 3] = ["ca.crt", "server.crt", "server.key"];
/// Bump when the install options change, so old templates are not reused.
const TEMPLATE_VERSION: u32 = 1;
/// The database clients of a throwaway server use.
pub const DATABASE: &str = "dbrace";

/// Settings fixed when the data directory is created: a `--set` of one of these gets a
/// template of its own.
const INIT_ONLY: &[&str] =
    &["innodb_page_size", "innodb_data_file_path", "innodb_undo_tablespaces", "lower_case_table_names"];

/// A MariaDB / MySQL server for a profile, with its settings.
pub struct MyServer {
    spec: Spec,
    bin_dir: Option<PathBuf>,
    settings: Vec<(String, String)>,
    /// The `--set` values that shape a data directory: its template's too.
    init: Vec<String>,
}

impl MyServer {
    /// The server `profile` asks for on this machine, run with `settings`; with `+tls`
    /// the instance's certificate files must be made before it starts.
    pub fn new(profile: &Profile, machine: &Machine, settings: Vec<(String, String)>) -> MyServer {
        let mut dirs =
            vec![Dir { name: "data", location: profile.location, apart: false, target: IMAGE.data_dir, moved: None }];
        if let Some(w) = profile.wal.filter(|w| *w != profile.location) {
            let moved = Some(Moved { from: "ib_logfile0", link: false });
            dirs.push(Dir { name: "redo", location: w, apart: true, target: "/var/lib/mysql-redo", moved });
        }
        let init = init_options(&profile.settings);
        let mut options: Vec<&str> = init.iter().map(|o| o.trim_start_matches('-')).collect();
        if dirs.len() > 1 {
            options.insert(0, "redo");
        }
        let files = match profile.tls {
            true => TLS_FILES.map(|name| File { name, target: format!("/etc/dbrace/tls/{name}") }).to_vec(),
            false => Vec::new(),
        };
        let spec = Spec {
            engine: super::NAME,
            user: &super::USER,
            dirs,
            files,
            image: Contract {
                image: machine.image(super::NAME, IMAGE.default_image).to_string(),
                program: IMAGE.programs[0],
                stop_signal: crate::platform::signal::TERM,
                template: Some((options.join("-"), "data/mysql")),
                init_port: None,
                refuses: profile.tls.then(|| {
                    format!(
                        "profile '{}': mysql runs a throwaway server with TLS on the native launcher only; use --launcher native, or drop +tls",
                        profile.name
                    )
                }),
            },
            port: Some(IMAGE.port),
            socket_file: |_| SOCKET.to_string(),
            stop_signal: crate::platform::signal::TERM,
            death_signal: crate::platform::signal::KILL,
            within: Duration::from_secs(60),
        };
        MyServer { spec, bin_dir: machine.bin_dir(super::NAME).map(Path::to_path_buf), settings, init }
    }

    /// The server of any profile, for what does not depend on one.
    pub fn any(machine: &Machine) -> MyServer {
        MyServer::new(&Profile::builtin("disk").expect("disk is a built-in profile"), machine, Vec::new())
    }
}

impl Described for MyServer {
    type Login = Endpoint;
    type Ready = MyClient;

    fn spec(&self) -> &Spec {
        &self.spec
    }

    fn native(&self) -> Result<NativeServer<'_>> {
        let b = super::binaries::binaries(self.bin_dir.as_deref())?;
        let flavor = match b.flavor {
            super::binaries::Flavor::MariaDb => "mariadb",
            super::binaries::Flavor::MySql => "mysql",
        };
        let key: String = self
            .init
            .iter()
            .flat_map(|o| o.trim_start_matches('-').chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }))
            .collect();
        let dash = if key.is_empty() { "" } else { "-" };
        let options = &self.init;
        let template = NativeTemplate {
            name: format!("{flavor}-{}-v{TEMPLATE_VERSION}{dash}{key}", b.version),
            done: "mysql",
            init: Box::new({
                let b = b.clone();
                move |tmp: &Path, user: Option<&RunAs>| super::binaries::install_step(&b, user, options, tmp)
            }),
            failed: Box::new(move |out| {
                let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                let why = text.lines().rfind(|l| l.contains("ERROR")).or(text.lines().last()).unwrap_or("");
                let what = if options.is_empty() { String::new() } else { format!(" with {}", options.join(" ")) };
                failed!("creating a MariaDB/MySQL data directory{what} failed: {}", why.trim())
            }),
        };
        Ok(NativeServer { program: b.server.clone(), version: b.version, shown: b.server, template: Some(template) })
    }

    /// `--no-defaults` first: no my.cnf of the system's, ever. The data directory is
    /// deleted after the stop: nothing to flush, dump or load; not in a container, whose
    /// entrypoint passes its arguments to its bootstrap too, which then leaves a data
    /// directory its temporary server cannot open.
    fn native_args(&self, place: &Place) -> Result<Vec<OsString>> {
        // Made at the first start; a start again on another port finds it.
        let tmp = place.host.join("tmp");
        if !tmp.is_dir() {
            private_dir(&tmp, place.user.as_ref())?;
        }
        let a = [
            "--no-defaults".to_string(),
            format!("--datadir={}", place.dir(0).display()),
            format!("--tmpdir={}", tmp.display()),
            format!("--pid-file={}", place.host.join("mysqld.pid").display()),
            "--innodb-fast-shutdown=2".into(),
            "--innodb-buffer-pool-dump-at-shutdown=OFF".into(),
            "--innodb-buffer-pool-load-at-startup=OFF".into(),
        ];
        Ok(a.into_iter().map(OsString::from).collect())
    }

    fn args(&self, place: &Place) -> Result<Vec<OsString>> {
        let mut a: Vec<String> = Vec::new();
        if let Some(s) = place.socket(SOCKET) {
            a.push(format!("--socket={}", s.display()));
        }
        match place.networked {
            true => a.extend([format!("--port={}", place.port), format!("--bind-address={}", place.binds.join(","))]),
            false => a.push("--skip-networking".into()),
        }
        // MySQL's X plugin would listen on 33060 of every address; MariaDB has none (loose:
        // an unknown option is a warning, not an error).
        a.extend(["--skip-name-resolve".into(), "--loose-mysqlx=OFF".into()]);
        if self.spec.dirs.len() > 1 {
            a.push(format!("--innodb-log-group-home-dir={}", place.dir(1).display()));
        }
        if let [ca, cert, key] = &place.files[..] {
            a.extend([format!("--ssl-cert={}", cert.display()), format!("--ssl-key={}", key.display())]);
            a.extend([format!("--ssl-ca={}", ca.display()), "--require-secure-transport=ON".into()]);
        }
        a.extend(self.settings.iter().map(|(k, v)| option(k, v)));
        Ok(a.into_iter().map(OsString::from).collect())
    }

    fn login(&self, place: &Place) -> Endpoint {
        let at = match place.client_socket(SOCKET) {
            Some(path) => OptsBuilder::default().socket(Some(path.to_string_lossy())),
            None => OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(place.port),
        };
        Endpoint::new(at.user(Some("root")).pass(place.password.clone()))
    }

    fn ready(&self, root: &Endpoint, place: &Place) -> Option<MyClient> {
        let socket = place.client_socket(SOCKET);
        if socket.as_ref().is_some_and(|s| !s.exists()) {
            return None;
        }
        let mut c = MyClient::connect(root, false).ok()?;
        let want = if place.networked { "0" } else { "1" };
        let real = c.value("SELECT @@skip_networking").is_ok_and(|v| v.as_deref() == Some(want));
        real.then_some(c)
    }

    /// Root's password and dbrace's database, in both spellings (the mariadb image reads
    /// either, the mysql image only MYSQL_*).
    fn init_env(&self, password: &str) -> Vec<(String, String)> {
        IMAGE.account.init("root", password, Some(DATABASE))
    }

    fn failed(&self, log: &str, e: crate::error::Error) -> crate::error::Error {
        first_errors(e, log)
    }

    /// Where data and redo log really are: no setting says which filesystem.
    fn noted_natively(&self, _native: &NativeServer, dirs: &[PathBuf]) -> Vec<(String, String)> {
        let mut noted = vec![("datadir_fs".to_string(), crate::instance::location::fs_type(&dirs[0]))];
        let redo = dirs.get(1).unwrap_or(&dirs[0]).join("ib_logfile0");
        if let Ok(real) = std::fs::canonicalize(&redo) {
            let fs = crate::instance::location::fs_type(&real);
            noted.push(("redo_log".to_string(), format!("{} ({fs})", real.display())));
        }
        noted
    }
}

/// The `--set` values that shape the data directory, as `--key=value` options.
fn init_options(settings: &[(String, String)]) -> Vec<String> {
    settings
        .iter()
        .filter(|(k, _)| INIT_ONLY.contains(&k.replace('-', "_").as_str()))
        .map(|(k, v)| format!("--{k}={v}"))
        .collect()
}

/// A failed start told by the server's first `[ERROR]` lines, which name the cause (its
/// last lines only say it aborted).
fn first_errors(e: crate::error::Error, text: &str) -> crate::error::Error {
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
