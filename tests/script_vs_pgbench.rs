//! The expression language against pgbench itself: a few hundred deterministic expressions
//! (no random functions), each printed with `debug()` by pgbench and by dbrace, must give
//! the same type and value. Expressions pgbench rejects at run time are dropped from the
//! script (pgbench aborts at the first), and dbrace must run the rest without an error.
//! pgbench needs a server: the machine's on 127.0.0.1:5432, which scripts/test installs
//! and starts (the tests' password for role postgres).

mod common;

use common::Sandbox;
use std::process::Command;

const PASSWORD: &str = "not-a-real-secret";

/// A small deterministic generator (xorshift64*), so the expressions are the same every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn number(&mut self, depth: u32) -> String {
        const NUMBERS: &[&str] =
            &["0", "3", "-7", "9223372036854775807", "-9223372036854775808", "2.5", "-0.75", "1e300"];
        if depth == 0 || self.next().is_multiple_of(3) {
            return self.pick(NUMBERS).to_string();
        }
        let (a, b) = (self.number(depth - 1), self.number(depth - 1));
        format!("({a} {} {b})", self.pick(&["+", "-", "*", "/"]))
    }
    fn expr(&mut self, depth: u32) -> String {
        const LEAVES: &[&str] = &[
            "0",
            "1",
            "2",
            "7",
            "-3",
            "1000003",
            "9223372036854775807",
            "-9223372036854775808",
            "4611686018427387904",
            "0.5",
            "2.5",
            "-1.25",
            "3.0",
            "1e3",
            "1e-3",
            ".25",
            "true",
            "false",
            "null",
            "pi()",
        ];
        if depth == 0 || self.next().is_multiple_of(4) {
            return self.pick(LEAVES).to_string();
        }
        let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
        match self.next() % 12 {
            0..=3 => format!("({a} {} {b})", self.pick(&["+", "-", "*", "/", "%"])),
            4 => format!("({a} {} {b})", self.pick(&["=", "<>", "!=", "<", "<=", ">", ">="])),
            5 => format!("({a} {} {})", self.pick(&["&", "|", "#", "<<", ">>"]), self.next() % 70),
            6 => format!("({a} {} {b})", self.pick(&["and", "or"])),
            // abs() of a boolean reads a union's other member in pgbench (an Assert only in
            // debug builds); dbrace refuses it, so abs() gets numbers here.
            7 if self.next().is_multiple_of(4) => format!("abs({})", self.number(depth - 1)),
            7 => format!("{}({a})", self.pick(&["int", "double", "sqrt", "ln", "exp", "not", "-", "~"])),
            8 => format!(
                "{}({a}, {b})",
                self.pick(&["least", "greatest", "pow", "mod", "hash", "hash_fnv1a", "hash_murmur2"])
            ),
            9 => format!("permute({a}, {}, {b})", 1 + self.next() % 1000),
            10 => format!(
                "({a} {})",
                self.pick(&["is null", "is not null", "isnull", "notnull", "is true", "is not false"])
            ),
            _ => format!("case when {a} then {b} else {} end", self.expr(depth - 1)),
        }
    }
}

/// The debug() lines of pgbench running `script` once: (lines, command it aborted at).
fn pgbench(script: &std::path::Path) -> (Vec<String>, Option<usize>) {
    let out = Command::new("pgbench")
        .env("PGPASSWORD", PASSWORD)
        .args(["-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-n", "-t", "1", "-f"])
        .arg(script)
        .arg("test")
        .output()
        .expect("pgbench runs: install it with the PostgreSQL client (apt-get install postgresql-client)");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("connection to server"), "pgbench cannot connect; run scripts/test: {err}");
    let lines = err.lines().filter(|l| l.starts_with("debug(")).map(str::to_string).collect();
    // "client 0 aborted in command 12 (set) of script 0": 0-based command index.
    let aborted = err
        .lines()
        .find_map(|l| l.split("aborted in command ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    (lines, aborted)
}

#[test]
fn expressions_evaluate_as_pgbench_evaluates_them() {
    assert!(
        std::net::TcpStream::connect("127.0.0.1:5432").is_ok(),
        "no PostgreSQL on 127.0.0.1:5432: run scripts/test, which installs and starts it"
    );
    let sb = Sandbox::new();
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let mut exprs: Vec<String> = (0..300).map(|_| g.expr(3)).collect();
    let path = sb.cache.path().join("exprs.sql");
    let write = |exprs: &[String]| {
        let text: String = exprs.iter().enumerate().map(|(i, e)| format!("\\set v{i} debug({e})\n")).collect();
        std::fs::write(&path, text).unwrap();
    };
    // Drop what pgbench refuses, one abort at a time.
    let mut refused = Vec::new();
    let theirs = loop {
        write(&exprs);
        match pgbench(&path) {
            (lines, None) => break lines,
            (_, Some(at)) => refused.push(exprs.remove(at)),
        }
    };
    assert!(
        exprs.len() >= 100 && refused.len() >= 20,
        "{} kept, {} refused: the generator should test both",
        exprs.len(),
        refused.len()
    );
    // dbrace refuses them too (a sample: one run each).
    for e in refused.iter().step_by(refused.len() / 10) {
        let one = sb.cache.path().join("refused.sql");
        std::fs::write(&one, format!("\\set v debug({e})\n")).unwrap();
        let out = sb
            .cmd(&[
                "run",
                "-q",
                "-e",
                "sqlite",
                "-p",
                "nosync",
                "--script-data",
                "none",
                "-t",
                "1",
                "--warmup",
                "0s",
                "-r",
                "1",
            ])
            .args(["-w", &format!("script:{}", one.display()), "--out", sb.out("refused.json").to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "pgbench refuses {e}, dbrace ran it");
    }
    let out = sb
        .cmd(&[
            "run",
            "-q",
            "-e",
            "sqlite",
            "-p",
            "nosync",
            "--script-data",
            "none",
            "-t",
            "1",
            "--warmup",
            "0s",
            "-r",
            "1",
        ])
        .args(["-w", &format!("script:{}", path.display()), "--out", sb.out("r.json").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line: Option<usize> =
        stdout.split("exprs.sql:").nth(1).and_then(|r| r.split(':').next()).and_then(|n| n.parse().ok());
    assert!(
        out.status.success(),
        "dbrace failed where pgbench did not, at {:?}: {stdout}",
        line.map(|l| &exprs[l - 1])
    );
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("debug(")).collect();
    assert_eq!(ours.len(), theirs.len(), "{err}");
    for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(o, t, "\\set v{i} debug({})", exprs[i]);
    }
}
