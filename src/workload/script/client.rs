//! One client running a mix of scripts: each transaction draws a script by weight and
//! runs its operations in order. Variables live in a table made once; parameters are
//! borrowed from it; query results kept by `\gset` are copied into reused buffers. With
//! `--report-per-statement`, each command's time is added up while measured.

use super::eval::{Env, eval};
use super::program::{Action, Amount, Keep, Op};
use super::random::Prng;
use super::vars::Vars;
use super::{Counts, Shared};
use crate::engine::{Param, SqlClient, Stmt, TxError, TxResult};
use crate::results::StatementLatency;
use crate::workload::Transactor;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A command's figures while measured.
#[derive(Clone, Copy, Default)]
struct Stat {
    executions: u64,
    failures: u64,
    retries: u64,
    nanos: u128,
}

/// The rows of a query whose results are kept, staged before they become variables.
#[derive(Default)]
struct Staged {
    rows: u64,
    values: Vec<String>,
    /// Column names of the first execution (to map columns to variables once).
    names: Vec<String>,
}

/// One client's state.
pub struct ScriptClient {
    conn: Box<dyn SqlClient>,
    shared: Arc<Shared>,
    /// Per script, the prepared statement of each query, in operation order.
    stmts: Vec<Vec<Stmt>>,
    /// Per script and operation, the index of its first query in `stmts`.
    first_query: Vec<Vec<usize>>,
    /// Per script and query, the variable each result column goes to (once known).
    columns: Vec<Vec<Option<Vec<Option<usize>>>>>,
    vars: Vars,
    rng: Prng,
    rng_at_start: Prng,
    chooser: Prng,
    current: usize,
    staged: Staged,
    counts: Arc<Counts>,
    timing: bool,
    measuring: bool,
    stats: Vec<Vec<Stat>>,
}

impl ScriptClient {
    /// A client for `shared`'s scripts on `conn`, its statements prepared.
    pub fn new(
        mut conn: Box<dyn SqlClient>,
        shared: Arc<Shared>,
        vars: Vars,
        seed: u64,
        counts: Arc<Counts>,
    ) -> TxResult<ScriptClient> {
        let mut stmts = Vec::new();
        let mut first_query = Vec::new();
        let mut columns = Vec::new();
        for s in &shared.scripts {
            let (mut st, mut firsts, mut cols) = (Vec::new(), Vec::new(), Vec::new());
            for op in &s.ops {
                firsts.push(st.len());
                if let Action::Sql { queries, .. } = &op.action {
                    for q in queries {
                        let handle = conn.prepare(&q.sql).map_err(|e| match e {
                            TxError::Fail(m) => {
                                TxError::Fail(format!("{}:{}: {m}", s.file, s.commands[op.command].pos.line))
                            }
                            other => other,
                        })?;
                        st.push(handle);
                        cols.push(None);
                    }
                }
            }
            stmts.push(st);
            first_query.push(firsts);
            columns.push(cols);
        }
        let stats = shared.scripts.iter().map(|s| vec![Stat::default(); s.commands.len()]).collect();
        let rng = Prng::new(seed);
        Ok(ScriptClient {
            conn,
            timing: shared.per_statement,
            shared,
            stmts,
            first_query,
            columns,
            vars,
            rng_at_start: rng.clone(),
            rng,
            chooser: Prng::new(seed ^ 0x5bd1_e995_c6a4_a793),
            current: 0,
            staged: Staged::default(),
            counts,
            measuring: false,
            stats,
        })
    }

    /// A script by weight, as pgbench's chooseScript.
    fn choose(&mut self) -> usize {
        let scripts = &self.shared.scripts;
        if scripts.len() == 1 {
            return 0;
        }
        let mut w = self.chooser.range_u64(0, self.shared.total_weight - 1);
        for (i, s) in scripts.iter().enumerate() {
            if w < u64::from(s.weight) {
                return i;
            }
            w -= u64::from(s.weight);
        }
        scripts.len() - 1
    }
}

/// Why an operation failed, before it becomes a message.
enum Failure {
    Retry,
    Msg(String),
    /// The connection is gone: the runner may reconnect.
    Lost(String),
}

