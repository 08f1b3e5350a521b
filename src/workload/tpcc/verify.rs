//! The specification's consistency conditions 1 to 4 (clause 3.3.2), checked after the
//! run: each query counts the warehouses or districts that break one.

use super::random::{CUSTOMERS, DISTRICTS, ITEMS};
use crate::engine::SqlClient;
use crate::error::Result;
use crate::workload::{Verdict, step};

/// Each condition and the query counting what breaks it.
const CONDITIONS: [(&str, &str); 4] = [
    (
        "1: W_YTD = sum(D_YTD)",
        // Within half a cent: SQLite keeps decimals as doubles.
        "SELECT COUNT(*) FROM warehouse WHERE ABS(w_ytd - (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id)) > 0.005",
    ),
    (
        "2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        "SELECT COUNT(*) FROM district WHERE d_next_o_id - 1 <> (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) OR d_next_o_id - 1 <> (SELECT COALESCE(MAX(no_o_id), d_next_o_id - 1) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id)",
    ),
    (
        "3: max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER",
        "SELECT COUNT(*) FROM (SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)) broken",
    ),
    (
        "4: sum(O_OL_CNT) = rows in ORDER-LINE",
        "SELECT COUNT(*) FROM district WHERE (SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) <> (SELECT COUNT(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id)",
    ),
];

/// Check the four conditions, and that the tables no transaction adds to hold the rows
/// of `warehouses` warehouses; the verdict names what is broken and where.
pub fn consistent(c: &mut dyn SqlClient, warehouses: i64) -> Result<Verdict> {
    let mut broken = Vec::new();
    let fixed = [
        ("warehouse", warehouses),
        ("district", warehouses * DISTRICTS),
        ("customer", warehouses * DISTRICTS * CUSTOMERS),
        ("stock", warehouses * ITEMS),
        ("item", ITEMS),
    ];
    for (table, want) in fixed {
        let n = step("verify", c.scalar(&format!("SELECT COUNT(*) FROM {table}")))?;
        if n != want {
            broken.push(format!("{table} holds {n} rows, not the {want} of {warehouses} warehouses"));
        }
    }
    for (name, query) in CONDITIONS {
        let n = step("verify", c.scalar(query))?;
        if n > 0 {
            broken.push(format!("condition {name} fails in {n}"));
        }
    }
    let mut rows = Vec::new();
    for t in ["orders", "order_line", "new_order", "history"] {
        rows.push(format!("{t} {}", step("verify", c.scalar(&format!("SELECT COUNT(*) FROM {t}")))?));
    }
    let ok = broken.is_empty();
    let held = if ok { "consistency conditions 1-4 hold".to_string() } else { broken.join("; ") };
    let detail = format!("{held}; rows: {}", rows.join(", "));
    Ok(Verdict { ok, detail })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, Launch, Machine, Target};
    use crate::workload::{Loader, WorkloadOptions};

    /// One warehouse loaded into a throwaway SQLite database; `break_it` then changes it.
    fn verdict(break_it: &str) -> Verdict {
        let profile = crate::profile::Profile::builtin("nosync").unwrap();
        let base = tempfile::tempdir().unwrap();
        let data = Some(crate::instance::DataDir::create(base.path()).unwrap());
        let (storage, machine) = (crate::instance::Storage { data, wal: None }, Machine::default());
        let launch = Launch::run(&profile, &Target::Managed, &storage, &machine);
        let db = crate::engine::sqlite::Sqlite.launch(&launch).unwrap();
        let mut l = Loader::new(&*db).unwrap();
        super::super::load::load(&mut l, &WorkloadOptions::default()).unwrap();
        let mut conn = db.connect().unwrap();
        let c = conn.sql().unwrap();
        if !break_it.is_empty() {
            c.batch(break_it).unwrap();
        }
        consistent(c, 1).unwrap()
    }

    #[test]
    fn the_loaded_data_holds_and_each_break_is_named() {
        let v = verdict("");
        assert!(v.ok, "{}", v.detail);
        let v = verdict("UPDATE warehouse SET w_ytd = w_ytd + 1");
        assert!(!v.ok && v.detail.contains("condition 1: W_YTD = sum(D_YTD) fails in 1"), "{}", v.detail);
        let v = verdict("DELETE FROM new_order WHERE no_o_id = 2500 AND no_d_id = 3");
        assert!(!v.ok && v.detail.contains("condition 3") && !v.detail.contains("condition 2"), "{}", v.detail);
        let v = verdict("DELETE FROM order_line WHERE ol_o_id = 7 AND ol_number = 1");
        assert!(!v.ok && v.detail.contains("condition 4"), "{}", v.detail);
        let v = verdict("UPDATE district SET d_next_o_id = 3005 WHERE d_id = 2");
        assert!(!v.ok && v.detail.contains("condition 2"), "{}", v.detail);
        let v = verdict("DELETE FROM stock WHERE s_i_id = 1");
        assert!(!v.ok && v.detail.contains("stock holds 99999 rows, not the 100000 of 1 warehouses"), "{}", v.detail);
    }
}
