//! The pgbench script parser: any file `script:FILE` may name is read, parsed and checked
//! as `dbrace run` does, without a panic; a refusal is one line at a line and column of
//! the file.

use crate::harness::{Input, corpus, fuzz, inputs, one_line, scratch};
use dbrace::workload::script::{Config, Mix};

const TOKENS: &[&str] = &[
    "\\set ",
    "\\if ",
    "\\elif ",
    "\\else",
    "\\endif",
    "\\sleep ",
    "\\gset",
    "\\aset",
    "\\;",
    "\\\n",
    "\\",
    ":",
    ":aid",
    ":scale",
    ":x",
    ":client_id",
    ":'",
    ":\"",
    "(",
    ")",
    ",",
    ";",
    "\n",
    "'",
    "\"",
    "$$",
    "$tag$",
    "--",
    "/*",
    "*/",
    " ms",
    " us",
    " s",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "1e308",
    "1.5e-400",
    "0x10",
    ".5",
    "CASE WHEN ",
    " THEN ",
    " ELSE ",
    " END",
    "IS NULL",
    "NOT ",
    " AND ",
    " OR ",
    "<>",
    "<=",
    ">>",
    "<<",
    "~",
    "#",
    "%",
    "/",
    "*",
    "-",
    "+",
    "random(",
    "random_zipfian(",
    "random_exponential(",
    "random_gaussian(",
    "permute(",
    "hash(",
    "hash_murmur2(",
    "abs(",
    "least(",
    "greatest(",
    "pi()",
    "sqrt(",
    "int(",
    "double(",
    "::text",
    "E'\\",
    "é",
    "\u{0}",
    "\r",
    "\t",
    "SELECT ",
    "x",
];

#[test]
fn script_parser() {
    let seeds: Vec<Input> = corpus("script").into_iter().map(|(_, b)| b).collect();
    let path = scratch("fuzz.sql");
    let entry = format!("script:{}", path.display());
    // Variables the seeds use without setting them, as `--define` would give them.
    let config = Config {
        defines: ["x", "y", "delta", "aid"].map(|k| (k.to_string(), "1".to_string())).to_vec(),
        ..Config::default()
    };
    fuzz("script", inputs(&seeds, TOKENS), |input| {
        std::fs::write(&path, input).unwrap();
        match Mix::load(&[entry.as_str()], &config) {
            Ok(mix) => {
                assert!(dbrace::workload::Workload::name(&mix).starts_with("script:"));
                true
            }
            Err(e) => {
                let msg = e.to_string();
                one_line(&msg, input);
                let at = msg
                    .strip_prefix(&format!("{}:", path.display()))
                    .unwrap_or_else(|| panic!("a refusal not at a place in the file: {msg:?}"));
                let line: usize = at.split(':').next().unwrap().parse().unwrap_or_else(|_| panic!("no line: {msg:?}"));
                let lines = input.iter().filter(|&&b| b == b'\n').count() + 1;
                assert!((1..=lines).contains(&line), "line {line} of {lines}: {msg:?}");
                false
            }
        }
    });
}
