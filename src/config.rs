//! `dbrace run --config bench.toml`: a whole matrix in a file. Its keys are the long
//! options of `dbrace run` (`engine = ["sqlite", "postgres"]`, `duration = "10s"`,
//! `[sweep] shared_buffers = ["128MB", "1GB"]`), so the file and the command line never
//! drift apart; options given on the command line win over the file's.

use crate::error::Result;
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, parser::ValueSource};
use std::collections::BTreeMap;
use std::ffi::OsString;
use toml::{Spanned, Value};

/// The options of `dbrace run`, as clap knows them.
fn run_command() -> clap::Command {
    crate::cli::Cli::command().find_subcommand("run").cloned().expect("the CLI has a run subcommand")
}

/// Options a file may set: every long option of `run` but these.
fn settable(arg: &Arg) -> bool {
    !matches!(arg.get_long(), None | Some("config" | "dry-run" | "help"))
}

/// Command-line words with the file of `run --config FILE` spliced in after `run`, for the
/// options the command line does not give itself.
pub fn expand(args: Vec<OsString>) -> Result<Vec<OsString>> {
    if args.get(1).and_then(|a| a.to_str()) != Some("run") {
        return Ok(args);
    }
    let words: Vec<&str> = args[2..].iter().filter_map(|a| a.to_str()).collect();
    let file = words.iter().enumerate().find_map(|(i, w)| match w.strip_prefix("--config") {
        Some("") => words.get(i + 1).copied(),
        Some(rest) => rest.strip_prefix('='),
        None => None,
    });
    let Some(file) = file else { return Ok(args) };
    let text = std::fs::read_to_string(file).map_err(|e| bad_input!("--config {file}: {e}"))?;
    let mut out = args[..2].to_vec();
    out.extend(words_of(file, &text, &words)?.into_iter().map(OsString::from));
    out.extend(args[2..].iter().cloned());
    Ok(out)
}

/// The command-line words a config file stands for, leaving out options in `given`.
fn words_of(file: &str, text: &str, given: &[&str]) -> Result<Vec<String>> {
    let table: BTreeMap<Spanned<String>, Spanned<Value>> = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(String::new(), |s| format!(":{}", line_of(text, s.start)));
        bad_input!("{file}{line}: {}", e.message().trim_end_matches('\n').replace('\n', " "))
    })?;
    let cmd = run_command();
    let args: Vec<&Arg> = cmd.get_arguments().filter(|a| settable(a)).collect();
    let mut out = Vec::new();
    for (key, value) in &table {
        let at = format!("{file}:{}", line_of(text, key.span().start));
        let name = key.get_ref().replace('_', "-");
        let Some(arg) = args.iter().find(|a| a.get_long() == Some(name.as_str())) else {
            let keys: Vec<&str> = args.iter().filter_map(|a| a.get_long()).collect();
            return Err(bad_input!("{at}: unknown key '{}'; valid keys: {}", key.get_ref(), keys.join(", ")));
        };
        if given.iter().any(|w| is_flag(w, arg)) {
            continue;
        }
        let words = flag_words(arg, value.get_ref()).map_err(|why| bad_input!("{at}: {name}: {why}"))?;
        // Check the value as the command line would, so a mistake names the file's line.
        let mut probe = vec!["dbrace".to_string(), "run".to_string()];
        probe.extend(words.iter().cloned());
        if let Err(e) = crate::cli::Cli::command().try_get_matches_from(&probe) {
            let msg = e.render().to_string();
            let first = msg.lines().next().unwrap_or("invalid value").trim_start_matches("error: ");
            return Err(bad_input!("{at}: {first}"));
        }
        out.extend(words);
    }
    Ok(out)
}

/// Whether a command-line word sets `arg` (`--clients 4`, `--clients=4`, `-c4`).
fn is_flag(word: &str, arg: &Arg) -> bool {
    let long = arg.get_long().map(|l| format!("--{l}"));
    let short = arg.get_short().map(|s| format!("-{s}"));
    long.is_some_and(|l| word == l || word.starts_with(&format!("{l}=")))
        || short.is_some_and(|s| word.starts_with(&s) && !word.starts_with("--"))
}

