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
