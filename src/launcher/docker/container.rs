//! One server container: `docker run` attached, as a child of ours in its own process
//! group (a Ctrl-C at the terminal reaches dbrace, not it), its output the server's log;
//! `docker rm -f -v` when dropped, then the named volumes it ran on.

use super::cli::docker;
use crate::error::Result;
use crate::launcher::container::Network;
use crate::launcher::usage;
use crate::launcher::{Container, Mount, Recipe};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A running container and the `docker run` attached to it.
pub struct Running {
    name: String,
    child: Child,
    log: PathBuf,
    /// Where `docker run` writes the container's full id, which its control group is
    /// named by; the id, once read.
    cidfile: PathBuf,
    id: OnceLock<String>,
    /// Held until the container is removed (fields drop after `drop`), then removed.
    _volumes: Vec<Arc<super::Volume>>,
}

/// Where `docker run` writes container `name`'s id: beside its log.
fn cidfile(name: &str, recipe: &Recipe) -> PathBuf {
    recipe.dir.join(format!("{name}.cid"))
}

/// `docker run`'s arguments for `c` as `recipe` says: name, owner label, the file for its
/// id, network, the recipe's user, the mounts (the socket directory's last), the
/// contract's variables, the image and its arguments.
fn run_args(name: &str, c: &Container, recipe: &Recipe) -> Vec<OsString> {
    let mut a: Vec<OsString> = ["run", "--rm", "--sig-proxy=false", "--network", c.network.mode(), "--name", name]
        .iter()
        .map(OsString::from)
        .collect();
    let owner = crate::instance::datadir::owner_line(std::process::id());
    a.push("--label".into());
    a.push(format!("{}={owner}", super::name::OWNER_LABEL).into());
    a.push("--cidfile".into());
    a.push(cidfile(name, recipe).into());
    let (uid, gid) = super::layout::ids(recipe.server.user.as_ref());
    // As dbrace's run-as user, so what it writes into a bind mount stays removable.
    a.push("--user".into());
    a.push(format!("{uid}:{gid}").into());
    if let Network::Publish(port) = c.network {
        // The host side on loopback alone: `-p PORT:PORT` would publish on every address.
        a.push("--publish".into());
        a.push(format!("127.0.0.1:{port}:{port}").into());
    }
    let socket = match &c.network {
        Network::Host | Network::Publish(_) => None,
        Network::None { dir, target } => Some(Mount::Bind { source: dir.clone(), target: target.clone() }),
    };
    for m in c.mounts.iter().chain(&socket) {
        match m {
            Mount::Tmpfs { target, bytes } => {
                a.push("--tmpfs".into());
                a.push(format!("{target}:rw,size={bytes},uid={uid},gid={gid},mode=0700").into());
            }
            Mount::Bind { source, target } => {
                let mut v = OsString::from("type=bind,source=");
                v.push(source);
                v.push(format!(",target={target}"));
                a.push("--mount".into());
                a.push(v);
            }
            Mount::Volume { volume, target } => {
                a.push("--mount".into());
                // The volume holds our data alone, not a copy of the image's files there.
                a.push(format!("type=volume,source={},target={target},volume-nocopy", volume.name()).into());
            }
        }
    }
    // Names only: docker takes the values from its own environment, so a password is
    // never in an argv that `ps` shows to every user.
    for (k, _) in &c.env {
        a.push("--env".into());
        a.push(k.into());
    }
    a.extend(c.resources.iter().map(OsString::from));
    a.push(c.image.clone().into());
    a.extend(c.args.iter().cloned());
    a
}

