//! The New-Order transaction (clause 2.4): an order of 5 to 15 lines entered in one
//! database transaction, 1% of them rolled back on an unused item number.

use super::random::{C_ID, C_ITEM, CUSTOMERS, DISTRICTS, ITEMS, nurand};
use super::read::{decimal, each, int, keep};
use super::{Draw, for_update};
use crate::engine::Param::{Int, Text};
use crate::engine::{Dialect, SqlClient, Stmt, TxError, TxResult};
use crate::rng::Rng;

/// Its statements, prepared once per client.
pub struct Stmts {
    warehouse: Stmt,
    district: Stmt,
    next_order: Stmt,
    customer: Stmt,
    order: Stmt,
    new_order: Stmt,
    item: Stmt,
    stock: Stmt,
    update_stock: Stmt,
    line: Stmt,
}

impl Stmts {
    /// Prepare them on `c`.
    pub fn prepare(c: &mut dyn SqlClient, d: Dialect) -> TxResult<Stmts> {
        let lock = for_update(d);
        let dists: Vec<String> = (1..=DISTRICTS).map(|d| format!("s_dist_{d:02}")).collect();
        Ok(Stmts {
            warehouse: c.prepare("SELECT w_tax FROM warehouse WHERE w_id = ?")?,
            district: c.prepare(&format!("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?{lock}"))?,
            next_order: c.prepare("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?")?,
            customer: c.prepare("SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")?,
            order: c.prepare("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?)")?,
            new_order: c.prepare("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")?,
            item: c.prepare("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?")?,
            stock: c.prepare(&format!(
                "SELECT s_quantity, s_data, {} FROM stock WHERE s_i_id = ? AND s_w_id = ?{lock}",
                dists.join(", ")
            ))?,
            update_stock: c.prepare("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?")?,
            line: c.prepare("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ? * 0.01, ?)")?,
        })
    }
}

/// One order line as drawn: item, supplying warehouse, quantity.
#[derive(Clone, Copy, Default)]
struct Line {
    item: i64,
    supply: i64,
    quantity: i64,
}

/// The order's inputs (clause 2.4.1), kept for a retry.
#[derive(Default)]
pub struct Input {
    w: i64,
    d: i64,
    c: i64,
    lines: [Line; 15],
    n: usize,
    /// The district's distribution text of the line being entered.
    dist: String,
    /// Columns read, as text, their room reused.
    text: [String; 6],
}

impl Input {
    /// Draw a new order of home warehouse `w`.
    pub fn draw(&mut self, rng: &mut Rng, at: Draw) {
        self.w = at.warehouse(rng);
        self.d = rng.range(1, DISTRICTS);
        self.c = nurand(rng, 1023, C_ID, 1, CUSTOMERS);
        self.n = rng.range(5, 15) as usize;
        let rollback = rng.range(1, 100) == 1;
        for (i, l) in self.lines[..self.n].iter_mut().enumerate() {
            let unused = rollback && i + 1 == self.n;
            l.item = if unused { ITEMS + 1 } else { nurand(rng, 8191, C_ITEM, 1, ITEMS) };
            // 1% of lines come from another warehouse, when there is one.
            l.supply = if at.warehouses > 1 && rng.range(1, 100) == 1 { at.other(rng, self.w) } else { self.w };
            l.quantity = rng.range(1, 10);
        }
        // Stock rows locked in one order by every client: fewer deadlocks, as other
        // implementations do; the unused item stays last.
        self.lines[..self.n].sort_by_key(|l| (l.item > ITEMS, l.supply, l.item));
    }

    /// Enter the order; an unused item rolls it back, which completes it as the
    /// specification asks.
    pub fn run(&mut self, c: &mut dyn SqlClient, s: &Stmts) -> TxResult<()> {
        let (w, d) = (self.w, self.d);
        c.begin(true)?;
        let [tax, d_tax, next, discount, ..] = &mut self.text;
        each(c, s.warehouse, &[Int(w)], |_, v| keep(tax, v))?;
        each(c, s.district, &[Int(w), Int(d)], |i, v| match i {
            0 => keep(d_tax, v),
            _ => keep(next, v),
        })?;
        let o = int(next, "d_next_o_id")?;
        c.execute(s.next_order, &[Int(w), Int(d)])?;
        each(c, s.customer, &[Int(w), Int(d), Int(self.c)], |i, v| {
            if i == 0 {
                keep(discount, v)
            }
        })?;
        let all_local = self.lines[..self.n].iter().all(|l| l.supply == w);
        c.execute(s.order, &[Int(o), Int(d), Int(w), Int(self.c), Int(self.n as i64), Int(i64::from(all_local))])?;
        c.execute(s.new_order, &[Int(o), Int(d), Int(w)])?;
        let mut total = 0;
        for number in 0..self.n {
            let line = self.lines[number];
            let Some(amount) = self.line(c, s, (o, number as i64 + 1), line)? else {
                c.rollback();
                return Ok(());
            };
            total += amount;
        }
        // The order's total, as the terminal would show it: computed, not stored.
        let [tax, d_tax, _, discount, ..] = &self.text;
        let discount = decimal(discount, 4, "c_discount")?;
        let taxes = decimal(tax, 4, "w_tax")? + decimal(d_tax, 4, "d_tax")?;
        std::hint::black_box(total * (10_000 - discount) / 10_000 * (10_000 + taxes) / 10_000);
        c.commit()
    }

    /// Enter one line of order `o`: its amount in cents, none when its item is unused.
    fn line(&mut self, c: &mut dyn SqlClient, s: &Stmts, (o, number): (i64, i64), l: Line) -> TxResult<Option<i64>> {
        let [.., price, quantity] = &mut self.text;
        if each(c, s.item, &[Int(l.item)], |i, v| {
            if i == 0 {
                keep(price, v)
            }
        })? == 0
        {
            return Ok(None);
        }
        let price = decimal(price, 2, "i_price")?;
        let (dist_col, dist) = (1 + self.d as usize, &mut self.dist);
        let found = each(c, s.stock, &[Int(l.item), Int(l.supply)], |i, v| match i {
            0 => keep(quantity, v),
            i if i == dist_col => keep(dist, v),
            _ => {}
        })?;
        if found == 0 {
            return Err(TxError::Fail(format!("tpcc: no stock row for item {} of warehouse {}", l.item, l.supply)));
        }
        let have = int(quantity, "s_quantity")?;
        let left = if have >= l.quantity + 10 { have - l.quantity } else { have - l.quantity + 91 };
        let remote = i64::from(l.supply != self.w);
        c.execute(s.update_stock, &[Int(left), Int(l.quantity), Int(remote), Int(l.item), Int(l.supply)])?;
        let amount = l.quantity * price;
        let (w, d) = (self.w, self.d);
        let (item, supply, dist) = (Int(l.item), Int(l.supply), Text(&self.dist));
        c.execute(s.line, &[Int(o), Int(d), Int(w), Int(number), item, supply, Int(l.quantity), Int(amount), dist])?;
        Ok(Some(amount))
    }
}
