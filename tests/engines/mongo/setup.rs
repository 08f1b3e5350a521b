//! `--setup` for mongo: a JSON array of commands run in order on the server exec and serve
//! hand out (here the stand-in mongod, SecantusDB), a mistake in the file refused before
//! any server starts and a failing command named in one line, exit 2, either way leaving
//! nothing behind.

use super::stand_in::{VENV, pymongo};
use crate::common::Sandbox;
use std::io::Read;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The stand-in mongod's directory, as `--mongo-bin`.
fn bin() -> String {
    super::stand_in::python();
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/engines/mongo/stand-in").display().to_string()
}

/// The commands the tests apply: in the served database, and one in another (`$db`),
/// with extended JSON values.
const SETUP: &str = r#"[
  {"create": "orders"},
  {"createIndexes": "orders", "indexes": [{"key": {"customer": 1}, "name": "by_customer"}]},
  {"insert": "orders", "documents": [
    {"_id": 1, "customer": "ada", "at": {"$date": "2026-01-02T03:04:05Z"}},
    {"_id": 2, "customer": "bob", "total": {"$numberLong": "1200"}}
  ]},
  {"insert": "events", "documents": [{"_id": "seed"}], "$db": "audit"}
]"#;

/// What pymongo sees there, as one line, from client `c` (a Python expression).
const SEEN: &str = "(lambda db: ' '.join(map(str, (db.name, db.orders.count_documents({}), \
    'by_customer' in db.orders.index_information(), type(db.orders.find_one({'_id': 1})['at']).__name__, \
    db.orders.find_one({'_id': 2})['total'], c.audit.events.count_documents({})))))(c.get_default_database())";

/// What SEEN says once SETUP ran.
const SET_UP: &str = "dbrace 2 True datetime 1200 1";

#[test]
fn serve_applies_the_commands_in_order_and_pymongo_sees_them() {
    let sb = Sandbox::new();
    let setup = sb.out("setup.json");
    std::fs::write(&setup, SETUP).unwrap();
    let args = ["serve", "mongo", "--mongo-bin", &bin(), "-p", "ram", "--setup", setup.to_str().unwrap()];
    let mut child = sb.spawn(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut exports = String::new();
    child.stdout.take().unwrap().read_to_string(&mut exports).unwrap();
    let uri = exports
        .lines()
        .find_map(|l| l.strip_prefix("export MONGODB_URI="))
        .map(|v| v.trim_matches('\'').to_string())
        .unwrap_or_else(|| panic!("no MONGODB_URI in {exports:?}"));
    assert_eq!(pymongo(&uri, &format!("print({SEEN})")), SET_UP);
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let start = Instant::now();
    let status = child.wait().unwrap();
    assert!(start.elapsed() < Duration::from_secs(20));
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("setup.json applied in"), "{err}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn exec_applies_them_to_every_server_and_a_failing_command_is_one_line() {
    let sb = Sandbox::new();
    let setup = sb.out("setup.json");
    std::fs::write(&setup, SETUP).unwrap();
    let seen = sb.out("seen");
    let script = format!(
        "import os, pymongo\nc = pymongo.MongoClient(os.environ['MONGODB_URI'], serverSelectionTimeoutMS=5000)\n\
         open({:?}, 'a').write({SEEN} + '\\n')\n",
        seen.display().to_string()
    );
    let py = format!("{VENV}/bin/python");
    let exec = ["exec", "-q", "-e", "mongo", "--mongo-bin", &bin(), "-p", "disk,async", "-r", "1", "--warmup", "0"];
    let o = sb
        .cmd(&[&exec[..], &["--setup", setup.to_str().unwrap(), "--", &py, "-c", &script]].concat())
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    let lines = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(lines, format!("{SET_UP}\n").repeat(2), "one fresh server per run, set up each time");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());

    // The same _id twice: the server's duplicate-key error, the command that met it.
    let dup = sb.out("dup.json");
    std::fs::write(&dup, r#"[{"insert": "t", "documents": [{"_id": 1}]}, {"insert": "t", "documents": [{"_id": 1}]}]"#)
        .unwrap();
    let o = sb
        .cmd(&[&exec[..], &["--password", "s3cret-setup", "--setup", dup.to_str().unwrap(), "--", "true"]].concat())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    // One line of error (as root, a note of whom mongod runs as comes first).
    let said: Vec<&str> = err.lines().filter(|l| !l.contains("runs as root")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(err.contains("dup.json failed: command 2 of 2 (insert) failed") && err.contains("11000"), "{err}");
    assert!(err.contains("fix the file") && !err.contains("s3cret-setup"), "{err}");
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn a_file_that_is_not_commands_is_refused_before_any_server_starts() {
    let sb = Sandbox::new();
    let cases = [
        (r#"{"create": "orders"}"#, "not a JSON array of command documents"),
        (r#"[{"create": "orders"}"#, "not a JSON array of command documents"),
        ("[]", "an empty array"),
        (r#"[{"create": "a"}, {}]"#, "command 2 of 2 is empty"),
        (r#"[{"$db": "admin", "ping": 1}, {"$inc": {"a": 1}}]"#, "command 2 of 2: its first key '$inc'"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = sb.out(&format!("bad{i}.json"));
        std::fs::write(&f, text).unwrap();
        let file = f.to_str().unwrap();
        let log = sb.out(&format!("events{i}.log"));
        let bin = bin();
        let subs: [&[&str]; 2] = [
            &["exec", "-e", "mongo", "--mongo-bin", &bin, "--setup", file, "--", "true"],
            &["serve", "mongo", "--mongo-bin", &bin, "--setup", file],
        ];
        for sub in subs {
            let o = sb.cmd(sub).env("MONGOD_STAND_IN_LOG", &log).timeout(Duration::from_secs(30)).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr).to_string();
            assert_eq!(o.status.code(), Some(2), "{text}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{text}: {err}");
            assert!(err.contains(&format!("--setup {file}: {want}")), "{text}: {err}");
            assert!(!log.exists(), "{sub:?}: a server started: {:?}", std::fs::read_to_string(&log));
        }
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}
