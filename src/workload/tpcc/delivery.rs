//! The Delivery transaction (clause 2.7), run as one database transaction as the
//! benchmark peers do (the specification lets it be deferred): the oldest undelivered
//! order of each of a warehouse's ten districts delivered by one carrier.

use super::random::DISTRICTS;
use super::read::{each, int, keep};
use super::{Draw, for_update};
use crate::engine::Param::Int;
use crate::engine::{Dialect, SqlClient, Stmt, TxError, TxResult};
use crate::rng::Rng;

/// Its statements, prepared once per client.
pub struct Stmts {
    oldest: Stmt,
    take: Stmt,
    customer: Stmt,
    carrier: Stmt,
    delivered: Stmt,
    balance: Stmt,
}

impl Stmts {
    /// Prepare them on `c`.
    pub fn prepare(c: &mut dyn SqlClient, d: Dialect) -> TxResult<Stmts> {
        let lock = for_update(d);
        Ok(Stmts {
            oldest: c.prepare(&format!("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1{lock}"))?,
            take: c.prepare("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")?,
            customer: c.prepare("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")?,
            carrier: c.prepare("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")?,
            delivered: c.prepare("UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")?,
            // The order's amount summed where it lies, rather than read and sent back.
            balance: c.prepare("UPDATE customer SET c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?), c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")?,
        })
    }
}

/// The delivery's inputs (clause 2.7.1), kept for a retry.
#[derive(Default)]
pub struct Input {
    w: i64,
    carrier: i64,
    text: String,
}

impl Input {
    /// Draw a delivery.
    pub fn draw(&mut self, rng: &mut Rng, at: Draw) {
        self.w = at.warehouse(rng);
        self.carrier = rng.range(1, 10);
    }

    /// Deliver each district's oldest new order; a district with none is skipped.
    pub fn run(&mut self, c: &mut dyn SqlClient, s: &Stmts) -> TxResult<()> {
        let w = self.w;
        c.begin(true)?;
        for d in 1..=DISTRICTS {
            let text = &mut self.text;
            if each(c, s.oldest, &[Int(w), Int(d)], |_, v| keep(text, v))? == 0 {
                continue;
            }
            let o = int(&self.text, "no_o_id")?;
            if c.execute(s.take, &[Int(w), Int(d), Int(o)])? == 0 {
                // Another delivery took it first: try again on what is left.
                return Err(TxError::Retry);
            }
            let text = &mut self.text;
            each(c, s.customer, &[Int(w), Int(d), Int(o)], |_, v| keep(text, v))?;
            let customer = int(&self.text, "o_c_id")?;
            c.execute(s.carrier, &[Int(self.carrier), Int(w), Int(d), Int(o)])?;
            c.execute(s.delivered, &[Int(w), Int(d), Int(o)])?;
            c.execute(s.balance, &[Int(w), Int(d), Int(o), Int(w), Int(d), Int(customer)])?;
        }
        c.commit()
    }
}
