//! `dbrace exec`: a real command (psql, mysql, redis-cli under sh) against real throwaway
//! servers, through the real binary.

mod common;

use common::{Sandbox, read_json};
use std::path::Path;
use std::time::{Duration, Instant};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_string).collect()
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The machine's own PostgreSQL, which trusts local TCP (scripts/test starts it).
const PG_URL: &str = "postgres://postgres:not-a-real-secret@127.0.0.1:5432/test";

#[test]
fn a_url_server_is_handed_to_the_command_as_it_is_with_a_fresh_database_per_run() {
    let sb = Sandbox::new();
    let (seen, out) = (sb.out("seen"), sb.out("exec.json"));
    let script = format!(
        r#"echo "$PGPORT|$PGDATABASE|$(psql -XqAtc 'create table t(x int); insert into t values (1); select count(*) from t')" >> {}"#,
        seen.display()
    );
    let mut a = sb.cmd(&["exec", "--url", PG_URL, "-r", "2", "--out", out.to_str().unwrap()]);
    let a = a.args(["--", "sh", "-c", &script]).assert().success();
    let stdout = text(&a.get_output().stdout);
    assert!(
        stdout.contains("the server at postgres://postgres:***@127.0.0.1:5432/test as it is configured"),
        "{stdout}"
    );
    let seen = lines(&seen);
    assert_eq!(seen.len(), 3, "a warm-up and two runs: {seen:?}");
    let mut dbs: Vec<&str> = seen.iter().map(|l| l.split('|').nth(1).unwrap()).collect();
    for l in &seen {
        // The table a run made is gone by the next: each run has a database of its own.
        assert!(l.starts_with("5432|dbrace_") && l.ends_with("|1"), "{l}");
    }
    dbs.dedup();
    assert_eq!(dbs.len(), 3, "{seen:?}");
    let kept = std::fs::read_to_string(&out).unwrap();
    assert!(!kept.contains("not-a-real-secret"), "the password in the results file");
    let file = read_json(&out);
    assert_eq!(file["options"]["url"], "postgres://postgres:***@127.0.0.1:5432/test");
    let left =
        std::process::Command::new("psql").args(["-XAtc", "SELECT datname FROM pg_database", PG_URL]).output().unwrap();
    let left = text(&left.stdout);
    assert!(dbs.iter().all(|d| !left.lines().any(|l| l == *d)), "a run's database was left: {left}");
}

