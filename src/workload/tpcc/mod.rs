//! TPC-C (specification revision 5.11, docs/workloads.md): the nine tables of `--warehouses`
//! warehouses and the five transactions in the `--tpcc-mix`, each in one database
//! transaction with the engine's prepared statements, run as benchmark peers run it:
//! no keying or think times, each transaction at a warehouse drawn at random; with
//! `--tpcc-think`, each client a terminal of one warehouse and district that keys and
//! thinks as the specification says. After the run the consistency conditions 1-4 are
//! checked.

mod customer;
mod delivery;
mod load;
mod new_order;
pub mod options;
mod order_status;
mod payment;
mod random;
mod read;
mod schema;
mod stock_level;
mod terminal;
mod verify;

use super::figure::{Derived, Figure};
use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, into_sql, sql, step};
use crate::engine::{Connection, Dialect, Interface, SqlClient, TxResult};
use crate::error::Result;
use crate::rng::Rng;
pub use options::{Mix, TYPES};

/// The tpcc workload.
pub struct Tpcc;

/// TPC-C's headline figure: New-Order transactions per minute.
const TPMC: Figure = Figure {
    key: "tpmc",
    unit: "tpmC",
    about: "New-Order transactions per minute",
    from: Derived::TypeRate { name: "new-order", times: 60.0 },
};

impl Workload for Tpcc {
    fn name(&self) -> &str {
        "tpcc"
    }
    fn about(&self) -> &str {
        "TPC-C: new-order, payment, order-status, delivery, stock-level over --warehouses"
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql]
    }
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        estimated_bytes(opts)
    }
    fn size_options(&self, opts: &WorkloadOptions) -> String {
        format!("--warehouses {}", opts.tpcc.warehouses)
    }
    /// A New-Order in a hundred rolls back, and the consistency conditions count on it.
    fn needs_rollback(&self) -> bool {
        true
    }
    fn types(&self) -> Vec<String> {
        TYPES.iter().map(|t| t.to_string()).collect()
    }
    fn figures(&self) -> &'static [Figure] {
        &[TPMC]
    }
    fn prepare(&self, l: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        load::load(l, opts)?;
        let t = &opts.tpcc;
        Ok(Box::new(Cell { warehouses: i64::from(t.warehouses), mix: t.tpcc_mix, think: t.tpcc_think }))
    }
}

/// A freshly loaded PostgreSQL database of W = 1 takes 122 MB and of W = 2 221 MB, the
/// item table 12 MB of it (measured): about 100 MB a warehouse; with growth and a log
/// beside it, 200 MB a warehouse is a safe bound.
fn estimated_bytes(opts: &WorkloadOptions) -> u64 {
    u64::from(opts.tpcc.warehouses) * 200_000_000 + 20_000_000
}

/// The statement that locks a row it reads, in `d`'s SQL (SQLite locks the database).
fn for_update(d: Dialect) -> &'static str {
    if d == Dialect::Sqlite { "" } else { " FOR UPDATE" }
}

/// Where a transaction's warehouses and districts are drawn from.
#[derive(Clone, Copy)]
pub struct Draw {
    /// W.
    warehouses: i64,
    /// A terminal's warehouse and district (`--tpcc-think`); none: drawn per transaction.
    home: Option<(i64, i64)>,
}

impl Draw {
    /// The home warehouse: the terminal's, else drawn uniformly.
    fn warehouse(self, rng: &mut Rng) -> i64 {
        self.home.map_or_else(|| rng.range(1, self.warehouses), |h| h.0)
    }

    /// Stock-Level's district: the terminal's, else drawn uniformly.
    fn district(self, rng: &mut Rng) -> i64 {
        self.home.map_or_else(|| rng.range(1, random::DISTRICTS), |h| h.1)
    }

    /// A warehouse other than `w` (there must be one).
    fn other(self, rng: &mut Rng, w: i64) -> i64 {
        let o = rng.range(1, self.warehouses - 1);
        if o >= w { o + 1 } else { o }
    }
}

