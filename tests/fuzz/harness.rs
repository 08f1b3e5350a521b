//! The fuzzing loop every target shares: the corpus files as they are, then random bytes,
//! random text and mutations of the corpus, as many cases as `DBRACE_FUZZ_CASES` asks
//! (a few hundred by default, seconds for the suite) and, with `DBRACE_FUZZ_SECONDS`,
//! rounds of that many until the time is spent. A panic, a broken property or a case that
//! runs for `HANG` fails the target and leaves the input in target/fuzz-crashes/, to be
//! kept in the corpus as a regression seed once fixed.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// Cases per round when `DBRACE_FUZZ_CASES` is not set: the suite's smoke run.
const DEFAULT_CASES: u32 = 300;
/// A case running this long is taken for a hang (generous: the machine is shared).
const HANG: Duration = Duration::from_secs(20);

/// One input: where it came from (for the failure message) is in its bytes alone.
pub type Input = Vec<u8>;

/// The corpus of a target: every file of tests/fuzz/corpus/TARGET, by name; the script
/// target's also pgbench's example scripts the other tests run (tests/scripts), read where
/// they are rather than copied.
pub fn corpus(target: &str) -> Vec<(String, Input)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("tests/fuzz/corpus").join(target)];
    if target == "script" {
        dirs.push(root.join("tests/scripts"));
    }
    let mut files: Vec<(String, Input)> = Vec::new();
    for dir in &dirs {
        let found = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        files.extend(found.map(|f| f.unwrap().path()).filter(|p| p.is_file()).map(|p| {
            let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            (name, std::fs::read(&p).unwrap())
        }));
    }
    files.sort();
    assert!(!files.is_empty(), "{}: no seeds", dirs[0].display());
    files
}

/// One change to a seed; positions are taken modulo the input's length.
#[derive(Clone, Debug)]
enum Mutation {
    Insert(usize, u8),
    Token(usize, usize),
    Delete(usize, usize),
    Replace(usize, u8),
    Duplicate(usize, usize, usize),
    Splice(usize, usize, usize, usize),
    Truncate(usize),
}

fn mutation(tokens: usize, seeds: usize) -> impl Strategy<Value = Mutation> {
    let pos = any::<usize>();
    prop_oneof![
        3 => (pos, any::<u8>()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        4 => (pos, 0..tokens.max(1)).prop_map(|(p, t)| Mutation::Token(p, t)),
        3 => (pos, 1usize..8).prop_map(|(p, n)| Mutation::Delete(p, n)),
        2 => (pos, any::<u8>()).prop_map(|(p, b)| Mutation::Replace(p, b)),
        1 => (pos, 1usize..16, pos).prop_map(|(p, n, at)| Mutation::Duplicate(p, n, at)),
        1 => (0..seeds, pos, 1usize..32, pos).prop_map(|(s, p, n, at)| Mutation::Splice(s, p, n, at)),
        1 => pos.prop_map(Mutation::Truncate),
    ]
}

fn apply(mut b: Input, m: &Mutation, tokens: &[&str], seeds: &[Input]) -> Input {
    let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
    match *m {
        Mutation::Insert(p, x) => {
            let i = at(p, b.len());
            b.insert(i, x);
        }
        Mutation::Token(p, t) => {
            let i = at(p, b.len());
            if let Some(tok) = tokens.get(t) {
                b.splice(i..i, tok.bytes());
            }
        }
        Mutation::Delete(p, n) => {
            let i = at(p, b.len());
            let end = (i + n).min(b.len());
            b.drain(i..end);
        }
        Mutation::Replace(p, x) => {
            if !b.is_empty() {
                let i = p % b.len();
                b[i] = x;
            }
        }
        Mutation::Duplicate(p, n, to) => {
            let i = at(p, b.len());
            let part: Vec<u8> = b[i..(i + n).min(b.len())].to_vec();
            let j = at(to, b.len());
            b.splice(j..j, part);
        }
        Mutation::Splice(s, p, n, to) => {
            let other = &seeds[s % seeds.len()];
            let i = at(p, other.len());
            let part = other[i..(i + n).min(other.len())].to_vec();
            let j = at(to, b.len());
            b.splice(j..j, part);
        }
        Mutation::Truncate(p) => {
            let i = at(p, b.len());
            b.truncate(i);
        }
    }
    b
}

/// Inputs for a target: random bytes, random text, and seeds from its corpus under up to
/// eight mutations (tokens of its grammar among them), so parsers get past their first word.
pub fn inputs(seeds: &[Input], tokens: &'static [&'static str]) -> BoxedStrategy<Input> {
    let seeds: Arc<Vec<Input>> = Arc::new(seeds.to_vec());
    let n = seeds.len();
    let s2 = Arc::clone(&seeds);
    let mutated = (0..n, prop::collection::vec(mutation(tokens.len(), n), 1..8))
        .prop_map(move |(i, ms)| ms.iter().fold(s2[i].clone(), |b, m| apply(b, m, tokens, &s2)));
    let tokens_only =
        prop::collection::vec(prop::sample::select(tokens.to_vec()), 0..24).prop_map(|ts| ts.concat().into_bytes());
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => any::<String>().prop_map(String::into_bytes),
        1 => tokens_only,
        6 => mutated,
    ]
    .boxed()
}

