//! A Node test suite (tests/node_suite/: the `pg` package from npm, installed by
//! scripts/test) whose configuration dials `localhost` at the port the project's Compose
//! file publishes, and `::1` as Node 17 on may: it passes under `dbrace exec --compose`
//! on every profile exec runs for PostgreSQL, the file's own `as-written` first.

mod common;

use common::Sandbox;
use common::docker::require_docker;
use std::path::Path;

#[test]
fn a_node_suite_dialing_localhost_passes_under_every_profile() {
    require_docker();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node_suite");
    assert!(
        suite.join("node_modules/pg").is_dir(),
        "the Node suite needs its packages: npm ci --prefix tests/node_suite (scripts/test runs it)"
    );
    let sb = Sandbox::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = sb.out("project");
    std::fs::create_dir_all(&dir).unwrap();
    let compose = dir.join("docker-compose.yml");
    std::fs::write(
        &compose,
        format!(
            "services:\n  db:\n    image: dbrace-test/postgres:15\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: app\n      POSTGRES_DB: shop\n    ports:\n      - \"{port}:5432\"\n    command: postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c random_page_cost=1.0\n    tmpfs: /var/lib/postgresql/data\n"
        ),
    )
    .unwrap();
    let config = dir.join("test.json");
    let json =
        format!(r#"{{"host": "localhost", "port": {port}, "user": "app", "password": "app", "database": "shop"}}"#);
    std::fs::write(&config, json).unwrap();
    let profiles = "as-written,disk,ram,async,nosync,ram-nosync,wal-ram";
    let mut cmd = sb.cmd(&["exec", "-q", "--compose", compose.to_str().unwrap(), "-p", profiles, "-r", "1"]);
    cmd.args(["--warmup", "0", "--format", "json", "--out", sb.out("exec.json").to_str().unwrap()]);
    let test_file = suite.join("orders.test.js");
    cmd.env("SUITE_CONFIG", &config);
    let a = cmd.args(["--", "node", "--test", test_file.to_str().unwrap()]).assert();
    let out = a.get_output();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    let r = common::read_json(&sb.out("exec.json"));
    let ran = r["profiles"].as_array().unwrap();
    let names: Vec<&str> = ran.iter().map(|p| p["profile"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, profiles.split(',').collect::<Vec<_>>(), "{r}");
    for p in ran {
        let runs = p["runs"].as_array().unwrap();
        assert!(!runs.is_empty() && runs.iter().all(|run| run["status"] == "ok"), "{p}");
    }
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}