impl Transactor for ScriptClient {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        // A retry runs the same script with the same draws, as pgbench restores its
        // random state.
        if retry {
            self.rng.clone_from(&self.rng_at_start);
        } else {
            self.current = self.choose();
            self.rng_at_start.clone_from(&self.rng);
        }
        let timing = self.timing && self.measuring;
        let si = self.current;
        let script = &self.shared.scripts[si];
        let mut pc = 0;
        while let Some(op) = script.ops.get(pc) {
            let t0 = timing.then(Instant::now);
            let mut run = Run {
                conn: self.conn.as_mut(),
                vars: &mut self.vars,
                rng: &mut self.rng,
                stmts: &self.stmts[si],
                columns: &mut self.columns[si],
                staged: &mut self.staged,
                first_query: self.first_query[si][pc],
                shared: &self.shared,
                at: (si, op.command + 1),
            };
            match run.op(op, pc) {
                Ok(next) => {
                    if let Some(t0) = t0
                        && !matches!(op.action, Action::Jump { .. })
                    {
                        let s = &mut self.stats[si][op.command];
                        s.executions += 1;
                        s.nanos += t0.elapsed().as_nanos();
                    }
                    pc = next;
                }
                Err(f) => {
                    if timing {
                        let s = &mut self.stats[si][op.command];
                        match f {
                            Failure::Retry => s.retries += 1,
                            Failure::Msg(_) | Failure::Lost(_) => s.failures += 1,
                        }
                    }
                    let at = || format!("{}:{}", script.file, script.commands[op.command].pos.line);
                    return Err(match f {
                        Failure::Retry => TxError::Retry,
                        Failure::Msg(m) => TxError::Fail(format!("{}: {m}", at())),
                        Failure::Lost(m) => TxError::Lost(format!("{}: {m}", at())),
                    });
                }
            }
        }
        self.counts.done[si].0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn abort(&mut self) {
        self.conn.rollback();
    }

    fn last_type(&self) -> usize {
        self.current
    }

    fn measuring(&mut self) {
        self.measuring = true;
    }

    fn statements(&self) -> Vec<StatementLatency> {
        if !self.timing {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (s, stats) in self.shared.scripts.iter().zip(&self.stats) {
            for (c, st) in s.commands.iter().zip(stats) {
                out.push(StatementLatency::new(
                    s.file.clone(),
                    c.pos.line,
                    c.text.clone(),
                    [st.executions, st.failures, st.retries],
                    st.nanos as f64 / 1e9,
                ));
            }
        }
        out
    }
}

/// What one operation may touch (the client's fields, borrowed apart).
struct Run<'a> {
    conn: &'a mut dyn SqlClient,
    vars: &'a mut Vars,
    rng: &'a mut Prng,
    stmts: &'a [Stmt],
    columns: &'a mut [Option<Vec<Option<usize>>>],
    staged: &'a mut Staged,
    first_query: usize,
    shared: &'a Shared,
    at: (usize, usize),
}

/// A variable's name, for messages.
fn var_name(shared: &Shared, i: usize) -> String {
    shared.names.names[i].clone()
}