impl Running {
    /// Start `c`, its output in `server.log` of the recipe's instance directory.
    pub fn start(c: &Container, recipe: &Recipe) -> Result<Running> {
        let name = super::name::next_name();
        let log = recipe.dir.join("server.log");
        let out = std::fs::File::create(&log).map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| failed!("cannot create {}: {e}", log.display()))?;
        let mut cmd = Command::new("docker");
        cmd.args(run_args(&name, c, recipe))
            .envs(c.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        crate::platform::process::new_group(&mut cmd);
        let child = cmd.spawn().map_err(|e| bad_input!("--launcher docker: cannot run docker: {e}"))?;
        let volumes = c
            .mounts
            .iter()
            .filter_map(|m| match m {
                Mount::Volume { volume, .. } => Some(volume.clone()),
                _ => None,
            })
            .collect();
        let cidfile = cidfile(&name, recipe);
        Ok(Running { name, child, log, cidfile, id: OnceLock::new(), _volumes: volumes })
    }

    /// The container's full id, once `docker run` has written it.
    fn id(&self) -> Option<&str> {
        if let Some(id) = self.id.get() {
            return Some(id);
        }
        let text = std::fs::read_to_string(&self.cidfile).ok()?;
        let id = text.trim();
        // Not yet, or not yet whole.
        if id.len() != 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(self.id.get_or_init(|| id.to_string()))
    }
}

