//! `script:FILE[@WEIGHT]`: pgbench's custom script format as a workload. Every `script:`
//! entry of one `--workload` list joins one mix, as pgbench's repeated `-f` is one run;
//! each transaction runs one script drawn by weight. Scripts are parsed and checked
//! (syntax, `\if` blocks, variables never set) before any server starts.

mod client;
mod cursor;
mod eval;
mod expr;
mod parse;
mod program;
#[cfg(test)]
mod proptests;
mod random;
mod sql;
mod value;
mod vars;

use super::{
    CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, into_sql, sql as sql_client, step, tpcb,
};
use crate::engine::{Connection, Interface};
use crate::error::Result;
use crate::padding::Padded;
use program::{BUILTINS, Names, Script};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use value::Val;

/// The most variables one statement may use, as pgbench.
pub const MAX_PARAMS: usize = 255;

/// What data a script workload loads before it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Data {
    /// pgbench's four tables at --scale, as `pgbench -i` (a custom script of pgbench runs
    /// against them).
    #[default]
    Pgbench,
    /// Nothing: the script needs no tables, or --script-init makes them.
    None,
}

/// Options of script workloads, from `dbrace run`; `load` builds a mix with them.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `--define NAME=VALUE`, in order (a later one wins).
    pub defines: Vec<(String, String)>,
    /// `--report-per-statement`.
    pub per_statement: bool,
    /// `--script-data`.
    pub data: Data,
    /// `--script-init FILE`: SQL run once after the data is loaded.
    pub init: Option<PathBuf>,
}

/// What every client of a mix shares: the scripts, their variable names and the
/// `--define`s.
pub struct Shared {
    scripts: Vec<Script>,
    names: Names,
    total_weight: u64,
    per_statement: bool,
    /// Each `--define` a script mentions: its variable's slot and its text.
    defines: Vec<(usize, String)>,
}

/// Scripts run to completion, per script, counted by one client (on its own cache lines).
pub struct Counts {
    done: Vec<Padded>,
}

/// A mix of scripts: the workload.
pub struct Mix {
    name: String,
    about: String,
    shared: Arc<Shared>,
    data: Data,
    init: Option<(PathBuf, String)>,
}

/// A repeat of a mix: the script runs each of its clients completed.
struct Cell {
    name: String,
    shared: Arc<Shared>,
    /// `--scale`, pgbench's automatic variable `scale`.
    scale: u32,
    counts: Vec<Arc<Counts>>,
}

/// Whether a workload name is a script entry.
pub fn is_script(name: &str) -> bool {
    name.starts_with("script:")
}

/// One mix of every `script:` entry in `entries`, with this run's script options.
pub fn load(entries: &[&str], config: &Config) -> Result<Arc<dyn Workload>> {
    Ok(Arc::new(Mix::load(entries, config)?))
}

/// `FILE@WEIGHT` → (FILE, WEIGHT); the weight is 1 when absent.
fn split_weight(spec: &str) -> Result<(&str, u32)> {
    match spec.rsplit_once('@') {
        Some((file, w)) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
            let weight = w
                .parse()
                .ok()
                .filter(|w| *w <= i32::MAX as u32)
                .ok_or_else(|| bad_input!("script:{spec}: weight {w} is out of range (0 .. {})", i32::MAX))?;
            Ok((file, weight))
        }
        _ => Ok((spec, 1)),
    }
}

/// Read a script file as UTF-8 text.
fn read(file: &str) -> Result<String> {
    let bytes =
        std::fs::read(file).map_err(|e| bad_input!("cannot read script {file}: {e}; check the path after script:"))?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let col = String::from_utf8_lossy(good.rsplit(|b| *b == b'\n').next().unwrap_or_default()).chars().count() + 1;
        bad_input!("{file}:{line}:{col}: not UTF-8 text; save the script as UTF-8")
    })
}

