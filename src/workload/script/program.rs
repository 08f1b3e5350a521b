//! A script compiled for running: a flat list of operations (SQL, `\set`, `\sleep`,
//! conditions and jumps for `\if` blocks), variables resolved to slots in one table the
//! scripts of a mix share (as pgbench's variables are per client, not per script).

use super::cursor::Pos;
use super::expr::Expr;
use std::collections::HashMap;

/// Where the results of a query go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Nowhere: rows are read and dropped.
    Nothing,
    /// `\gset PREFIX`: the last query must return one row; its columns become variables.
    Gset(String),
    /// `\aset PREFIX`: every query's last row, if any, becomes variables.
    Aset(String),
}

/// One query of a SQL command.
#[derive(Clone, Debug)]
pub struct Query {
    /// SQL with `?` placeholders.
    pub sql: String,
    /// The variable slot of each placeholder, in order.
    pub params: Vec<usize>,
    /// Whether this query's row is kept (the last of a `\gset`, every one of an `\aset`).
    pub keep: bool,
}

/// The length of a `\sleep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// A constant.
    Const(i64),
    /// A variable's integer value.
    Var(usize),
}

/// What one operation does.
#[derive(Clone, Debug)]
pub enum Action {
    /// Run the queries of a SQL command in order.
    Sql { queries: Vec<Query>, keep: Keep },
    /// `\set`.
    Set { var: usize, expr: Expr },
    /// `\sleep`: the amount times this many microseconds.
    Sleep { amount: Amount, micros: i64 },
    /// `\if` / `\elif`: go on when true, else jump to `to`.
    Cond { expr: Expr, to: usize },
    /// The end of a branch that ran: jump past its `\endif`.
    Jump { to: usize },
}

/// One operation and the script command it comes from.
#[derive(Clone, Debug)]
pub struct Op {
    /// What it does.
    pub action: Action,
    /// Index of its command in `Script::commands` (for per-statement latency).
    pub command: usize,
}

/// A command as written, for reports and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// Where it starts.
    pub pos: Pos,
    /// Its first line.
    pub text: String,
}

/// One parsed script.
#[derive(Clone, Debug)]
pub struct Script {
    /// The file, as given.
    pub file: String,
    /// Its weight in the mix.
    pub weight: u32,
    /// Its commands, in order.
    pub commands: Vec<Command>,
    /// What runs.
    pub ops: Vec<Op>,
}

impl Script {
    /// The file name without its directories (the label in tables).
    pub fn label(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(&self.file)
    }
}

/// Variable names of a mix and their slots.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Slot → name.
    pub names: Vec<String>,
    index: HashMap<String, usize>,
}

/// Variables pgbench sets itself (a `--define` of the same name wins).
pub const BUILTINS: [&str; 4] = ["scale", "client_id", "random_seed", "default_seed"];

impl Names {
    /// A table that starts with the built-in variables, in `BUILTINS` order.
    pub fn new() -> Names {
        let mut n = Names::default();
        for b in BUILTINS {
            n.slot(b);
        }
        n
    }

    /// The slot of `name`, made if new.
    pub fn slot(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// The slot of `name`, if some script uses it.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// How many slots there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// Whether `name` is a valid variable name: letters (any non-ASCII too), digits and `_`,
/// not starting with a digit.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(super::cursor::is_name_start) && chars.all(super::cursor::is_name_char)
}
