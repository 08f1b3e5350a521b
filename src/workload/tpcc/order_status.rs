//! The Order-Status transaction (clause 2.6): a customer's balance, their latest order
//! and its lines, read only.

use super::Draw;
use super::customer::{BY_LAST, Who};
use super::random::DISTRICTS;
use super::read::{each, int, keep};
use crate::engine::Param::Int;
use crate::engine::{SqlClient, Stmt, TxError, TxResult};
use crate::rng::Rng;

/// Its statements, prepared once per client.
pub struct Stmts {
    by_last: Stmt,
    customer: Stmt,
    order: Stmt,
    lines: Stmt,
}

impl Stmts {
    /// Prepare them on `c`.
    pub fn prepare(c: &mut dyn SqlClient) -> TxResult<Stmts> {
        Ok(Stmts {
            by_last: c.prepare(BY_LAST)?,
            customer: c.prepare("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")?,
            order: c.prepare("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")?,
            lines: c.prepare("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")?,
        })
    }
}

/// The inquiry's inputs (clause 2.6.1), kept for a retry.
#[derive(Default)]
pub struct Input {
    w: i64,
    d: i64,
    who: Who,
    order: String,
}

impl Input {
    /// Draw an inquiry.
    pub fn draw(&mut self, rng: &mut Rng, at: Draw) {
        self.w = at.warehouse(rng);
        self.d = rng.range(1, DISTRICTS);
        self.who.draw(rng);
    }

    /// Read the customer's latest order.
    pub fn run(&mut self, c: &mut dyn SqlClient, s: &Stmts) -> TxResult<()> {
        let (w, d) = (self.w, self.d);
        c.begin(false)?;
        let id = self.who.id(c, s.by_last, (w, d))?;
        c.query_rows(s.customer, &[Int(w), Int(d), Int(id)])?;
        let order = &mut self.order;
        if each(c, s.order, &[Int(w), Int(d), Int(id)], |i, v| {
            if i == 0 {
                keep(order, v)
            }
        })? == 0
        {
            return Err(TxError::Fail(format!("tpcc: customer {id} of district {d}, warehouse {w} has no order")));
        }
        let o = int(&self.order, "o_id")?;
        c.query_rows(s.lines, &[Int(w), Int(d), Int(o)])?;
        c.commit()
    }
}