impl Mix {
    /// Parse and check every script of `entries` (each `script:FILE[@WEIGHT]`).
    pub fn load(entries: &[&str], config: &Config) -> Result<Mix> {
        let mut names = Names::new();
        let mut scripts = Vec::new();
        let mut uses = Vec::new();
        for entry in entries {
            let spec = entry.strip_prefix("script:").unwrap_or(entry);
            let (file, weight) = split_weight(spec)?;
            if file.is_empty() {
                return Err(bad_input!("'{entry}' names no file; write script:FILE or script:FILE@WEIGHT"));
            }
            let text = read(file)?;
            let mut u = parse::Uses::default();
            let s = parse::parse(file, weight, &text, &mut names, &mut u)
                .map_err(|e| bad_input!("{file}:{}:{}: {}", e.pos.line, e.pos.col, e.msg))?;
            scripts.push(s);
            uses.push(u);
        }
        let total_weight: u64 = scripts.iter().map(|s| u64::from(s.weight)).sum();
        if total_weight == 0 {
            return Err(bad_input!("every script has weight 0; give at least one a weight above 0 (script:FILE@1)"));
        }
        let mut defines = Vec::new();
        for (k, v) in &config.defines {
            if !program::valid_name(k) {
                return Err(bad_input!(
                    "--define {k}={v}: invalid variable name '{k}'; use letters, digits and _, not starting with a digit"
                ));
            }
            // A variable no script mentions needs no slot.
            if let Some(slot) = names.find(k) {
                defines.push((slot, v.clone()));
            }
        }
        check_variables(&scripts, &uses, &names, &config.defines)?;
        let init = match &config.init {
            Some(p) => {
                let sql = std::fs::read_to_string(p)
                    .map_err(|e| bad_input!("cannot read --script-init {}: {e}", p.display()))?;
                Some((p.clone(), sql))
            }
            None => None,
        };
        let label = if scripts.len() == 1 && scripts[0].weight == 1 {
            scripts[0].label().to_string()
        } else {
            scripts.iter().map(|s| format!("{}@{}", s.label(), s.weight)).collect::<Vec<_>>().join("+")
        };
        let files: Vec<&str> = scripts.iter().map(|s| s.file.as_str()).collect();
        let about = format!("pgbench script{} {}", if files.len() > 1 { "s" } else { "" }, files.join(", "));
        Ok(Mix {
            name: format!("script:{label}"),
            about,
            shared: Arc::new(Shared { scripts, names, total_weight, per_statement: config.per_statement, defines }),
            data: config.data,
            init,
        })
    }
}

/// The scripts' names as transaction types: their file names, or where two share one
/// the files as given, and a file given twice its place in the mix after it.
fn type_names(scripts: &[Script]) -> Vec<String> {
    let unique = |names: &[String]| names.iter().enumerate().all(|(i, n)| !names[..i].contains(n));
    let labels: Vec<String> = scripts.iter().map(|s| s.label().to_string()).collect();
    if unique(&labels) {
        return labels;
    }
    let files: Vec<String> = scripts.iter().map(|s| s.file.clone()).collect();
    if unique(&files) {
        return files;
    }
    files.iter().enumerate().map(|(i, f)| format!("{f}#{}", i + 1)).collect()
}

/// A variable used but set nowhere (no `\set`, `--define`, built-in, or `\gset`/`\aset`
/// prefix that could make it) is an error at its first use.
fn check_variables(
    scripts: &[Script],
    uses: &[parse::Uses],
    names: &Names,
    defines: &[(String, String)],
) -> Result<()> {
    let mut set: Vec<bool> = vec![false; names.len()];
    for b in BUILTINS.iter().map(|s| s.to_string()).chain(defines.iter().map(|(k, _)| k.clone())) {
        if let Some(i) = names.find(&b) {
            set[i] = true;
        }
    }
    for u in uses {
        for &i in &u.set {
            set[i] = true;
        }
    }
    let prefixes: Vec<&str> = uses.iter().flat_map(|u| u.kept_prefixes.iter().map(String::as_str)).collect();
    for (s, u) in scripts.iter().zip(uses) {
        for &(slot, pos) in &u.used {
            let name = &names.names[slot];
            if !set[slot] && !prefixes.iter().any(|p| name.starts_with(p) && name.len() > p.len()) {
                return Err(bad_input!(
                    "{}:{}:{}: undefined variable :{name}; set it with \\set {name} … or --define {name}=VALUE",
                    s.file,
                    pos.line,
                    pos.col
                ));
            }
        }
    }
    Ok(())
}

