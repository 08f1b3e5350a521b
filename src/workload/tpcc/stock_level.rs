//! The Stock-Level transaction (clause 2.8): how many of the items of a district's last
//! 20 orders are low in stock, read only.

use super::Draw;
use super::read::{each, int, keep};
use crate::engine::Param::Int;
use crate::engine::{SqlClient, Stmt, TxResult};
use crate::rng::Rng;

/// Its statements, prepared once per client.
pub struct Stmts {
    next: Stmt,
    low: Stmt,
}

impl Stmts {
    /// Prepare them on `c`.
    pub fn prepare(c: &mut dyn SqlClient) -> TxResult<Stmts> {
        Ok(Stmts {
            next: c.prepare("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")?,
            low: c.prepare("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")?,
        })
    }
}

/// The query's inputs (clause 2.8.1), kept for a retry.
#[derive(Default)]
pub struct Input {
    w: i64,
    d: i64,
    threshold: i64,
    text: String,
}

impl Input {
    /// Draw a stock-level query.
    pub fn draw(&mut self, rng: &mut Rng, at: Draw) {
        self.w = at.warehouse(rng);
        self.d = at.district(rng);
        self.threshold = rng.range(10, 20);
    }

    /// Count the low-stock items.
    pub fn run(&mut self, c: &mut dyn SqlClient, s: &Stmts) -> TxResult<()> {
        let (w, d) = (self.w, self.d);
        c.begin(false)?;
        let text = &mut self.text;
        each(c, s.next, &[Int(w), Int(d)], |_, v| keep(text, v))?;
        let next = int(&self.text, "d_next_o_id")?;
        c.query_i64(s.low, &[Int(w), Int(d), Int(next), Int(next - 20), Int(w), Int(self.threshold)])?;
        c.commit()
    }
}