impl crate::launcher::Running for Running {
    fn exit_status(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("container {}: docker run {status}", self.name)),
            _ => None,
        }
    }
    fn exited(&self) -> bool {
        crate::launcher::exited(&self.child)
    }
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
    fn log_path(&self) -> &Path {
        &self.log
    }
    /// Its processes by their control group: their storage bytes from /proc, and the
    /// group's own CPU time where its files are found (the processes' otherwise).
    fn usage(&self) -> Option<crate::counters::Usage> {
        let id = self.id()?;
        let mut used = usage::usage(&usage::Processes::Cgroup(id.to_string()))?;
        if let Some(cpu) = super::cgroup::cpu_s(Path::new(super::cgroup::ROOT), id) {
            used.cpu_s = Some(cpu);
        }
        Some(used)
    }
    fn processes(&self) -> Option<usage::Processes> {
        Some(usage::Processes::Cgroup(self.id()?.to_string()))
    }
    fn stop(&mut self, signal: i32, grace: Duration) -> Result<()> {
        let out = docker(&["kill", "--signal", &signal.to_string(), &self.name])?;
        if !out.status.success() && !crate::launcher::exited(&self.child) {
            return Err(failed!("cannot signal container {}: {}", self.name, super::cli::first_line(&out)));
        }
        let start = Instant::now();
        while !crate::launcher::exited(&self.child) {
            if start.elapsed() > grace {
                return Err(failed!("container {} did not stop within {} s", self.name, grace.as_secs()));
            }
            crate::signals::check()?;
            std::thread::sleep(Duration::from_millis(20));
        }
        match self.child.wait() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(failed!("container {} stopped uncleanly: docker run {s}", self.name)),
            Err(e) => Err(failed!("container {}: {e}", self.name)),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A throwaway server's data goes with it: no clean shutdown to wait for.
        let _ = docker(&["rm", "-f", "-v", &self.name]);
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.cidfile);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::user::RunAs;
    use crate::launcher::Step;
    use crate::launcher::container::TcpPath;

    #[test]
    fn run_args_name_label_user_mounts_env_then_image_and_server_arguments() {
        let user = RunAs { name: "postgres".into(), uid: 101, gid: 104 };
        let c = Container {
            image: "postgres:17".into(),
            env: vec![("POSTGRES_USER".into(), "dbrace".into())],
            args: vec!["-c".into(), "fsync=off".into()],
            mounts: vec![
                Mount::Tmpfs { target: "/var/lib/postgresql/data".into(), bytes: 1 << 30 },
                Mount::Bind { source: "/var/tmp/d/pg_wal".into(), target: "/var/lib/postgresql/wal".into() },
            ],
            network: Network::Host,
            resources: vec!["--shm-size".into(), "256m".into()],
        };
        let recipe = Recipe {
            server: Step::new("postgres", Some(&user)),
            dir: "/var/tmp/d".into(),
            stop_signal: crate::platform::signal::INT,
            death_signal: crate::platform::signal::QUIT,
            container: Some(c.clone()),
        };
        let args: Vec<String> =
            run_args("dbrace-1-1", &c, &recipe).iter().map(|a| a.to_string_lossy().into()).collect();
        let text = args.join(" ");
        assert!(
            text.starts_with("run --rm --sig-proxy=false --network host --name dbrace-1-1 --label org.dbrace.owner=")
        );
        assert!(text.contains(" --cidfile /var/tmp/d/dbrace-1-1.cid "), "{text}");
        assert!(text.contains(" --user 101:104 "), "{text}");
        assert!(
            text.contains(" --tmpfs /var/lib/postgresql/data:rw,size=1073741824,uid=101,gid=104,mode=0700 "),
            "{text}"
        );
        assert!(text.contains(" --mount type=bind,source=/var/tmp/d/pg_wal,target=/var/lib/postgresql/wal "), "{text}");
        assert!(text.ends_with(" --env POSTGRES_USER --shm-size 256m postgres:17 -c fsync=off"), "{text}");
    }

    #[test]
    fn a_socket_only_container_has_no_network_and_its_socket_directory_mounted() {
        let c = Container {
            image: "redis:7".into(),
            env: Vec::new(),
            args: vec!["/etc/dbrace/redis.conf".into()],
            mounts: vec![Mount::Tmpfs { target: "/data".into(), bytes: 1 << 20 }],
            network: Network::None { dir: "/var/tmp/d/sock".into(), target: "/run/dbrace".into() },
            resources: Vec::new(),
        };
        let recipe = Recipe {
            server: Step::new("redis-server", None),
            dir: "/var/tmp/d".into(),
            stop_signal: crate::platform::signal::TERM,
            death_signal: crate::platform::signal::TERM,
            container: Some(c.clone()),
        };
        let args: Vec<String> =
            run_args("dbrace-1-2", &c, &recipe).iter().map(|a| a.to_string_lossy().into()).collect();
        let text = args.join(" ");
        assert!(text.starts_with("run --rm --sig-proxy=false --network none --name dbrace-1-2 "), "{text}");
        assert!(!text.contains("host"), "{text}");
        let data = text.find(" --tmpfs /data:").unwrap();
        let sock = text.find(" --mount type=bind,source=/var/tmp/d/sock,target=/run/dbrace ").unwrap();
        assert!(data < sock && text.ends_with(" redis:7 /etc/dbrace/redis.conf"), "{text}");
        assert_eq!(c.network.socket("redis.sock"), Some("/var/tmp/d/sock/redis.sock".into()));
        assert_eq!(c.network.inside("redis.sock").as_deref(), Some("/run/dbrace/redis.sock"));
    }

    #[test]
    fn a_published_port_is_on_the_hosts_loopback_only() {
        let c = Container {
            image: "mariadb:11".into(),
            env: Vec::new(),
            args: vec!["--port=41234".into(), "--bind-address=0.0.0.0".into()],
            mounts: Vec::new(),
            network: Network::tcp(TcpPath::Publish).on(41234),
            resources: Vec::new(),
        };
        let recipe = Recipe {
            server: Step::new("mariadbd", None),
            dir: "/var/tmp/d".into(),
            stop_signal: crate::platform::signal::TERM,
            death_signal: crate::platform::signal::KILL,
            container: Some(c.clone()),
        };
        let args: Vec<String> =
            run_args("dbrace-1-3", &c, &recipe).iter().map(|a| a.to_string_lossy().into()).collect();
        let text = args.join(" ");
        assert!(text.starts_with("run --rm --sig-proxy=false --network bridge --name dbrace-1-3 "), "{text}");
        let publish: Vec<&str> = args.windows(2).filter(|w| w[0] == "--publish").map(|w| w[1].as_str()).collect();
        assert_eq!(publish, ["127.0.0.1:41234:41234"], "{text}");
        assert_eq!(c.network.binds(), ["0.0.0.0"]);
        assert_eq!(Network::tcp(TcpPath::Host).on(41234), Network::Host);
        assert_eq!(Network::Host.binds()[0], "127.0.0.1");
    }
}
