//! Finding the customer a Payment or Order-Status is for (clause 2.5.2.2, 2.6.2.2): 60% by
//! last name, the middle one of those ordered by first name; else by number.

use super::random::{C_ID, CUSTOMERS, nurand, run_last_name};
use super::read::{each, int};
use crate::engine::Param::{Int, Text};
use crate::engine::{SqlClient, Stmt, TxError, TxResult};
use crate::rng::Rng;

/// How a customer is named: by last name or by number.
#[derive(Default)]
pub struct Who {
    by_name: bool,
    id: i64,
    last: String,
    /// The ids of the customers of that name, their room reused.
    ids: Vec<i64>,
}

impl Who {
    /// Draw a customer: by last name 60% of the time.
    pub fn draw(&mut self, rng: &mut Rng) {
        self.by_name = rng.range(1, 100) <= 60;
        if self.by_name {
            run_last_name(rng, &mut self.last);
        } else {
            self.id = nurand(rng, 1023, C_ID, 1, CUSTOMERS);
        }
    }

    /// The customer's number in district `d` of warehouse `w`; `by_last` lists the ids of
    /// a last name's customers ordered by first name.
    pub fn id(&mut self, c: &mut dyn SqlClient, by_last: Stmt, (w, d): (i64, i64)) -> TxResult<i64> {
        if !self.by_name {
            return Ok(self.id);
        }
        self.ids.clear();
        let (ids, mut bad) = (&mut self.ids, None);
        each(c, by_last, &[Int(w), Int(d), Text(&self.last)], |_, v| match int(v, "c_id") {
            Ok(id) => ids.push(id),
            Err(e) => bad = Some(e),
        })?;
        if let Some(e) = bad {
            return Err(e);
        }
        // The one at position ceil(n / 2), counting from 1.
        let n = self.ids.len();
        self.ids.get(n.saturating_sub(1) / 2).copied().ok_or_else(|| {
            TxError::Fail(format!("tpcc: no customer named {} in district {d} of warehouse {w}", self.last))
        })
    }
}

/// The statement that lists a last name's customers by first name.
pub const BY_LAST: &str = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first";