/// A repeat's tpcc: its clients share the warehouses' count, the mix, and whether they
/// are terminals that key and think.
struct Cell {
    warehouses: i64,
    mix: Mix,
    think: bool,
}

impl CellWorkload for Cell {
    fn client(&mut self, conn: Connection, id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let mut conn = into_sql(conn, "tpcc")?;
        let stmts = step("prepare", Stmts::prepare(conn.as_mut()))?;
        Ok(Box::new(Client {
            conn,
            stmts,
            rng: Rng::new(seed),
            draw: Draw { warehouses: self.warehouses, home: self.think.then(|| terminal::home(id, self.warehouses)) },
            mix: self.mix,
            last: 0,
            next: None,
            inputs: Inputs::default(),
        }))
    }
    fn verify(&mut self, conn: &mut Connection, _committed: u64) -> Result<Verdict> {
        verify::consistent(sql(conn, "tpcc")?, self.warehouses)
    }
}

/// Every transaction's statements.
struct Stmts {
    new_order: new_order::Stmts,
    payment: payment::Stmts,
    order_status: order_status::Stmts,
    delivery: delivery::Stmts,
    stock_level: stock_level::Stmts,
}

impl Stmts {
    fn prepare(c: &mut dyn SqlClient) -> TxResult<Stmts> {
        let d = c.dialect();
        Ok(Stmts {
            new_order: new_order::Stmts::prepare(c, d)?,
            payment: payment::Stmts::prepare(c, d)?,
            order_status: order_status::Stmts::prepare(c)?,
            delivery: delivery::Stmts::prepare(c, d)?,
            stock_level: stock_level::Stmts::prepare(c)?,
        })
    }
}

/// Every transaction's inputs, drawn anew for each transaction and kept for its retry.
#[derive(Default)]
struct Inputs {
    new_order: new_order::Input,
    payment: payment::Input,
    order_status: order_status::Input,
    delivery: delivery::Input,
    stock_level: stock_level::Input,
}

/// One client: a transaction type drawn from the mix, then its inputs, then the transaction.
struct Client {
    conn: Box<dyn SqlClient>,
    stmts: Stmts,
    rng: Rng,
    draw: Draw,
    mix: Mix,
    /// The type of the transaction drawn last (an index into `TYPES`).
    last: usize,
    /// The type of the next one, drawn already for its keying time (`--tpcc-think`).
    next: Option<usize>,
    inputs: Inputs,
}

impl Client {
    /// Draw the next transaction: its type, then its inputs.
    fn next(&mut self) {
        self.last = self.next.take().unwrap_or_else(|| self.mix.pick(self.rng.range(1, 100) as u32));
        let (rng, at, i) = (&mut self.rng, self.draw, &mut self.inputs);
        match self.last {
            0 => i.new_order.draw(rng, at),
            1 => i.payment.draw(rng, at),
            2 => i.order_status.draw(rng, at),
            3 => i.delivery.draw(rng, at),
            _ => i.stock_level.draw(rng, at),
        }
    }
}

impl Transactor for Client {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        if !retry {
            self.next();
        }
        let (c, s, i) = (self.conn.as_mut(), &self.stmts, &mut self.inputs);
        match self.last {
            0 => i.new_order.run(c, &s.new_order),
            1 => i.payment.run(c, &s.payment),
            2 => i.order_status.run(c, &s.order_status),
            3 => i.delivery.run(c, &s.delivery),
            _ => i.stock_level.run(c, &s.stock_level),
        }
    }
    fn abort(&mut self) {
        self.conn.rollback();
    }
    fn last_type(&self) -> usize {
        self.last
    }
    fn pause(&mut self) -> std::time::Duration {
        if self.draw.home.is_none() {
            return std::time::Duration::ZERO;
        }
        let next = self.mix.pick(self.rng.range(1, 100) as u32);
        self.next = Some(next);
        terminal::pause(&mut self.rng, self.last, next)
    }
}