impl Run<'_> {
    /// Run `op` (at `pc`); the next operation's index.
    fn op(&mut self, op: &Op, pc: usize) -> Result<usize, Failure> {
        match &op.action {
            Action::Set { var, expr } => {
                let v = eval(expr, &mut Env { vars: self.vars, rng: self.rng, at: self.at })
                    .map_err(|e| Failure::Msg(e.message(&|i| var_name(self.shared, i))))?;
                self.vars.set(*var, v);
                Ok(pc + 1)
            }
            Action::Cond { expr, to } => {
                let v = eval(expr, &mut Env { vars: self.vars, rng: self.rng, at: self.at })
                    .map_err(|e| Failure::Msg(e.message(&|i| var_name(self.shared, i))))?;
                Ok(if v.truth() { pc + 1 } else { *to })
            }
            Action::Jump { to } => Ok(*to),
            Action::Sleep { amount, micros } => {
                let n = match *amount {
                    Amount::Const(n) => n,
                    Amount::Var(slot) => {
                        let shared = self.shared;
                        let text = self.vars.text(slot).map_err(|_| {
                            Failure::Msg(format!("\\sleep: undefined variable \"{}\"", var_name(shared, slot)))
                        })?;
                        atoi(text).ok_or_else(|| Failure::Msg(format!("\\sleep: invalid sleep time \"{text}\"")))?
                    }
                };
                sleep(n.saturating_mul(*micros))?;
                Ok(pc + 1)
            }
            Action::Sql { queries, keep } => {
                for (k, q) in queries.iter().enumerate() {
                    let qi = self.first_query + k;
                    for &slot in &q.params {
                        let shared = self.shared;
                        self.vars
                            .ready_param(slot)
                            .map_err(|_| Failure::Msg(format!("undefined variable \"{}\"", var_name(shared, slot))))?;
                    }
                    let stmt = self.stmts[qi];
                    let c = &mut *self.conn;
                    let vars = &*self.vars;
                    if q.keep {
                        let staged = &mut *self.staged;
                        staged.values.iter_mut().for_each(String::clear);
                        let learn = self.columns[qi].is_none();
                        if learn {
                            staged.names.clear();
                        }
                        let mut row = |i: usize, name: &str, value: Option<&str>| {
                            while staged.values.len() <= i {
                                staged.values.push(String::new());
                            }
                            staged.values[i].clear();
                            staged.values[i].push_str(value.unwrap_or(""));
                            if learn && staged.names.len() == i {
                                staged.names.push(name.to_string());
                            }
                        };
                        staged.rows =
                            with_params(vars, &q.params, |p| c.query_each(stmt, p, &mut row)).map_err(failure)?;
                        self.keep(qi, keep)?;
                    } else {
                        with_params(vars, &q.params, |p| c.query_rows(stmt, p)).map_err(failure)?;
                    }
                }
                Ok(pc + 1)
            }
        }
    }

    /// Store a kept query's row into variables (`\gset`: exactly one row; `\aset`: the last, if any).
    fn keep(&mut self, qi: usize, keep: &Keep) -> Result<(), Failure> {
        let (prefix, gset) = match keep {
            Keep::Gset(p) => (p, true),
            Keep::Aset(p) => (p, false),
            Keep::Nothing => return Ok(()),
        };
        let rows = self.staged.rows;
        if gset && rows != 1 {
            return Err(Failure::Msg(format!("\\gset: expected one row, got {rows}")));
        }
        if rows == 0 {
            return Ok(());
        }
        let names = &self.shared.names;
        let map = self.columns[qi].get_or_insert_with(|| {
            // Columns no script reads need no variable.
            self.staged.names.iter().map(|n| names.find(&format!("{prefix}{n}"))).collect()
        });
        for (slot, value) in map.iter().zip(&self.staged.values) {
            if let Some(slot) = slot {
                self.vars.set_text(*slot, value);
            }
        }
        Ok(())
    }
}

fn failure(e: TxError) -> Failure {
    match e {
        TxError::Retry => Failure::Retry,
        TxError::Lost(m) => Failure::Lost(m),
        TxError::Fail(m) | TxError::Duplicate(m) => Failure::Msg(m),
    }
}

/// Call `f` with the parameters of `slots`, in an array on the stack.
fn with_params<R>(vars: &Vars, slots: &[usize], f: impl FnOnce(&[Param]) -> R) -> R {
    fn fill<'a, const N: usize>(vars: &'a Vars, slots: &[usize]) -> [Param<'a>; N] {
        let mut a = [Param::Int(0); N];
        for (p, &s) in a.iter_mut().zip(slots) {
            *p = vars.param(s);
        }
        a
    }
    let n = slots.len();
    match n {
        0..=8 => f(&fill::<8>(vars, slots)[..n]),
        9..=32 => f(&fill::<32>(vars, slots)[..n]),
        _ => f(&fill::<{ super::MAX_PARAMS }>(vars, slots)[..n]),
    }
}

/// C's atoi, but `None` where pgbench calls the sleep time invalid (no digit first).
fn atoi(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    if n == 0 && !s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some(if neg { -n } else { n })
}

/// Sleep `micros`, in slices, so that Ctrl-C is not held up by a long `\sleep`.
fn sleep(micros: i64) -> Result<(), Failure> {
    let end = Instant::now() + Duration::from_micros(micros.max(0) as u64);
    loop {
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        if crate::signals::pending().is_some() {
            return Err(Failure::Msg("\\sleep interrupted".into()));
        }
        crate::fiber::sleep((end - now).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::atoi;

    #[test]
    fn sleep_amounts_read_as_atoi() {
        assert_eq!(atoi("10"), Some(10));
        assert_eq!(atoi("10.9"), Some(10));
        assert_eq!(atoi("0"), Some(0));
        assert_eq!(atoi("-5"), Some(-5), "a negative time is no sleep, not an error");
        assert_eq!(atoi("abc"), None);
        assert_eq!(atoi("true"), None);
    }
}