/// Cases per round: `DBRACE_FUZZ_CASES`, else `DEFAULT_CASES`.
fn cases() -> u32 {
    match std::env::var("DBRACE_FUZZ_CASES") {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("DBRACE_FUZZ_CASES={v}: not a whole number")),
        Err(_) => DEFAULT_CASES,
    }
}

/// How long to keep fuzzing: `DBRACE_FUZZ_SECONDS`, else one round.
fn time_budget() -> Option<Duration> {
    std::env::var("DBRACE_FUZZ_SECONDS").ok().map(|v| {
        Duration::from_secs(v.parse().unwrap_or_else(|_| panic!("DBRACE_FUZZ_SECONDS={v}: not a whole number")))
    })
}

thread_local! {
    /// Where the last panic of this thread happened: the failure message names it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Whether this thread is inside a fuzz case, where panics are expected and quiet.
    static IN_CASE: RefCell<bool> = const { RefCell::new(false) };
}

/// A panic hook that keeps panics inside cases quiet (shrinking causes hundreds) but
/// remembers where the last one was.
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(|c| *c.borrow()) {
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
            } else {
                default(info);
            }
        }));
    });
}

/// Where a failing input is left.
fn crash_path(target: &str, input: &[u8]) -> PathBuf {
    let hash = input.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100000001b3));
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes").join(format!("{target}-{hash:016x}"))
}

fn keep(target: &str, input: &[u8]) -> PathBuf {
    let path = crash_path(target, input);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, input).unwrap();
    path
}

/// Fuzz `check` (which panics on a broken property, and says whether the parser accepted
/// the input) with the corpus and random inputs.
pub fn fuzz(target: &str, strategy: BoxedStrategy<Input>, check: impl Fn(&[u8]) -> bool) {
    quiet_panics();
    let current: Arc<Mutex<(Instant, Input)>> = Arc::new(Mutex::new((Instant::now(), Vec::new())));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (current, done, target) = (Arc::clone(&current), Arc::clone(&done), target.to_string());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let (since, input) = current.lock().unwrap().clone();
                if !done.load(Ordering::Relaxed) && since.elapsed() > HANG {
                    let path = keep(&target, &input);
                    eprintln!("fuzz {target}: a case ran {HANG:?} (a hang?); its input is {}", path.display());
                    std::process::abort();
                }
            }
        })
    };
    let accepted = std::sync::atomic::AtomicU64::new(0);
    let one = |input: &[u8]| -> Result<(), String> {
        *current.lock().unwrap() = (Instant::now(), input.to_vec());
        IN_CASE.with(|c| *c.borrow_mut() = true);
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| check(input)));
        IN_CASE.with(|c| *c.borrow_mut() = false);
        match r {
            Ok(ok) => {
                accepted.fetch_add(u64::from(ok), Ordering::Relaxed);
                Ok(())
            }
            Err(_) => Err(LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "a panic".into())),
        }
    };
    for (name, input) in corpus(target) {
        if let Err(why) = one(&input) {
            panic!("fuzz {target}: corpus file {name} fails: {why}");
        }
    }
    let started = Instant::now();
    let (mut rounds, mut total) = (0u64, 0u64);
    loop {
        let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
        let result = runner.run(&strategy, |input| one(&input).map_err(TestCaseError::fail));
        rounds += 1;
        total += u64::from(cases());
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, input)) => {
                let path = keep(target, &input);
                panic!(
                    "fuzz {target}: {why}\ninput ({} bytes, kept in {}): {:?}",
                    input.len(),
                    path.display(),
                    String::from_utf8_lossy(&input)
                );
            }
            Err(e) => panic!("fuzz {target}: {e}"),
        }
        if time_budget().is_none_or(|t| started.elapsed() >= t) {
            break;
        }
    }
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    let share = 100.0 * accepted.load(Ordering::Relaxed) as f64 / total.max(1) as f64;
    eprintln!(
        "fuzz {target}: {total} cases in {rounds} rounds, {:.0?}, {share:.1}% accepted, no failure",
        started.elapsed()
    );
}

/// An input as text, as a command line would carry it (invalid UTF-8 replaced).
pub fn text(input: &[u8]) -> String {
    String::from_utf8_lossy(input).into_owned()
}

/// A scratch file per thread, for parsers that read files.
pub fn scratch(name: &str) -> PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = tempfile::tempdir().unwrap();
    }
    DIR.with(|d| d.path().join(name))
}

/// A bad-input message must be one line.
pub fn one_line(msg: &str, input: &[u8]) {
    assert!(!msg.contains('\n'), "a message of several lines: {msg:?} for {:?}", String::from_utf8_lossy(input));
}
