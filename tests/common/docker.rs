//! What the `--launcher docker` tests share: the local test images, the daemon check with
//! the fix, and the containers and volumes a dbrace process owns.

use std::process::Command;
use std::time::{Duration, Instant};

/// `--image` flags of the local test images (scripts/test-images).
pub const PG_IMAGE: &str = "postgres=dbrace-test/postgres:15";
/// The MariaDB test image, for the mysql engine.
pub const MARIADB_IMAGE: &str = "mysql=dbrace-test/mariadb:10.11";
/// The Redis test image.
pub const REDIS_IMAGE: &str = "redis=dbrace-test/redis:7";
/// The mongo test image: SecantusDB behind the official mongo image's contract.
pub const MONGO_IMAGE: &str = "mongo=dbrace-test/mongo:secantus";

/// Fail loudly, with the fix, unless a daemon answers and the test images are here.
pub fn require_docker() {
    let fix = "start one (apt-get install docker.io debootstrap; dockerd --bridge=none --iptables=false --ip6tables=false &) and build the images (scripts/test-images), or run scripts/test, which does both";
    let info = Command::new("docker").arg("info").output();
    assert!(info.is_ok_and(|o| o.status.success()), "the docker tests need a Docker daemon: {fix}");
    for flag in [PG_IMAGE, MARIADB_IMAGE, REDIS_IMAGE, MONGO_IMAGE] {
        let image = flag.split_once('=').unwrap().1;
        let found = Command::new("docker").args(["image", "inspect", image]).output().unwrap();
        assert!(found.status.success(), "the docker tests need the image {image}: {fix}");
    }
}

/// `docker ARGS`'s output lines; the command must succeed.
pub fn docker_lines(args: &[&str]) -> Vec<String> {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(out.status.success(), "docker {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// Names of the objects (`ps -a` or `volume ls`) whose owner label names dbrace process `pid`.
fn owned_by(pid: u32, list: &[&str]) -> Vec<String> {
    let format = "{{.Names}}\t{{.Label \"org.dbrace.owner\"}}";
    let format = if list[0] == "volume" { &format.replace(".Names", ".Name") } else { format };
    let mut args = list.to_vec();
    args.extend(["--filter", "label=org.dbrace.owner", "--format", format]);
    let owner = format!("{pid} ");
    docker_lines(&args)
        .into_iter()
        .filter_map(|l| l.split_once('\t').filter(|(_, o)| o.starts_with(&owner)).map(|(n, _)| n.to_string()))
        .collect()
}

/// The containers, running or not, of dbrace process `pid`.
pub fn containers_of(pid: u32) -> Vec<String> {
    owned_by(pid, &["ps", "-a"])
}

/// The named volumes of dbrace process `pid`.
pub fn volumes_of(pid: u32) -> Vec<String> {
    owned_by(pid, &["volume", "ls"])
}

/// Wait until `found` gives a value, at most 120 s.
pub fn wait_until<T>(what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = found() {
            return t;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Wait until `cond` holds, at most 120 s.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    wait_until(what, || cond().then_some(()))
}

/// After SIGKILL of dbrace process `pid`: wait until each `docker run` it had started has
/// made its container, so none can appear after a `dbrace clean` the test runs next.
pub fn settle_killed(pid: u32) {
    let prefix = format!("dbrace-{pid}-");
    wait_for("the killed run's containers to exist", || {
        let have = containers_of(pid);
        let argvs = std::fs::read_dir("/proc").unwrap().flatten().map(|p| {
            let argv = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&argv).into_owned()
        });
        let mut runs = argvs.filter(|a| a.starts_with("docker\0run\0"));
        runs.all(|a| a.split('\0').find(|w| w.starts_with(&prefix)).is_none_or(|n| have.iter().any(|h| h == n)))
    })
}
