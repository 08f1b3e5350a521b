//! pgbench's built-in scripts on its four tables: `tpcb` (TPC-B-like), `select-only`
//! and `simple-update` (pgbench -N), with aid / bid / tid / delta drawn as pgbench does.

pub mod options;

use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, into_sql, sql, step, until_signal};
use crate::engine::{Connection, Datum, Interface, Param, SqlClient, Stmt, TxResult};
use crate::error::Result;
use crate::rng::Rng;

/// Which of pgbench's built-in scripts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Tpcb,
    SelectOnly,
    SimpleUpdate,
}

/// One pgbench built-in script as a workload.
pub struct Pgbench {
    script: Script,
    name: &'static str,
    about: &'static str,
}

/// pgbench's default TPC-B-like transaction.
pub const TPCB: Pgbench = Pgbench {
    script: Script::Tpcb,
    name: "tpcb",
    about: "pgbench TPC-B-like: 3 updates, 1 select, 1 insert per transaction",
};
/// pgbench -S.
pub const SELECT_ONLY: Pgbench =
    Pgbench { script: Script::SelectOnly, name: "select-only", about: "pgbench -S: one primary-key select" };
/// pgbench -N.
pub const SIMPLE_UPDATE: Pgbench = Pgbench {
    script: Script::SimpleUpdate,
    name: "simple-update",
    about: "pgbench -N: account update, select, history insert",
};

const ACCOUNTS_PER_SCALE: i64 = 100_000;
const TELLERS_PER_SCALE: i64 = 10;

fn sizes(opts: &WorkloadOptions) -> (i64, i64, i64) {
    let s = i64::from(opts.tpcb.scale);
    (s, s * TELLERS_PER_SCALE, s * ACCOUNTS_PER_SCALE)
}

impl Workload for Pgbench {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> &str {
        self.about
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql]
    }
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        estimated_bytes(opts)
    }
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        load_tables(load, self.name, opts)?;
        Ok(Box::new(Cell { name: self.name, script: self.script, sizes: sizes(opts) }))
    }
}

/// A repeat of a pgbench built-in: its clients share nothing but the tables' sizes.
struct Cell {
    name: &'static str,
    script: Script,
    /// Branches, tellers, accounts.
    sizes: (i64, i64, i64),
}

impl CellWorkload for Cell {
    fn client(&mut self, conn: Connection, _id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let mut conn = into_sql(conn, self.name)?;
        let c = conn.as_mut();
        let mut p = |s: &str| step("prepare", c.prepare(s));
        let stmts = Stmts {
            update_account: p("UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?")?,
            select_account: p("SELECT abalance FROM pgbench_accounts WHERE aid = ?")?,
            update_teller: p("UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?")?,
            update_branch: p("UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?")?,
            insert_history: p(
                "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
            )?,
        };
        let (branches, tellers, accounts) = self.sizes;
        Ok(Box::new(PgbenchClient {
            conn,
            stmts,
            script: self.script,
            rng: Rng::new(seed),
            branches,
            tellers,
            accounts,
            drawn: [0; 4],
        }))
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let c = sql(conn, self.name)?;
        let mut q = |s: &str| step("verify", c.scalar(s));
        let history = q("SELECT count(*) FROM pgbench_history")?;
        let deltas = q("SELECT coalesce(sum(delta), 0) FROM pgbench_history")?;
        let a = q("SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts")?;
        let t = q("SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers")?;
        let b = q("SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches")?;
        let accounts = q("SELECT count(*) FROM pgbench_accounts")?;
        // Balances start at zero, so each table's change is its sum.
        let (want_history, want_t) = match self.script {
            Script::Tpcb => (committed as i64, deltas),
            Script::SimpleUpdate => (committed as i64, 0),
            Script::SelectOnly => (0, 0),
        };
        let ok = history == want_history && a == deltas && t == want_t && b == want_t && accounts == self.sizes.2;
        Ok(Verdict {
            ok,
            detail: format!(
                "history {history} rows for {committed} commits; sum(delta) {deltas}; balances accounts {a}, tellers {t}, branches {b}; {accounts} accounts"
            ),
        })
    }
}

