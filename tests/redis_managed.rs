//! Throwaway Redis servers: every profile, persistence settings read back, the dir where
//! the profile says, nothing left behind after a normal end, a killed server, Ctrl-C,
//! SIGTERM or SIGKILL. scripts/test installs redis-server when it is missing.

mod common;

use common::{Sandbox, read_json, servers_under};
use std::process::Command;
use std::time::{Duration, Instant};

const REDIS: &[&str] = &["redis-server"];

fn require_binary() {
    let found = Command::new("redis-server").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(found, "redis-server missing: run scripts/test, which installs it (apt-get install redis-server)");
}

#[test]
fn every_profile_runs_verifies_and_reads_back() {
    require_binary();
    let sb = Sandbox::new();
    let out = sb.out("redis.json");
    sb.cmd(&["run", "-q", "-e", "redis", "-p", "disk,ram,async,nosync,ram-nosync,unlogged", "-w", "insert-commit"])
        .args(["-c", "2", "-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for c in cells {
        let rep = &c["repeats"][0];
        assert_eq!(rep["status"], "ok", "{}: {rep}", c["id"]);
        assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}: {}", c["id"], rep["verify"]);
        assert_eq!(rep["transactions"], 100);
        // Keys counted on the server: one per committed SET (warm-up included), none lost.
        let detail = rep["verify"]["detail"].as_str().unwrap();
        let n: Vec<u64> = detail.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
        assert!(n.len() == 2 && n[0] == n[1] && n[0] >= 100, "{}: {detail}", c["id"]);
        assert!(rep["engine_version"].as_str().unwrap().chars().next().unwrap().is_ascii_digit());
        assert_eq!(rep["settings"]["save"], "", "{}: RDB snapshots stay off", c["id"]);
        assert!(rep["settings"]["transport"].as_str().unwrap().starts_with("socket "), "{}", rep["settings"]);
    }
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
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(REDIS), "{:?}", servers_under(REDIS, sb.disk.path()));
}

#[test]
fn wal_ram_has_no_meaning_for_redis_and_says_why() {
    require_binary();
    let sb = Sandbox::new();
    let o = sb.cmd(&["run", "-q", "-e", "redis", "-p", "wal-ram"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("'wal-ram'") && err.contains("append-only file in its dir"), "{err}");
}

#[test]
fn set_and_sweep_values_reach_the_server_and_a_bad_one_is_bad_input() {
    require_binary();
    let sb = Sandbox::new();
    let out = sb.out("redis.json");
    sb.cmd(&["run", "-q", "-e", "redis", "-p", "ram", "-w", "insert-commit", "--set", "maxmemory=64mb"])
        .args(["--sweep", "appendfsync=always,no", "-t", "20", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let r = read_json(&out);
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for (c, fsync) in cells.iter().zip(["always", "no"]) {
        let st = &c["repeats"][0]["settings"];
        assert_eq!(st["maxmemory"], (64u64 << 20).to_string(), "{st}");
        assert_eq!(st["appendfsync"], fsync, "{st}");
    }
    for bad in ["appendfsync=sometimes", "no-such-directive=1"] {
        let o = sb.cmd(&["run", "-q", "-e", "redis", "-p", "ram", "--set", bad]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        let key = bad.split('=').next().unwrap();
        assert!(err.contains(key) && err.contains("--set"), "{bad}: {err}");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(REDIS));
}

#[test]
fn tcp_transport_uses_a_free_port_and_a_password_nobody_sees() {
    require_binary();
    let sb = Sandbox::new();
    let out = sb.out("tcp.json");
    let run = sb
        .cmd(&["run", "-e", "redis", "-p", "ram", "-w", "insert-commit", "--transport", "tcp", "-c", "2"])
        .args(["-t", "50", "--warmup", "0s", "-r", "1", "--out", out.to_str().unwrap()])
        .assert()
        .success();
    let rep = read_json(&out)["cells"][0]["repeats"][0].clone();
    let via = rep["settings"]["transport"].as_str().unwrap().to_string();
    assert!(via.starts_with("tcp 127.0.0.1:") && !via.ends_with(":6379"), "{via}");
    assert!(rep["verify"]["ok"].as_bool().unwrap(), "{}", rep["verify"]);
    // The password is in the config file only (0600, in a 0700 directory, gone now).
    let text = std::fs::read_to_string(&out).unwrap();
    let o = run.get_output();
    for shown in [text.as_str(), &String::from_utf8_lossy(&o.stdout), &String::from_utf8_lossy(&o.stderr)] {
        assert!(!shown.contains("requirepass"), "{shown}");
    }
}

#[test]
fn interrupted_and_killed_runs_leave_no_server_and_no_directory() {
    require_binary();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let sb = Sandbox::new();
        let out = sb.out("redis.json");
        let mut child =
            sb.spawn_run(&out, &["-e", "redis", "-p", "disk,ram", "-w", "insert-commit", "-T", "0.5s", "-r", "20"]);
        let start = Instant::now();
        while sb.no_servers(REDIS) {
            assert!(start.elapsed() < Duration::from_secs(30), "no server started");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        if signal != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + signal));
        }
        // The parent-death signal takes the server down even after SIGKILL.
        let start = Instant::now();
        while !sb.no_servers(REDIS) {
            assert!(start.elapsed() < Duration::from_secs(10), "server left running after signal {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
        if signal == libc::SIGKILL {
            sb.clean_reaps_a_killed_run();
        } else {
            assert_eq!(read_json(&out)["status"], "interrupted");
        }
        assert!(sb.leftovers().is_empty(), "signal {signal} left {:?}", sb.leftovers());
    }
}

#[test]
fn a_server_killed_mid_run_fails_its_cell_and_the_run_goes_on() {
    require_binary();
    let sb = Sandbox::new();
    let out = sb.out("redis.json");
    let child = sb.spawn_run(&out, &["-e", "redis", "-p", "disk,ram", "-w", "insert-commit", "-T", "3s", "-r", "1"]);
    sb.wait_past_preflight(&out);
    let start = Instant::now();
    let pid = loop {
        if let Some((pid, _)) = servers_under(REDIS, sb.disk.path()).first() {
            break *pid;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no disk server");
        std::thread::sleep(Duration::from_millis(20));
    };
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(1), "a failed cell makes the run fail");
    let r = read_json(&out);
    assert_eq!(r["status"], "complete");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells[0]["repeats"][0]["status"], "failed", "{}", cells[0]);
    assert!(!cells[0]["repeats"][0]["error"].as_str().unwrap().is_empty());
    assert_eq!(cells[1]["repeats"][0]["status"], "ok", "{}", cells[1]);
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
    assert!(sb.no_servers(REDIS));
}