#[test]
fn two_profiles_timed_with_the_connection_in_the_commands_environment() {
    let sb = Sandbox::new();
    let seen = sb.out("seen");
    let out = sb.out("exec.json");
    // The command reports what it was handed, and what the server it reached says: through
    // libpq's variables, and through DATABASE_URL alone.
    let script = format!(
        r#"echo "$DBRACE_PROFILE|$PGHOST|$PGPORT|$PGUSER|$PGDATABASE|$PGPASSWORD|$DATABASE_URL|$(psql -XAtc 'show fsync')|$(env -u PGHOST -u PGPORT -u PGUSER -u PGPASSWORD -u PGDATABASE psql -XAt "$DATABASE_URL" -c 'select current_user')" >> {}"#,
        seen.display()
    );
    let args = ["exec", "-q", "-p", "disk,ram-nosync", "-r", "2", "--format", "json", "--out", out.to_str().unwrap()];
    let a = sb.cmd(&args).args(["--", "sh", "-c", &script]).assert().success();
    let stdout: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();

    // One warm-up and two timed runs per profile, in rounds of both in a random order.
    let seen = lines(&seen);
    assert_eq!(seen.len(), 6, "{seen:?}");
    let order: Vec<&str> = seen.iter().map(|l| l.split('|').next().unwrap()).collect();
    for round in order.chunks(2) {
        let mut both = round.to_vec();
        both.sort();
        assert_eq!(both, ["disk", "ram-nosync"], "{order:?}");
    }
    let mut passwords = Vec::new();
    for l in &seen {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!((f[1], f[3], f[4]), ("127.0.0.1", "dbrace", "postgres"), "{l}");
        assert_ne!(f[2], "5432", "a throwaway server must never take the system's port: {l}");
        assert!(f[5].len() >= 16, "a random password: {l}");
        assert_eq!(f[6], format!("postgresql://dbrace:{}@127.0.0.1:{}/postgres", f[5], f[2]));
        assert_eq!(f[7], if f[0] == "disk" { "on" } else { "off" }, "the profile's server: {l}");
        assert_eq!(f[8], "dbrace", "DATABASE_URL alone reaches the server: {l}");
        passwords.push(f[5].to_string());
    }
    // A fresh server per run: a port and a password of its own each time.
    passwords.sort();
    passwords.dedup();
    assert_eq!(passwords.len(), 6);

    let file = read_json(&out);
    for r in [&file, &stdout] {
        assert_eq!(r["kind"], "exec");
        assert_eq!(r["status"], "complete");
        let profiles = r["profiles"].as_array().unwrap();
        let names: Vec<&str> = profiles.iter().map(|p| p["profile"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["disk", "ram-nosync"]);
        for p in profiles {
            let runs = p["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 3);
            assert_eq!(runs.iter().filter(|r| r["warmup"] == true).count(), 1);
            for run in runs {
                assert_eq!(run["status"], "ok", "{run}");
                assert!(run["wall_s"].as_f64().unwrap() > 0.0);
                assert!(run["server_start_s"].as_f64().unwrap() > 0.0, "a fresh server per run");
            }
            assert!(p["settings"]["fsync"].is_string(), "settings read back: {p}");
        }
        let summary = r["summary"]["profiles"].as_array().unwrap();
        assert_eq!(summary.iter().map(|p| p["runs"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 2]);
        assert!(summary[0]["versus"].is_null() && summary[1]["versus"]["speedup"]["value"].as_f64().unwrap() > 0.0);
        // Two runs a side can never be significant: said so, not dressed up.
        assert_eq!(summary[1]["versus"]["verdict"], "too-few-runs");
    }
    let kept = std::fs::read_to_string(&out).unwrap();
    for pw in &passwords {
        assert!(!kept.contains(pw.as_str()), "a password in the results file");
    }
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    // `dbrace report` reads `run` files, and says what this one is.
    let a = sb.cmd(&["report", out.to_str().unwrap()]).assert().code(2);
    assert!(text(&a.get_output().stderr).contains("holds the runs of `dbrace exec`"));
}

#[test]
fn the_table_reports_as_hyperfine_and_a_failing_run_is_shown_not_averaged() {
    let sb = Sandbox::new();
    let script = r#"echo "output of $DBRACE_PROFILE"; [ "$DBRACE_PROFILE" = disk ] || exit 7"#;
    let base = ["exec", "-e", "redis", "-p", "disk,ram", "-r", "2", "--warmup", "0"];
    let a = sb.cmd(&base).args(["--", "sh", "-c", script]).assert().code(1);
    let (stdout, stderr) = (text(&a.get_output().stdout), text(&a.get_output().stderr));
    assert!(stdout.contains("Profile disk: redis"), "{stdout}");
    assert!(stdout.contains("Time (mean ± σ):") && stdout.contains("Range (min … max):"), "{stdout}");
    assert!(stdout.contains("2 runs"), "{stdout}");
    assert!(stdout.contains("FAILED 2 of 2 runs (not in the statistics): #1 exit code 7, #2 exit code 7"), "{stdout}");
    assert!(stdout.contains("    | output of ram"), "the tail of the failed run's output: {stdout}");
    assert!(!stdout.contains("output of disk"), "a successful run's output is not shown: {stdout}");
    assert!(stderr.contains("2 of 4 timed runs failed"), "{stderr}");
    assert!(stderr.contains("ram #2: FAILED: exit code 7"), "{stderr}");

    // --ignore-failure: the same report, exit 0.
    let a = sb.cmd(&base).args(["--ignore-failure", "--", "sh", "-c", script]).assert().success();
    assert!(text(&a.get_output().stdout).contains("FAILED 2 of 2 runs"));

    // A warm-up that fails stops the exec at once, with the output's end.
    let a = sb.cmd(&["exec", "-e", "redis", "-p", "disk", "--", "sh", "-c", "echo broken; exit 3"]).assert().code(1);
    let stderr = text(&a.get_output().stderr);
    assert!(stderr.contains("| broken") && stderr.contains("warm-up run under disk failed"), "{stderr}");
    assert!(sb.no_servers(&["redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn a_hanging_command_is_stopped_with_its_whole_group_at_the_timeout() {
    let sb = Sandbox::new();
    let pidfile = sb.out("pid");
    let script = format!("sleep 60 & echo $! > {}; wait", pidfile.display());
    let start = Instant::now();
    let a = sb
        .cmd(&["exec", "-e", "redis", "-p", "ram", "-r", "1", "--warmup", "0", "--timeout", "0.5s"])
        .args(["--", "sh", "-c", &script])
        .assert()
        .code(1);
    assert!(start.elapsed() < Duration::from_secs(20));
    let stdout = text(&a.get_output().stdout);
    assert!(stdout.contains("#1 timed out after 0."), "{stdout}");
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(stat.is_empty() || stat.contains(") Z"), "the command's background sleep survived: {stat}");
    assert!(sb.no_servers(&["redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn bad_input_exits_2_before_any_server_starts() {
    let sb = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["exec", "-p", "disk"], "no command given; put it after --"),
        (&["exec", "-p", "disk", "--", "no-such-command-dbrace", "-x"], "'no-such-command-dbrace' not found on PATH"),
        (&["exec", "--prepare", "no-such-migrate up", "--", "true"], "--prepare 'no-such-migrate' not found"),
        (&["exec", "-p", "disk,fast", "--", "true"], "unknown profile 'fast'"),
        (&["exec", "-e", "memory", "--", "true"], "memory has no server to hand to a command"),
        (&["exec", "-e", "sqlite", "-p", "disk,nosync", "--", "true"], "for sqlite, exec and serve take disk and ram"),
        (&["exec", "-p", "unlogged", "--", "true"], "for postgres use ram-nosync"),
        (&["exec", "-e", "redis", "--setup", "schema.sql", "--", "true"], "redis takes no --setup (it is SQL for"),
        (&["exec", "--setup", "/no/such/schema.sql", "--", "true"], "cannot read --setup /no/such/schema.sql"),
        (&["exec", "--port", "0", "--", "true"], "--port"),
        (&["exec", "--url", "oracle://127.0.0.1/x", "--", "true"], "no engine speaks 'oracle://'"),
        (&["exec", "--url", PG_URL, "-p", "ram", "--", "true"], "as it is (one profile, disk): drop --profile"),
        (&["exec", "--url", PG_URL, "--port", "7000", "--", "true"], "drop --port, --user, --password"),
        (&["exec", "--url", PG_URL, "-e", "mysql", "--", "true"], "drop --engine"),
        (&["serve", "oracle"], "unknown engine 'oracle'"),
        (&["serve", "postgres", "-p", "fast"], "unknown profile 'fast'"),
    ];
    for (args, want) in cases {
        let a = sb.cmd(args).timeout(Duration::from_secs(30)).assert().code(2);
        let stderr = text(&a.get_output().stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        // One line, and no server announced (as root every start says whom it runs as).
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    assert!(sb.no_servers(&["postgres", "redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn a_taken_port_is_refused_by_exec_and_serve_naming_it() {
    let sb = Sandbox::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for args in [vec!["exec", "--port", &port, "--", "true"], vec!["serve", "postgres", "--port", &port]] {
        let a = sb.cmd(&args).timeout(Duration::from_secs(30)).assert().code(2);
        let stderr = text(&a.get_output().stderr);
        assert!(stderr.contains(&format!("port {port} on localhost is taken")), "{stderr}");
    }
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty());
}

#[test]
fn port_user_password_and_database_make_the_server_answer_where_a_suite_looks() {
    let sb = Sandbox::new();
    let schema = sb.out("schema.sql");
    std::fs::write(&schema, "CREATE TABLE items (id int PRIMARY KEY);\nINSERT INTO items VALUES (1), (2);\n").unwrap();
    let port = free_port().to_string();
    let count = sb.out("count");
    let out = sb.out("exec.json");
    // The suite hard-codes its connection: no PG* variable is read.
    let url = format!("postgresql://app:s3cr%20et@127.0.0.1:{port}/shop");
    let suite = format!(
        "env -u PGHOST -u PGPORT -u PGUSER -u PGPASSWORD -u PGDATABASE -u DATABASE_URL psql -XAt '{url}' -c 'select count(*) from items' >> {}",
        count.display()
    );
    let args = [
        "exec",
        "-q",
        "-p",
        "ram-nosync",
        "-r",
        "2",
        "--warmup",
        "0",
        "--port",
        &port,
        "--user",
        "app",
        "--password",
        "s3cr et",
        "--database",
        "shop",
        "--setup",
        schema.to_str().unwrap(),
        "--prepare",
        "psql -XAtc 'insert into items values (3)'",
        "--out",
        out.to_str().unwrap(),
    ];
    sb.cmd(&args).args(["--", "sh", "-c", &suite]).assert().success();
    // Setup (2 rows) and prepare (1 row) on each fresh server, before each run.
    assert_eq!(lines(&count), ["3", "3"]);
    let kept = std::fs::read_to_string(&out).unwrap();
    assert!(!kept.contains("s3cr et") && !kept.contains("s3cr%20et"), "the password in the results file");
    assert!(kept.contains("postgresql://app:***@127.0.0.1"), "the recorded command, redacted");
    let r = read_json(&out);
    assert!(r["profiles"][0]["runs"][0]["prepare_s"].as_f64().unwrap() > 0.0);
    assert!(sb.no_servers(&["postgres"]) && sb.leftovers().is_empty());
}

#[test]
fn reuse_keeps_one_server_per_profile_and_prepares_it_once() {
    let sb = Sandbox::new();
    let (prep, runs) = (sb.out("prep"), sb.out("runs"));
    let prepare = format!("sh -c 'echo $DBRACE_PROFILE $REDIS_URL >> {}'", prep.display());
    let suite = format!("echo $DBRACE_PROFILE $REDIS_URL >> {}", runs.display());
    let args = ["exec", "-q", "-e", "redis", "-p", "disk,ram", "-r", "2", "--reuse", "--prepare", &prepare];
    sb.cmd(&args).args(["--", "sh", "-c", &suite]).assert().success();
    let prep = lines(&prep);
    assert_eq!(prep.len(), 2, "{prep:?}");
    let runs = lines(&runs);
    assert_eq!(runs.len(), 6, "one warm-up and two runs per profile: {runs:?}");
    for r in &runs {
        assert!(prep.contains(r), "every run of a profile meets its one prepared server: {r}");
    }
    assert!(sb.no_servers(&["redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn mysql_and_redis_hand_out_their_clients_variables() {
    let sb = Sandbox::new();
    let got = sb.out("got");
    let mysql = format!(
        r#"mysql -u "$MYSQL_USER" -Nse 'select @@innodb_flush_log_at_trx_commit, database()' "$MYSQL_DATABASE" >> {0}; echo "$DATABASE_URL" >> {0}"#,
        got.display()
    );
    sb.cmd(&["exec", "-q", "-e", "mysql", "-p", "ram-nosync", "-r", "1", "--warmup", "0"])
        .args(["--", "sh", "-c", &mysql])
        .assert()
        .success();
    let l = lines(&got);
    assert_eq!(l[0], "0\tdbrace", "{l:?}");
    assert!(l[1].starts_with("mysql://dbrace:") && l[1].ends_with("/dbrace"), "{l:?}");
    assert!(sb.no_servers(&["mariadbd", "mysqld"]) && sb.leftovers().is_empty());

    let got = sb.out("got-redis");
    let redis = format!(r#"redis-cli -u "$REDIS_URL" config get appendfsync | tail -1 >> {}"#, got.display());
    sb.cmd(&["exec", "-q", "-e", "redis", "-p", "nosync", "-r", "1", "--warmup", "0"])
        .args(["--", "sh", "-c", &redis])
        .assert()
        .success();
    assert_eq!(lines(&got), ["no"]);
    assert!(sb.no_servers(&["redis-server"]) && sb.leftovers().is_empty());
}

#[test]
fn a_signal_mid_exec_stops_the_command_and_the_server_and_leaves_nothing() {
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let sb = Sandbox::new();
        let pidfile = sb.out("pid");
        let script = format!("echo $$ > {}.tmp && mv {0}.tmp {0}; sleep 60", pidfile.display());
        let mut child = sb
            .spawn(&["exec", "-q", "-p", "disk", "-r", "3", "--warmup", "0", "--", "sh", "-c", &script])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !pidfile.exists() {
            assert!(start.elapsed() < Duration::from_secs(60), "the command never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!sb.no_servers(&["postgres"]), "a server runs while the command does");
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code));
        assert!(start.elapsed() < Duration::from_secs(30), "stopped promptly");
        let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(stat.is_empty() || stat.contains(") Z"), "the command survived: {stat}");
        assert!(sb.no_servers(&["postgres"]), "a server survived");
        assert!(sb.leftovers().is_empty(), "left behind: {:?}", sb.leftovers());
    }
}

#[test]
fn sqlite_hands_out_a_database_file_in_the_profiles_location() {
    let sb = Sandbox::new();
    let schema = sb.out("schema.sql");
    std::fs::write(&schema, "CREATE TABLE items (id int);\nINSERT INTO items VALUES (1), (2);\n").unwrap();
    let got = sb.out("got");
    let script = format!(
        r#"f="${{DATABASE_URL#sqlite:///}}"; echo "$DBRACE_PROFILE $f $(sqlite3 "$f" 'pragma journal_mode; select count(*) from items' | tr '\n' ' ')" >> {}"#,
        got.display()
    );
    let args = ["exec", "-q", "-e", "sqlite", "-p", "disk,ram", "-r", "1", "--warmup", "0", "--setup"];
    sb.cmd(&args).arg(&schema).args(["--", "sh", "-c", &script]).assert().success();
    let mut l = lines(&got);
    assert_eq!(l.len(), 2, "{l:?}");
    // The round ran its profiles in a random order.
    l.sort();
    for (line, dir) in l.iter().zip([sb.disk.path(), sb.ram.path()]) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(f[1].starts_with(dir.to_str().unwrap()) && f[1].ends_with(".db"), "{line}");
        assert_eq!(&f[2..], ["wal", "2"], "{line}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
