//! Every managed server answers on `localhost` whichever stack a client tries first: on
//! 127.0.0.1 and on ::1, at the port dbrace hands out, under disk and ram, from the
//! machine's binaries and from an image. A user's command (here the engines' own CLI
//! clients, as a test suite's would) dials `[::1]` and `localhost` under `dbrace exec`.
//! The mongo stand-in (SecantusDB) binds one address, so mongo is not among them.

mod common;

use common::Sandbox;
use common::docker::{MARIADB_IMAGE, PG_IMAGE, REDIS_IMAGE, require_docker};

/// A shell script that fails unless the engine's client reaches the server on ::1 (and
/// the server sees it come from ::1) and on `localhost`.
fn dial(engine: &str) -> &'static str {
    match engine {
        "postgres" => {
            r#"set -e
[ "$(psql -h ::1 -tAc 'select inet_client_addr()')" = "::1" ]
[ "$(psql -h localhost -tAc 'select 1')" = "1" ]"#
        }
        "mysql" => {
            r#"set -e
q() { mysql -h "$1" -P "$MYSQL_TCP_PORT" -u "$MYSQL_USER" -N -e 'select current_user()' "$MYSQL_DATABASE"; }
[ "$(q ::1)" = "$MYSQL_USER@::1" ]
q localhost | grep -q "^$MYSQL_USER@""#
        }
        "redis" => {
            r#"set -e
rest=${REDIS_URL#*://default:}; pw=${rest%%@*}; port=${rest#*@*:}; port=${port%%/*}
for host in ::1 localhost; do
  [ "$(redis-cli -h "$host" -p "$port" --no-auth-warning -a "$pw" ping)" = PONG ]
done"#
        }
        other => panic!("no client for {other}"),
    }
}

/// `dbrace exec` of `engine` under disk and ram with `extra` flags, its command dialing
/// both loopbacks; every run must succeed.
fn reached_on_both_loopbacks(engine: &str, extra: &[&str]) {
    assert!(std::net::TcpListener::bind("[::1]:0").is_ok(), "this machine has no IPv6 loopback (::1) to test");
    let sb = Sandbox::new();
    let base = ["exec", "-q", "-e", engine, "-p", "disk,ram", "-r", "1", "--warmup", "0"];
    let a = sb.cmd(&base).args(extra).args(["--", "sh", "-c", dial(engine)]).assert();
    let out = a.get_output();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{engine} {extra:?}: {text}");
    assert!(!text.contains("FAILED"), "{text}");
}

#[test]
fn native_servers_answer_on_both_loopbacks() {
    for engine in ["postgres", "mysql", "redis"] {
        reached_on_both_loopbacks(engine, &[]);
    }
}

#[test]
fn containers_answer_on_both_loopbacks() {
    require_docker();
    for image in [PG_IMAGE, MARIADB_IMAGE, REDIS_IMAGE] {
        let engine = image.split_once('=').unwrap().0;
        reached_on_both_loopbacks(engine, &["--launcher", "docker", "--image", image]);
    }
}
