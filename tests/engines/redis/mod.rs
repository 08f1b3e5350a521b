//! Redis in the conformance suite: throwaway servers from the machine's redis-server
//! (scripts/test installs it), the machine's own server on 127.0.0.1:6379 for `--url`,
//! whose data must come out untouched and without a key of ours left, and a
//! password-protected server of the test's own.

mod only;
mod own_server;
mod tls;

use crate::common::Sandbox;
use crate::conformance::managed::per_transaction;
use crate::conformance::{
    CounterChecks, EngineUnderTest, PasswordServer, Profiles, Settings, Tcp, Untouched, UrlTarget,
};
use own_server::{OwnServer, SECRET};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

conformance!(EngineUnderTest {
    name: "redis",
    server_process: &["redis-server"],
    require_binaries: require_binary,
    // Redis runs key-value workloads only: no tpcb.
    workload: "insert-commit",
    results_before_interrupt: true,
    stops_within: Duration::from_secs(10),
    mid_run_duration: "3s",
    profiles: Profiles {
        // No wal-ram: Redis keeps its append-only file in its dir, so a separate log
        // location means nothing (only::wal_ram_has_no_meaning_for_redis_and_says_why).
        profiles: "disk,ram,async,nosync,ram-nosync,unlogged",
        workloads: "insert-commit",
        cells: 6,
        each_repeat,
        read_back: profiles_read_back,
    },
    settings: Settings {
        run: "-p ram -w insert-commit --set maxmemory=64mb --sweep appendfsync=always,no -t 20 -r 1",
        read_back: |cells| {
            assert_eq!(cells.len(), 2);
            for (c, fsync) in cells.iter().zip(["always", "no"]) {
                let st = &c["repeats"][0]["settings"];
                assert_eq!(st["maxmemory"], (64u64 << 20).to_string(), "{st}");
                assert_eq!(st["appendfsync"], fsync, "{st}");
            }
        },
        refused: &[("appendfsync=sometimes", "appendfsync"), ("no-such-directive=1", "no-such-directive")],
    },
    // The password is in the config file only (0600, in a 0700 directory, gone now).
    tcp: Tcp { run: "-w insert-commit -c 2 -t 50", system_port: 6379, secret_words: &["requirepass"] },
    counters: CounterChecks { profiles: "disk,unlogged", check: append_only_file_per_set },
    url: UrlTarget {
        require_server: require_system_server,
        url: "redis://127.0.0.1:6379/0",
        // No --profile: of the default ones, those that need a server of dbrace's own are skipped.
        run: "-w insert-commit -c 2 -t 100 --warmup 0s -r 2",
        cells: 1,
        transactions: 200,
        each_repeat: |rep| assert_eq!(rep["settings"]["transport"], "tcp 127.0.0.1:6379"),
        check: |r, said| {
            // The default profiles a --url server cannot take are left out, without a note.
            assert!(!said.contains("skipping"), "{said}");
            let repeats = r["cells"][0]["repeats"].as_array().unwrap();
            let prefixes: Vec<&str> =
                repeats.iter().map(|rep| rep["settings"]["key_prefix"].as_str().unwrap()).collect();
            // The cell keeps its keys from one repeat to the next: one prefix of its own.
            assert!(prefixes[0].starts_with("dbrace:") && prefixes[0] == prefixes[1], "{prefixes:?}");
        },
        // The machine's server has no password: the password server checks that it stays hidden.
        password: None,
        server_state: || format!("{} dbrace keys, DBSIZE {}", dbrace_keys(6379), cli(6379, &["DBSIZE"])),
        user_data: Some(plant_a_canary),
        mistake_args: &["-w", "insert-commit"],
        mistakes: &[
            (&["-e", "redis", "--url", "redis://127.0.0.1:1/0"], "cannot connect"),
            (&["-e", "redis", "--url", "redis://127.0.0.1:6379/0", "-p", "nosync"], "only disk"),
            (&["-e", "sqlite", "--url", "redis://127.0.0.1:6379/0"], "sqlite takes no --url"),
        ],
        secrets: &[SECRET],
        password_server,
    },
});

/// The append-only file grows by every SET as it came in (its bytes are the commands'
/// input, but for this reader's INFO); unlogged keeps none. Redis counts neither fsyncs nor
/// transactions.
fn append_only_file_per_set(profile: &str, k: &Value) {
    let f = &k["figures"];
    assert!(f["fsyncs"].is_null() && f["commits"].is_null(), "{profile}: {k}");
    let commands = k["server"]["total_commands_processed"].as_f64().unwrap();
    let n = k["server_transactions"].as_f64().unwrap();
    // One SET per transaction, the client's PING as it connected and the reader's INFO.
    assert!((1.0..=4.0).contains(&(commands - n)), "{profile}: {commands} commands for {n} transactions: {k}");
    if profile == "unlogged" {
        assert!(f["log_bytes"].is_null() && k["server"]["aof_current_size"].is_null(), "{profile}: {k}");
        return;
    }
    let log = per_transaction(k, "log_bytes").unwrap_or_else(|| panic!("{profile}: no log_bytes in {k}"));
    let input = k["server"]["total_net_input_bytes"].as_f64().unwrap() / n;
    assert!(log > 50.0 && (log - input).abs() * n < 100.0, "{profile}: {log} log bytes, {input} input per SET: {k}");
}

fn require_binary() {
    let found = Command::new("redis-server").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(found, "redis-server missing: run scripts/test, which installs it (apt-get install redis-server)");
}