impl Workload for Mix {
    fn name(&self) -> &str {
        &self.name
    }
    fn about(&self) -> &str {
        &self.about
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql]
    }
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        if self.data == Data::Pgbench { tpcb::estimated_bytes(opts) } else { 0 }
    }
    /// Each script of a mix of several, as the mix's name has it.
    fn types(&self) -> Vec<String> {
        if self.shared.scripts.len() > 1 { type_names(&self.shared.scripts) } else { Vec::new() }
    }
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        if self.data == Data::Pgbench {
            tpcb::load_tables(load, &self.name, opts)?;
        }
        if let Some((path, sql)) = &self.init {
            let c = sql_client(load.conn(), &self.name)?;
            step(&format!("--script-init {}", path.display()), c.batch(sql))?;
        }
        Ok(Box::new(Cell {
            name: self.name.clone(),
            shared: Arc::clone(&self.shared),
            scale: opts.tpcb.scale,
            counts: Vec::new(),
        }))
    }
}

impl CellWorkload for Cell {
    fn client(&mut self, conn: Connection, id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let conn = into_sql(conn, &self.name)?;
        let s = &self.shared;
        let mut vars = vars::Vars::new(s.names.len());
        // pgbench's automatic variables; random_seed and default_seed are the run's, the
        // same for every client. A --define of the same name wins.
        let base = seed.wrapping_sub(u64::from(id));
        vars.set(0, Val::Int(i64::from(self.scale)));
        vars.set(1, Val::Int(i64::from(id)));
        vars.set(2, Val::Int(base as i64));
        vars.set(3, Val::Int(random::Prng::new(base).next_u64() as i64));
        for (slot, v) in &s.defines {
            vars.set_text(*slot, v);
        }
        let counts = Arc::new(Counts { done: s.scripts.iter().map(|_| Padded::default()).collect() });
        self.counts.push(Arc::clone(&counts));
        let c = client::ScriptClient::new(conn, Arc::clone(s), vars, seed, counts);
        Ok(Box::new(step("prepare the script's statements", c)?))
    }
    /// Every transaction counted: the script runs the clients completed, per script,
    /// add up to the committed transactions the runner counted (warm-up included).
    fn verify(&mut self, _conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let per_script: Vec<u64> = (0..self.shared.scripts.len())
            .map(|i| self.counts.iter().map(|c| c.done[i].0.load(Ordering::Relaxed)).sum())
            .collect();
        let total: u64 = per_script.iter().sum();
        let split = if per_script.len() > 1 {
            let parts: Vec<String> =
                self.shared.scripts.iter().zip(&per_script).map(|(s, n)| format!("{} {n}", s.label())).collect();
            format!(" ({})", parts.join(", "))
        } else {
            String::new()
        };
        Ok(Verdict {
            ok: total == committed,
            detail: format!("{total} script runs completed by the clients{split}, {committed} transactions committed"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    fn load_err(entries: &[&str], config: &Config) -> String {
        match Mix::load(entries, config) {
            Ok(_) => panic!("{entries:?} loaded"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn entries_form_one_mix_with_weights() {
        let d = tempfile::tempdir().unwrap();
        let a = write(&d, "a.sql", "\\set x 1\nSELECT :x;\n");
        let b = write(&d, "b.sql", "SELECT :x;\n");
        let m = Mix::load(&[&format!("script:{a}@3"), &format!("script:{b}")], &Config::default()).unwrap();
        assert_eq!(m.name(), "script:a.sql@3+b.sql@1");
        assert_eq!(m.shared.total_weight, 4);
        let single = Mix::load(&[&format!("script:{a}")], &Config::default()).unwrap();
        assert_eq!(single.name(), "script:a.sql");
    }

    #[test]
    fn static_errors_name_file_line_and_column() {
        let d = tempfile::tempdir().unwrap();
        let f = write(&d, "u.sql", "SELECT 1;\nSELECT :nope + 1;\n");
        let e = load_err(&[&format!("script:{f}")], &Config::default());
        assert!(e.starts_with(&format!("{f}:2:8: undefined variable :nope")), "{e}");
        // Defined by --define, by a \set in another script of the mix, or possibly by a \gset.
        let ok = Config { defines: vec![("nope".into(), "3".into())], ..Config::default() };
        assert!(Mix::load(&[&format!("script:{f}")], &ok).is_ok());
        let g = write(&d, "g.sql", "SELECT 1 AS one \\gset n\n");
        let f2 = write(&d, "v.sql", "SELECT :none;\n");
        assert!(Mix::load(&[&format!("script:{g}"), &format!("script:{f2}")], &Config::default()).is_ok());
        let bad = write(&d, "s.sql", "\\set x (1 +\n");
        assert!(
            load_err(&[&format!("script:{bad}")], &Config::default()).starts_with(&format!("{bad}:1:12: expected"))
        );
        assert!(load_err(&[&format!("script:{f}@0")], &ok).contains("weight 0"));
        assert!(load_err(&["script:/no/such/file.sql"], &ok).contains("cannot read script /no/such/file.sql"));
        assert!(load_err(&["script:"], &ok).contains("names no file"));
        let bin = d.path().join("bin.sql");
        std::fs::write(&bin, b"SELECT 1;\nSELECT '\xff';\n").unwrap();
        let e = load_err(&[&format!("script:{}", bin.display())], &ok);
        assert!(e.ends_with(":2:9: not UTF-8 text; save the script as UTF-8"), "{e}");
        let bad_define = Config { defines: vec![("1x".into(), "3".into())], ..Config::default() };
        assert!(load_err(&[&format!("script:{f}")], &bad_define).contains("invalid variable name '1x'"));
    }

    #[test]
    fn each_script_of_a_mix_is_a_type_named_apart() {
        let d = tempfile::tempdir().unwrap();
        let a = write(&d, "a.sql", "SELECT 1;\n");
        let b = write(&d, "b.sql", "SELECT 2;\n");
        let types = |entries: &[String]| {
            let entries: Vec<&str> = entries.iter().map(String::as_str).collect();
            Mix::load(&entries, &Config::default()).unwrap().types()
        };
        assert_eq!(types(&[format!("script:{a}@3"), format!("script:{b}")]), ["a.sql", "b.sql"]);
        assert!(types(&[format!("script:{a}")]).is_empty(), "one script is one type");
        std::fs::create_dir(d.path().join("v2")).unwrap();
        let a2 = write(&d, "v2/a.sql", "SELECT 3;\n");
        assert_eq!(types(&[format!("script:{a}"), format!("script:{a2}")]), [a.clone(), a2]);
        assert_eq!(types(&[format!("script:{a}@1"), format!("script:{a}@2")]), [format!("{a}#1"), format!("{a}#2")]);
    }

    #[test]
    fn a_weight_is_taken_only_from_digits_after_the_last_at() {
        assert_eq!(split_weight("a.sql@3").unwrap(), ("a.sql", 3));
        assert_eq!(split_weight("me@host/a.sql").unwrap(), ("me@host/a.sql", 1));
        assert!(split_weight("a.sql@99999999999").is_err());
    }
}
