//! `--compose`: a user's own Compose file (several services, a `.env`, interpolation, a
//! published port, a named volume, `depends_on`, a tmpfs, a command that turns
//! durability off, variables for the server and its init) as the source of `exec`'s servers, run in containers of the local test
//! images; and the file's mistakes refused in one line before anything starts.

mod common;

use common::docker::{containers_of, require_docker};
use common::{Sandbox, read_json};
use std::path::PathBuf;

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A project directory with `compose.yml` (its services' database published on `port`,
/// given through .env) and the .env beside it.
fn project(sb: &Sandbox, port: u16) -> PathBuf {
    let dir = sb.out("project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".env"), format!("DB_PORT={port}\nDB_PASSWORD='s3cret pw'\n")).unwrap();
    // Init scripts the image would run once: dbrace applies the SQL ones, in name order.
    std::fs::create_dir_all(dir.join("init")).unwrap();
    std::fs::write(dir.join("init/01-schema.sql"), "create table items (id serial primary key, name text);\n").unwrap();
    std::fs::write(dir.join("init/02-seed.sql"), "insert into items (name) values ('a'), ('b');\n").unwrap();
    std::fs::write(dir.join("init/03-note.sh"), "echo not run\n").unwrap();
    let file = dir.join("compose.yml");
    std::fs::write(
        &file,
        r#"version: "3.8"
services:
  db:
    image: dbrace-test/postgres:15
    container_name: shop-db
    environment:
      - POSTGRES_USER=app
      - POSTGRES_PASSWORD=${DB_PASSWORD}
      - POSTGRES_DB=${DB_NAME:-shop}
      - TZ=Europe/Paris
      - POSTGRES_INITDB_ARGS=--data-checksums
    command: postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40
    ports:
      - "127.0.0.1:${DB_PORT}:5432"
    tmpfs:
      - /var/lib/postgresql/data
    volumes:
      - pgdata:/var/lib/postgresql/data
      - ./init:/docker-entrypoint-initdb.d
  cache:
    image: dbrace-test/redis:7
    ports: ["6390:6379"]
  web:
    build: .
    depends_on: [db, cache]
volumes:
  pgdata:
"#,
    )
    .unwrap();
    file
}

#[test]
fn a_compose_service_races_as_written_and_under_each_profile_on_its_own_port() {
    require_docker();
    let sb = Sandbox::new();
    let port = free_port();
    let file = project(&sb, port);
    let seen = sb.out("seen");
    std::fs::create_dir_all(&seen).unwrap();
    // The suite as it always runs: its connection written in, not taken from dbrace.
    let suite = format!(
        "PGPASSWORD='s3cret pw' psql -h 127.0.0.1 -p {port} -U app -d shop -tAc \"select current_setting('fsync') || ' ' || current_setting('max_connections') || ' ' || current_setting('TimeZone') || ' ' || current_setting('data_checksums') || ' ' || current_user || ' ' || (select count(*) from items)\" > {}/$DBRACE_PROFILE",
        seen.display()
    );
    let out = sb.out("exec.json");
    let mut child = sb
        .spawn(&["exec", "--compose", file.to_str().unwrap(), "--service", "db", "-p", "disk,ram,nosync"])
        .args(["-r", "1", "--warmup", "0", "-q", "--out", out.to_str().unwrap(), "--", "sh", "-c", &suite])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    assert!(child.wait().unwrap().success());
    let read = |p: &str| std::fs::read_to_string(seen.join(p)).unwrap_or_default().trim().to_string();
    assert_eq!(read("as-written"), "off 40 Europe/Paris on app 2", "the file's own tuning");
    assert_eq!(
        read("disk"),
        "on 40 Europe/Paris on app 2",
        "the profile's durability, the command's other settings, the environment"
    );
    assert_eq!(read("ram"), "on 40 Europe/Paris on app 2");
    assert_eq!(read("nosync"), "off 40 Europe/Paris on app 2");
    let r = read_json(&out);
    let names: Vec<&str> =
        r["profiles"].as_array().unwrap().iter().map(|p| p["profile"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["as-written", "disk", "ram", "nosync"], "as-written first: the baseline");
    let as_written = &r["profiles"][0]["profile"];
    assert_eq!(as_written["location"], "ram", "the file's tmpfs on the data directory: {as_written}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("s3cret"), "the file's password is kept out of the results");
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

/// `exec --compose` over `yaml` (in a project of its own, with `.env` text `env`) and
/// `args`: its one-line refusal.
fn refused(yaml: &str, env: &str, args: &[&str]) -> String {
    let sb = Sandbox::new();
    let dir = sb.out("p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".env"), env).unwrap();
    let file = dir.join("compose.yml");
    std::fs::write(&file, yaml).unwrap();
    let mut cmd = sb.cmd(&["exec", "--compose", file.to_str().unwrap()]);
    let out = cmd.args(args).args(["-r", "1", "--", "true"]).assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(sb.leftovers().is_empty());
    err
}

const TWO: &str = "services:\n  db: {image: 'postgres:16', ports: ['15999:5432']}\n  cache: {image: 'redis:7'}\n  web: {image: 'node:20'}\n";

#[test]
fn the_files_mistakes_are_one_line_each_before_anything_starts() {
    let e = refused("services:\n  web: {image: 'node:20'}\n", "", &[]);
    assert!(e.contains("no database service") && e.contains("web"), "{e}");
    let e = refused(TWO, "", &[]);
    assert!(e.contains("several database services") && e.contains("--service"), "{e}");
    let e = refused(TWO, "", &["--service", "web"]);
    assert!(e.contains("image node:20") && e.contains("--engine"), "{e}");
    let e = refused("services:\n  db: [unclosed\n", "", &[]);
    assert!(e.contains("not valid YAML"), "{e}");
    let e = refused("services:\n  db: {image: 'postgres:${PG_TAG}'}\n", "", &[]);
    assert!(e.contains("PG_TAG") && e.contains(".env"), "{e}");
    let e = refused("services:\n  db: {image: 'postgres:16', command: 'bash -c true'}\n", "", &[]);
    assert!(e.contains("services.db.command runs 'bash'"), "{e}");
    let e = refused(
        "services:\n  db: {image: 'dbrace-test/postgres:15', command: 'postgres -c no_such_setting=1'}\n",
        "",
        &[],
    );
    assert!(e.contains("no_such_setting"), "{e}");
    let sb = Sandbox::new();
    let out = sb.cmd(&["exec", "--service", "db", "--", "true"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("give the file with --compose"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let e = refused(
        "services:\n  db: {image: 'dbrace-test/postgres:15', ports: ['${P}:5432']}\n",
        &format!("P={port}\n"),
        &[],
    );
    assert!(e.contains(&port.to_string()), "{e}");
}

/// psql's answer to `sql` on the file's database at `port`, as the file's user.
fn psql(port: u16, sql: &str) -> String {
    let out = std::process::Command::new("psql")
        .env("PGPASSWORD", "s3cret pw")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "app", "-d", "shop", "-tAc", sql])
        .output()
        .expect("psql runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn run_races_the_service_and_serve_hands_it_out_as_written() {
    require_docker();
    let sb = Sandbox::new();
    let port = free_port();
    let file = project(&sb, port);
    let out = sb.out("run.json");
    let f = file.to_str().unwrap();
    sb.cmd(&["run", "-q", "--compose", f, "--service", "db", "-p", "disk", "-w", "insert-commit"])
        .args(["-r", "1", "-T", "0.3s", "--warmup", "0.1s", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells: Vec<(String, String, String)> = r["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = &c["repeats"][0]["settings"];
            (
                c["profile"]["name"].as_str().unwrap().into(),
                s["fsync"].as_str().unwrap_or("").into(),
                c["repeats"][0]["survives"].to_string(),
            )
        })
        .collect();
    assert_eq!(cells[0].0, "as-written");
    assert_eq!((cells[0].1.as_str(), cells[1].1.as_str()), ("off", "on"), "{cells:?}");
    assert!(cells[0].2.contains("nothing") && cells[1].2.contains("power-loss"), "{cells:?}");

    let mut child = sb
        .spawn(&["serve", "--compose", f, "--service", "db", "-p", "as-written"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut exports = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut exports).unwrap();
    assert!(exports.contains(&format!("PGPORT={port}")), "{exports}");
    assert_eq!(psql(port, "select current_setting('fsync') || ' ' || current_setting('max_connections')"), "off 40");
    let pid = child.id();
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    child.wait().unwrap();
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
    assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
}

/// What `client` (a shell command that prints what its server says; `{port}` is the
/// service's port) printed under `as-written` and `disk`, timed by `exec` on a Compose
/// file of one service, `service` (YAML, `{port}` its published port).
fn as_written_and_disk(service: &str, client: &str) -> (String, String) {
    require_docker();
    let sb = Sandbox::new();
    let port = free_port().to_string();
    let dir = sb.out("p");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("compose.yml");
    std::fs::write(&file, format!("services:\n{}", service.replace("{port}", &port))).unwrap();
    let seen = sb.out("seen");
    std::fs::create_dir_all(&seen).unwrap();
    let suite = format!("{} > {}/$DBRACE_PROFILE", client.replace("{port}", &port), seen.display());
    sb.cmd(&["exec", "-q", "--compose", file.to_str().unwrap(), "-p", "disk", "-r", "1", "--warmup", "0"])
        .args(["--", "sh", "-c", &suite])
        .assert()
        .success();
    let read = |p: &str| std::fs::read_to_string(seen.join(p)).unwrap_or_default().trim().to_string();
    (read("as-written"), read("disk"))
}

#[test]
fn a_redis_service_without_a_password_is_reached_without_one() {
    let service = "  cache:\n    image: dbrace-test/redis:7\n    ports: ['{port}:6379']\n";
    let (as_written, disk) = as_written_and_disk(service, "redis-cli -p {port} config get appendonly | tail -1");
    assert_eq!(as_written, "no", "the image's own: no append-only file");
    assert_eq!(disk, "yes");
}

#[test]
fn a_mongo_service_is_reached_as_its_root_account() {
    let service = "  mongo:\n    image: dbrace-test/mongo:secantus\n    environment:\n      MONGO_INITDB_ROOT_USERNAME: admin\n      MONGO_INITDB_ROOT_PASSWORD: pw\n    ports: ['{port}:27017']\n";
    // The suite's own driver, its URL written in as the file's clients would have it.
    let client = "/opt/dbrace-test-venv/bin/python -c \"import pymongo; c = pymongo.MongoClient('mongodb://admin:pw@127.0.0.1:{port}/?authSource=admin', serverSelectionTimeoutMS=5000); c.shop.items.insert_one({'n': 1}); print(c.shop.items.count_documents({}))\"";
    assert_eq!(as_written_and_disk(service, client), ("1".into(), "1".into()));
}

#[test]
fn a_mariadb_service_keeps_its_account_and_its_commands_tuning_as_written() {
    let service = "  mysql:\n    image: dbrace-test/mariadb:10.11\n    environment:\n      MARIADB_USER: shop\n      MARIADB_PASSWORD: pw\n      MARIADB_DATABASE: shop\n      MARIADB_ROOT_PASSWORD: rootpw\n    command: ['--innodb-flush-log-at-trx-commit=0', '--max-connections=60']\n    ports: ['{port}:3306']\n";
    let sql = "select concat(@@innodb_flush_log_at_trx_commit, ' ', @@max_connections, ' ', database())";
    let client = format!("mysql -h 127.0.0.1 -P {{port}} -ushop -ppw shop -N -e \"{sql}\"");
    assert_eq!(as_written_and_disk(service, &client), ("0 60 shop".into(), "1 60 shop".into()));
}

/// A service written as public projects write them (an anchor merged in, extension
/// fields, a healthcheck, restart, labels, networks, and what its container gets): the
/// container of every cell gets its shm size, ulimits, CPUs and memory, recorded; the
/// keys dbrace leaves out are named on stderr.
#[test]
fn a_services_resources_reach_each_cells_container_and_the_rest_is_named() {
    require_docker();
    let sb = Sandbox::new();
    let dir = sb.out("p");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("compose.yml");
    let yaml = "x-pg: &pg\n  image: dbrace-test/postgres:15\n  environment: {POSTGRES_PASSWORD: pw}\n  restart: always\nservices:\n  db:\n    <<: *pg\n    x-team: data\n    healthcheck: {test: [CMD, pg_isready], interval: 2s}\n    labels: [tier=db]\n    networks: [back]\n    shm_size: 256m\n    ulimits: {nofile: {soft: 1024, hard: 2048}}\n    deploy: {resources: {limits: {cpus: '1', memory: 1g}}}\nnetworks:\n  back: {}\n";
    std::fs::write(&file, yaml).unwrap();
    let mut child = sb
        .spawn(&["serve", "--compose", file.to_str().unwrap(), "-p", "disk"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut line = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let name = containers_of(pid).pop().expect("the served container");
    let inspect = std::process::Command::new("docker")
        .args([
            "inspect",
            "--format",
            "{{.HostConfig.ShmSize}} {{.HostConfig.Ulimits}} {{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}",
            &name,
        ])
        .output()
        .unwrap();
    let host_config = String::from_utf8_lossy(&inspect.stdout).trim().to_string();
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    child.wait().unwrap();
    assert_eq!(host_config, "268435456 [map[Hard:2048 Name:nofile Soft:1024]] 1000000000 1073741824", "{err}");
    assert!(
        err.contains("every cell's container gets --shm-size 256m --ulimit nofile=1024:2048 --cpus 1 --memory 1g"),
        "{err}"
    );
    let left = err.lines().find(|l| l.contains("left out (dbrace starts")).unwrap_or_else(|| panic!("{err}"));
    assert!(["restart", "healthcheck", "labels", "networks"].iter().all(|k| left.contains(k)), "{left}");
    assert!(!left.contains("x-team"), "an extension is the file's own: {left}");
    assert!(containers_of(pid).is_empty(), "left behind: {:?}", containers_of(pid));
}
