//! The Payment transaction (clause 2.5): a customer's payment recorded in the warehouse's,
//! the district's and the customer's balances and in history; 15% through a remote
//! warehouse when there is one.

use super::customer::{BY_LAST, Who};
use super::random::DISTRICTS;
use super::read::{each, keep};
use super::{Draw, for_update};
use crate::engine::Param::{Int, Text};
use crate::engine::{Dialect, SqlClient, Stmt, TxResult};
use crate::rng::Rng;
use std::fmt::Write;

/// Its statements, prepared once per client.
pub struct Stmts {
    warehouse_ytd: Stmt,
    warehouse: Stmt,
    district_ytd: Stmt,
    district: Stmt,
    by_last: Stmt,
    customer: Stmt,
    pay: Stmt,
    pay_bad_credit: Stmt,
    history: Stmt,
}

impl Stmts {
    /// Prepare them on `c`.
    pub fn prepare(c: &mut dyn SqlClient, d: Dialect) -> TxResult<Stmts> {
        let lock = for_update(d);
        let prepend = if d == Dialect::Mysql { "CONCAT(?, c_data)" } else { "? || c_data" };
        let pay = "UPDATE customer SET c_balance = c_balance - ? * 0.01, c_ytd_payment = c_ytd_payment + ? * 0.01, c_payment_cnt = c_payment_cnt + 1";
        let key = "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
        Ok(Stmts {
            warehouse_ytd: c.prepare("UPDATE warehouse SET w_ytd = w_ytd + ? * 0.01 WHERE w_id = ?")?,
            warehouse: c.prepare("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?")?,
            district_ytd: c.prepare("UPDATE district SET d_ytd = d_ytd + ? * 0.01 WHERE d_w_id = ? AND d_id = ?")?,
            district: c.prepare("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?")?,
            by_last: c.prepare(BY_LAST)?,
            customer: c.prepare(&format!("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer {key}{lock}"))?,
            pay: c.prepare(&format!("{pay} {key}"))?,
            pay_bad_credit: c.prepare(&format!("{pay}, c_data = substr({prepend}, 1, 500) {key}"))?,
            history: c.prepare("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ? * 0.01, ?)")?,
        })
    }
}

/// The payment's inputs (clause 2.5.1), kept for a retry.
#[derive(Default)]
pub struct Input {
    w: i64,
    d: i64,
    /// The customer's warehouse and district.
    c_w: i64,
    c_d: i64,
    who: Who,
    /// The amount, in cents.
    amount: i64,
    /// Text the transaction writes: the customer's credit, history's data, bad credit's note.
    credit: String,
    data: String,
    note: String,
}

impl Input {
    /// Draw a payment.
    pub fn draw(&mut self, rng: &mut Rng, at: Draw) {
        self.w = at.warehouse(rng);
        self.d = rng.range(1, DISTRICTS);
        let local = rng.range(1, 100) <= 85 || at.warehouses == 1;
        (self.c_w, self.c_d) = if local { (self.w, self.d) } else { (at.other(rng, self.w), rng.range(1, DISTRICTS)) };
        self.who.draw(rng);
        self.amount = rng.range(100, 500_000);
    }

    /// Record the payment.
    pub fn run(&mut self, c: &mut dyn SqlClient, s: &Stmts) -> TxResult<()> {
        let (w, d, amount) = (self.w, self.d, self.amount);
        c.begin(true)?;
        c.execute(s.warehouse_ytd, &[Int(amount), Int(w)])?;
        let data = &mut self.data;
        data.clear();
        each(c, s.warehouse, &[Int(w)], |i, v| {
            if i == 0 {
                data.push_str(v)
            }
        })?;
        c.execute(s.district_ytd, &[Int(amount), Int(w), Int(d)])?;
        data.push_str("    ");
        each(c, s.district, &[Int(w), Int(d)], |i, v| {
            if i == 0 {
                data.push_str(v)
            }
        })?;
        let (c_w, c_d) = (self.c_w, self.c_d);
        let id = self.who.id(c, s.by_last, (c_w, c_d))?;
        let credit = &mut self.credit;
        each(c, s.customer, &[Int(c_w), Int(c_d), Int(id)], |i, v| {
            if i == 10 {
                keep(credit, v)
            }
        })?;
        if self.credit == "BC" {
            self.note.clear();
            let _ = write!(self.note, "{id} {c_d} {c_w} {d} {w} {amount} | ");
            let note = Text(&self.note);
            c.execute(s.pay_bad_credit, &[Int(amount), Int(amount), note, Int(c_w), Int(c_d), Int(id)])?;
        } else {
            c.execute(s.pay, &[Int(amount), Int(amount), Int(c_w), Int(c_d), Int(id)])?;
        }
        let history = [Int(id), Int(c_d), Int(c_w), Int(d), Int(w), Int(amount), Text(&self.data)];
        c.execute(s.history, &history)?;
        c.commit()
    }
}