/// The words for one option: `--key=value`, repeated for repeatable options.
fn flag_words(arg: &Arg, value: &Value) -> std::result::Result<Vec<String>, String> {
    let long = arg.get_long().unwrap_or_default();
    let flag = |v: &str| format!("--{long}={v}");
    let switch = matches!(arg.get_action(), ArgAction::SetTrue);
    let repeatable = matches!(arg.get_action(), ArgAction::Append) && arg.get_value_delimiter().is_none();
    match value {
        Value::Boolean(b) if switch => Ok(if *b { vec![format!("--{long}")] } else { Vec::new() }),
        _ if switch => Err("give true or false".into()),
        Value::Array(items) if repeatable => items.iter().map(|v| scalar(v).map(|v| flag(&v))).collect(),
        Value::Array(items) if arg.get_value_delimiter().is_some() => {
            Ok(vec![flag(&items.iter().map(scalar).collect::<std::result::Result<Vec<_>, _>>()?.join(","))])
        }
        Value::Array(_) => Err("takes one value, not a list".into()),
        Value::Table(t) => {
            let pairs = t.iter().map(|(k, v)| {
                let v = match v {
                    Value::Array(items) => {
                        items.iter().map(scalar).collect::<std::result::Result<Vec<_>, _>>()?.join(",")
                    }
                    v => scalar(v)?,
                };
                Ok(format!("{k}={v}"))
            });
            let pairs: Vec<String> = pairs.collect::<std::result::Result<_, String>>()?;
            match pairs.len() {
                1 => Ok(vec![flag(&pairs[0])]),
                _ if repeatable => Ok(pairs.iter().map(|p| flag(p)).collect()),
                n => Err(format!("takes one KEY = VALUE, not {n}")),
            }
        }
        v => Ok(vec![flag(&scalar(v)?)]),
    }
}

/// A TOML scalar as a command-line value.
fn scalar(v: &Value) -> std::result::Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!("expected a string, number or list, got {}", other.type_str())),
    }
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The options given on the command line (not defaults, not from a file), as a config
/// file that reproduces them: what `--dry-run` prints.
pub fn from_matches(m: &ArgMatches) -> String {
    let cmd = run_command();
    let mut table = toml::Table::new();
    for arg in cmd.get_arguments().filter(|a| settable(a)) {
        let id = arg.get_id().as_str();
        if m.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let key = arg.get_long().unwrap_or(id).to_string();
        if matches!(arg.get_action(), ArgAction::SetTrue) {
            table.insert(key, Value::Boolean(true));
            continue;
        }
        let raw: Vec<String> =
            m.get_raw(id).into_iter().flatten().map(|v| crate::redact::redact(&v.to_string_lossy())).collect();
        let many = arg.get_value_delimiter().is_some() || matches!(arg.get_action(), ArgAction::Append);
        let value = match raw.as_slice() {
            [one] if !many => Value::String(one.clone()),
            _ => Value::Array(raw.into_iter().map(Value::String).collect()),
        };
        table.insert(key, value);
    }
    toml::to_string(&table).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Result<Vec<String>> {
        words_of("bench.toml", text, &[])
    }

    #[test]
    fn keys_are_the_long_options() {
        let w = words(
            "engine = [\"sqlite\", \"memory\"]\nclients = [1, 2]\nduration = \"2s\"\nquiet = true\n\
             set = [\"cache_size=-1000\", \"sqlite.synchronous=0\"]\n[sweep]\nscale = [1, 2]\n",
        )
        .unwrap();
        assert_eq!(
            w,
            [
                "--clients=1,2",
                "--duration=2s",
                "--engine=sqlite,memory",
                "--quiet",
                "--set=cache_size=-1000",
                "--set=sqlite.synchronous=0",
                "--sweep=scale=1,2"
            ]
        );
        assert_eq!(words("table_size = 500").unwrap(), ["--table-size=500"]);
    }

    #[test]
    fn mistakes_name_the_line() {
        let e = words("repeat = 2\n\nrepets = 3\n").unwrap_err().to_string();
        assert!(e.starts_with("bench.toml:3: unknown key 'repets'; valid keys: ") && e.contains("repeat"), "{e}");
        let e = words("repeat = 2\nclients = \"many\"\n").unwrap_err().to_string();
        assert!(e.starts_with("bench.toml:2: ") && e.contains("many"), "{e}");
        let e = words("repeat = 2\nrepeat = 3\n").unwrap_err().to_string();
        assert!(e.starts_with("bench.toml:2: "), "{e}");
        let e = words("quiet = \"yes\"").unwrap_err().to_string();
        assert!(e.contains("true or false"), "{e}");
        let e = words("baseline = [\"a\", \"b\"]").unwrap_err().to_string();
        assert!(e.contains("not a list"), "{e}");
    }

    #[test]
    fn the_command_line_wins() {
        let w = words_of("f", "clients = 4\nrepeat = 5\nworkload = \"tpcb\"", &["-c2", "--repeat=1"]).unwrap();
        assert_eq!(w, ["--workload=tpcb"]);
    }

    #[test]
    fn a_command_line_round_trips_through_a_file() {
        let argv = [
            "dbrace",
            "run",
            "-e",
            "sqlite,memory",
            "--clients",
            "1,4",
            "--set",
            "cache_size=-1000",
            "--set",
            "sqlite.synchronous=0",
            "--quiet",
            "--sweep",
            "scale=1,2",
            "-T",
            "2s",
        ];
        let m = crate::cli::Cli::command().get_matches_from(argv);
        let text = from_matches(m.subcommand_matches("run").unwrap());
        let again = words(&text).unwrap();
        let m2 =
            crate::cli::Cli::command().get_matches_from(["dbrace", "run"].into_iter().map(String::from).chain(again));
        assert_eq!(from_matches(m2.subcommand_matches("run").unwrap()), text);
        assert!(text.contains("clients = [\"1\", \"4\"]"), "{text}");
    }
}