/// pgbench's four tables at `opts.tpcb.scale`, loaded as `pgbench -i` does (also the data of
/// the script workload `workload`), its phases timed as pgbench times them. Where the
/// engine gains from it, pgbench_accounts loads in ranges side by side: the same rows.
pub(crate) fn load_tables(load: &mut Loader, workload: &str, opts: &WorkloadOptions) -> Result<()> {
    let (branches, tellers, accounts) = sizes(opts);
    // pgbench's schema, primary keys as it adds them.
    let tables = [
        (
            "pgbench_history",
            "tid integer, bid integer, aid integer, delta integer, mtime timestamp, filler char(22)",
            None,
        ),
        ("pgbench_tellers", "tid integer not null, bid integer, tbalance integer, filler char(84)", Some("tid")),
        ("pgbench_accounts", "aid integer not null, bid integer, abalance integer, filler char(84)", Some("aid")),
        ("pgbench_branches", "bid integer not null, bbalance integer, filler char(88)", Some("bid")),
    ];
    let split = load.phase("create tables", |conn| {
        let c = sql(conn, workload)?;
        for (t, cols, key) in tables {
            step(&format!("create {t}"), c.create_table(t, cols, key))?;
        }
        Ok(c.splits_loads())
    })?;
    load.phase("generate", |conn| {
        let c = sql(conn, workload)?;
        // As pgbench: branch and teller fillers are NULL, account fillers blank.
        let mut rows = (1..=branches).map(|b| vec![Datum::Int(b), Datum::Int(0), Datum::Null]);
        step("load pgbench_branches", c.load("pgbench_branches", &["bid", "bbalance", "filler"], &mut rows))?;
        let mut rows = (1..=tellers)
            .map(|t| vec![Datum::Int(t), Datum::Int((t - 1) / TELLERS_PER_SCALE + 1), Datum::Int(0), Datum::Null]);
        step("load pgbench_tellers", c.load("pgbench_tellers", &["tid", "bid", "tbalance", "filler"], &mut rows))
    })?;
    let parts = if split { load.width() as i64 } else { 1 };
    let ranges: Vec<(i64, i64)> = (0..parts).map(|i| (accounts * i / parts + 1, accounts * (i + 1) / parts)).collect();
    load.side_by_side("generate", &ranges, |conn, &(from, to)| {
        let mut rows = until_signal((from..=to).map(|a| {
            vec![Datum::Int(a), Datum::Int((a - 1) / ACCOUNTS_PER_SCALE + 1), Datum::Int(0), Datum::Blank(84)]
        }));
        let c = sql(conn, workload)?;
        step("load pgbench_accounts", c.load("pgbench_accounts", &["aid", "bid", "abalance", "filler"], &mut rows))
            .map(drop)
    })?;
    load.phase("vacuum and keys", |conn| step("finish the load", sql(conn, workload)?.finish_load()))
}

/// 100,000 accounts take 9.7 MB in SQLite (measured); with branches, tellers, history
/// growth and a log of the same size, 26 MB per scale unit is a safe bound.
pub(crate) fn estimated_bytes(opts: &WorkloadOptions) -> u64 {
    u64::from(opts.tpcb.scale) * 26_000_000
}

struct Stmts {
    update_account: Stmt,
    select_account: Stmt,
    update_teller: Stmt,
    update_branch: Stmt,
    insert_history: Stmt,
}

struct PgbenchClient {
    conn: Box<dyn SqlClient>,
    stmts: Stmts,
    script: Script,
    rng: Rng,
    branches: i64,
    tellers: i64,
    accounts: i64,
    /// aid, bid, tid, delta of the current transaction (kept for a retry).
    drawn: [i64; 4],
}

impl Transactor for PgbenchClient {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        use Param::Int;
        if !retry {
            // pgbench draws aid, bid, tid, delta in this order (select-only: aid alone).
            self.drawn[0] = self.rng.range(1, self.accounts);
            if self.script != Script::SelectOnly {
                self.drawn[1] = self.rng.range(1, self.branches);
                self.drawn[2] = self.rng.range(1, self.tellers);
                self.drawn[3] = self.rng.range(-5000, 5000);
            }
        }
        let [aid, bid, tid, delta] = self.drawn;
        let s = &self.stmts;
        let c: &mut dyn SqlClient = self.conn.as_mut();
        if self.script == Script::SelectOnly {
            return c.query_i64(s.select_account, &[Int(aid)]).map(drop);
        }
        c.begin(true)?;
        c.execute(s.update_account, &[Int(delta), Int(aid)])?;
        c.query_i64(s.select_account, &[Int(aid)])?;
        if self.script == Script::Tpcb {
            c.execute(s.update_teller, &[Int(delta), Int(tid)])?;
            c.execute(s.update_branch, &[Int(delta), Int(bid)])?;
        }
        c.execute(s.insert_history, &[Int(tid), Int(bid), Int(aid), Int(delta)])?;
        c.commit()
    }
    fn abort(&mut self) {
        self.conn.rollback();
    }
}
