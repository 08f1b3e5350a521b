//! `dbrace serve`: a real throwaway server handed out on stdout, reached by the engine's own
//! client, stopped and removed on SIGTERM or Ctrl-C.

mod common;

use common::Sandbox;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Start `dbrace serve ARGS` and read what it prints: stdout ends once the connection is
/// printed, while the server stays up.
fn serve(sb: &Sandbox, args: &[&str]) -> (Child, String) {
    let mut child = sb.spawn(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    (child, out)
}

/// Send `signal`, and return the exit code and stderr.
fn stop(mut child: Child, signal: i32) -> (Option<i32>, String) {
    unsafe { libc::kill(child.id() as i32, signal) };
    let start = Instant::now();
    let status = child.wait().unwrap();
    assert!(start.elapsed() < Duration::from_secs(20), "stopped promptly");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.code(), err)
}

fn var<'a>(exports: &'a str, name: &str) -> &'a str {
    let line =
        exports.lines().find(|l| l.starts_with(&format!("export {name}="))).unwrap_or_else(|| panic!("{exports}"));
    line.split_once('=').unwrap().1.trim_matches('\'')
}

#[test]
fn serve_hands_out_a_url_psql_uses_and_sigterm_removes_everything() {
    let sb = Sandbox::new();
    let schema = sb.out("schema.sql");
    std::fs::write(&schema, "CREATE TABLE items (id int);\nINSERT INTO items VALUES (1), (2);\n").unwrap();
    let (child, exports) = serve(&sb, &["serve", "postgres", "--setup", schema.to_str().unwrap()]);
    let url = var(&exports, "DATABASE_URL");
    assert!(url.starts_with("postgresql://dbrace:") && url.contains("@127.0.0.1:"), "{exports}");
    for name in ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"] {
        assert!(!var(&exports, name).is_empty(), "{name}");
    }
    let psql = |sql: &str| {
        let o = Command::new("psql").args(["-XAt", url, "-c", sql]).env_remove("PGHOST").output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    assert_eq!(psql("select count(*) from items"), "2", "the setup was applied");
    assert_eq!(psql("show fsync"), "off", "ram-nosync, the default profile");
    assert!(psql("show data_directory").starts_with(sb.ram.path().to_str().unwrap()), "on the ram location");
    assert!(!sb.no_servers(&["postgres"]));
    let (code, stderr) = stop(child, libc::SIGTERM);
    assert_eq!(code, Some(0), "{stderr}");
    let ready: f64 = stderr.split("ready in ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    assert!(ready > 0.0 && ready < 10.0, "{stderr}");
    assert!(stderr.contains("postgresql://dbrace:***@127.0.0.1:"), "the password is not on stderr: {stderr}");
    assert!(stderr.contains("removed"), "{stderr}");
    assert!(sb.no_servers(&["postgres"]), "a server survived");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

#[test]
fn serve_as_json_with_the_users_account_and_ctrl_c() {
    let sb = Sandbox::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let p = port.to_string();
    let args =
        ["serve", "redis", "-p", "disk", "--format", "json", "--port", &p, "--user", "app", "--password", "pw 1"];
    let (child, out) = serve(&sb, &args);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let url = v["env"]["REDIS_URL"].as_str().unwrap();
    assert_eq!(url, format!("redis://app:pw%201@127.0.0.1:{port}/0"));
    assert_eq!((v["engine"].as_str(), v["profile"].as_str()), (Some("redis"), Some("disk")));
    let o = Command::new("redis-cli").args(["-u", url, "config", "get", "appendfsync"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().last(), Some("always"), "the disk profile's server");
    let (code, stderr) = stop(child, libc::SIGINT);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(sb.no_servers(&["redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn serve_fails_when_its_server_dies_under_it() {
    let sb = Sandbox::new();
    let (mut child, _) = serve(&sb, &["serve", "redis", "-p", "ram"]);
    let servers = common::servers_under(&["redis-server"], sb.ram.path());
    assert_eq!(servers.len(), 1, "{servers:?}");
    unsafe { libc::kill(servers[0].0, libc::SIGKILL) };
    let start = Instant::now();
    let status = child.wait().unwrap();
    assert!(start.elapsed() < Duration::from_secs(10));
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("the server exited"), "{err}");
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}