/// The system server must be there: a missing server is a loud failure, not a skipped test.
fn require_system_server() {
    let ok = std::net::TcpStream::connect("127.0.0.1:6379").is_ok();
    assert!(
        ok,
        "no Redis on 127.0.0.1:6379: run scripts/test, which installs and starts it (apt-get install redis-server)"
    );
}

/// `redis-cli ARGS` against 127.0.0.1:`port`: its output, trimmed.
fn cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").args(["-h", "127.0.0.1", "-p", &port.to_string()]).args(args).output();
    let out = out.expect("redis-cli runs (apt-get install redis-tools)");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Keys dbrace writes on a --url server all start with `dbrace:`.
fn dbrace_keys(port: u16) -> usize {
    cli(port, &["--scan", "--pattern", "dbrace:*"]).lines().filter(|l| !l.is_empty()).count()
}

/// A key of the user's on the machine's server; the check finds it as it was and removes it.
fn plant_a_canary() -> Untouched {
    let canary = format!("dbrace-test-canary-{}", std::process::id());
    assert_eq!(cli(6379, &["SET", &canary, "keep"]), "OK");
    Box::new(move || {
        assert_eq!(cli(6379, &["GET", &canary]), "keep", "the user's key was touched");
        assert_eq!(cli(6379, &["DEL", &canary]), "1");
    })
}

fn each_repeat(rep: &Value) {
    // Keys counted on the server: one per committed SET (warm-up included), none lost.
    let detail = rep["verify"]["detail"].as_str().unwrap();
    let n: Vec<u64> = detail.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    assert!(n.len() == 2 && n[0] == n[1] && n[0] >= 100, "{detail}");
    assert!(rep["engine_version"].as_str().unwrap().chars().next().unwrap().is_ascii_digit());
    assert_eq!(rep["settings"]["save"], "", "RDB snapshots stay off");
    assert!(rep["settings"]["transport"].as_str().unwrap().starts_with("socket "), "{}", rep["settings"]);
}

/// The append-only file on or off and synced as each profile says, the dir where it says.
fn profiles_read_back(r: &Value, sb: &Sandbox) {
    let cells = r["cells"].as_array().unwrap();
    let s = |p: &str| {
        cells.iter().find(|c| c["id"] == format!("redis/{p}/insert-commit/c2")).unwrap()["repeats"][0]["settings"]
            .clone()
    };
    let get = |p: &str, k: &str| s(p)[k].as_str().unwrap_or_else(|| panic!("{p}: no {k} in {}", s(p))).to_string();
    let (disk, ram) = (sb.disk.path().to_string_lossy().to_string(), sb.ram.path().to_string_lossy().to_string());
    let disk_fs = r["locations"][0]["fs_type"].as_str().unwrap().to_string();
    for (p, fsync, location, fs) in [
        ("disk", "always", &disk, &disk_fs),
        ("ram", "always", &ram, &"tmpfs".to_string()),
        ("async", "everysec", &disk, &disk_fs),
        ("nosync", "no", &disk, &disk_fs),
        ("ram-nosync", "no", &ram, &"tmpfs".to_string()),
    ] {
        assert_eq!((get(p, "appendonly"), get(p, "appendfsync")), ("yes".into(), fsync.into()), "{p}");
        assert!(get(p, "dir").starts_with(location.as_str()), "{p}: {}", s(p));
        assert_eq!(&get(p, "dir_filesystem"), fs, "{p}");
    }
    assert_eq!(get("unlogged", "appendonly"), "no");
    assert_eq!(
        cells.iter().find(|c| c["id"] == "redis/unlogged/insert-commit/c2").unwrap()["profile"]["durability"],
        "off"
    );
}

/// A redis-server of the test's own with a password, and the mistakes made against it.
fn password_server() -> PasswordServer {
    let own = OwnServer::start();
    let port = own.port;
    let url = format!("redis://:{SECRET}@127.0.0.1:{port}/2");
    let wrong = format!("redis://:wrong-{SECRET}@127.0.0.1:{port}/0");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let case = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    PasswordServer {
        server: Box::new(own),
        is_the_system_server: false,
        url: url.clone(),
        run: "-p disk -w insert-commit -t 50 --warmup 0s -r 1",
        secret: SECRET.into(),
        redacted: ":***@127.0.0.1".into(),
        after_run: Box::new(move || {
            assert_eq!(cli(port, &["-a", SECRET, "--no-auth-warning", "-n", "2", "DBSIZE"]), "0", "keys left")
        }),
        mistakes: vec![
            (case(&["-e", "redis", "--url", &wrong]), "check the user, password"),
            (case(&["-e", "redis", "--url", &format!("redis://127.0.0.1:{port}/0")]), "check the user, password"),
            (case(&["-e", "redis", "--url", &format!("redis://127.0.0.1:{closed}/0")]), "cannot connect"),
            (case(&["-e", "redis", "--url", &url, "-p", "nosync"]), "only disk"),
            (case(&["-e", "redis", "--url", &url, "--set", "appendfsync=no"]), "every client"),
            (
                case(&[
                    "-e",
                    "redis",
                    "--url",
                    &format!("rediss://:{SECRET}@127.0.0.1:{port}/0?ssl_cert_reqs=sometimes"),
                ]),
                "ssl_cert_reqs=sometimes",
            ),
            (case(&["-e", "sqlite", "--url", &url]), "sqlite takes no --url"),
        ],
        secrets: vec![SECRET.into()],
    }
}
