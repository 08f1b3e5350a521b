//! The nine tables of clause 1.3 with their columns and primary keys, and the secondary
//! indexes the transactions read by: customers by last name (clause 2.5.2.2's lookup) and
//! a customer's orders, newest first (Order-Status).

use crate::engine::Dialect;

/// One table: its name, columns and primary key.
pub struct Table {
    /// Its name, as the specification's.
    pub name: &'static str,
    /// Its columns' definitions.
    pub columns: String,
    /// Its primary key's columns.
    pub key: Option<&'static str>,
}

/// The tables, in the order they are created; `ts` is the dialect's timestamp type.
pub fn tables(dialect: Dialect) -> Vec<Table> {
    // MySQL's TIMESTAMP may update itself on every change of its row: DATETIME does not.
    let ts = if dialect == Dialect::Mysql { "datetime" } else { "timestamp" };
    let place = |p: &str| {
        format!(
            "{p}_street_1 varchar(20), {p}_street_2 varchar(20), {p}_city varchar(20), {p}_state char(2), {p}_zip char(9)"
        )
    };
    let dists: Vec<String> = (1..=10).map(|d| format!("s_dist_{d:02} char(24)")).collect();
    vec![
        Table {
            name: "warehouse",
            columns: format!(
                "w_id integer not null, w_name varchar(10), {}, w_tax decimal(4,4), w_ytd decimal(12,2)",
                place("w")
            ),
            key: Some("w_id"),
        },
        Table {
            name: "district",
            columns: format!(
                "d_id integer not null, d_w_id integer not null, d_name varchar(10), {}, d_tax decimal(4,4), d_ytd decimal(12,2), d_next_o_id integer",
                place("d")
            ),
            key: Some("d_w_id, d_id"),
        },
        Table {
            name: "customer",
            columns: format!(
                "c_id integer not null, c_d_id integer not null, c_w_id integer not null, c_first varchar(16), c_middle char(2), c_last varchar(16), {}, c_phone char(16), c_since {ts}, c_credit char(2), c_credit_lim decimal(12,2), c_discount decimal(4,4), c_balance decimal(12,2), c_ytd_payment decimal(12,2), c_payment_cnt integer, c_delivery_cnt integer, c_data varchar(500)",
                place("c")
            ),
            key: Some("c_w_id, c_d_id, c_id"),
        },
        Table {
            name: "history",
            columns: format!(
                "h_c_id integer, h_c_d_id integer, h_c_w_id integer, h_d_id integer, h_w_id integer, h_date {ts}, h_amount decimal(6,2), h_data varchar(24)"
            ),
            key: None,
        },
        Table {
            name: "new_order",
            columns: "no_o_id integer not null, no_d_id integer not null, no_w_id integer not null".into(),
            key: Some("no_w_id, no_d_id, no_o_id"),
        },
        Table {
            name: "orders",
            columns: format!(
                "o_id integer not null, o_d_id integer not null, o_w_id integer not null, o_c_id integer, o_entry_d {ts}, o_carrier_id integer, o_ol_cnt integer, o_all_local integer"
            ),
            key: Some("o_w_id, o_d_id, o_id"),
        },
        Table {
            name: "order_line",
            columns: format!(
                "ol_o_id integer not null, ol_d_id integer not null, ol_w_id integer not null, ol_number integer not null, ol_i_id integer, ol_supply_w_id integer, ol_delivery_d {ts}, ol_quantity integer, ol_amount decimal(6,2), ol_dist_info char(24)"
            ),
            key: Some("ol_w_id, ol_d_id, ol_o_id, ol_number"),
        },
        Table {
            name: "item",
            columns:
                "i_id integer not null, i_im_id integer, i_name varchar(24), i_price decimal(5,2), i_data varchar(50)"
                    .into(),
            key: Some("i_id"),
        },
        Table {
            name: "stock",
            columns: format!(
                "s_i_id integer not null, s_w_id integer not null, s_quantity integer, {}, s_ytd integer, s_order_cnt integer, s_remote_cnt integer, s_data varchar(50)",
                dists.join(", ")
            ),
            key: Some("s_w_id, s_i_id"),
        },
    ]
}

/// The secondary indexes, made after the load.
pub const INDEXES: [&str; 2] = [
    "CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
];
