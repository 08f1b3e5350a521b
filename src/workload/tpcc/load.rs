//! The initial population of clause 4.3.3.1, generated per warehouse so that warehouses
//! and tables load side by side over the `Loader`'s connections.

use super::random::{
    C_LAST_LOAD, CUSTOMERS, DISTRICTS, FIRST_NEW_ORDER, ITEMS, astring, data_maybe_original, fixed, last_name, nstring,
    nurand, state, zip,
};
use super::schema::{INDEXES, tables};
use crate::engine::{Connection, Datum, SqlClient};
use crate::error::Result;
use crate::rng::Rng;
use crate::workload::{Loader, WorkloadOptions, sql, step, until_signal};

/// One piece of the load, on a connection of its own.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// The item table, shared by every warehouse.
    Items,
    /// A warehouse and its districts.
    Warehouse(i64),
    /// A warehouse's stock.
    Stock(i64),
    /// A warehouse's customers and their first payment in history.
    Customers(i64),
    /// A warehouse's orders, their lines and the undelivered ones.
    Orders(i64),
}

/// Create the tables, load them side by side, then keys and indexes.
pub fn load(load: &mut Loader, opts: &WorkloadOptions) -> Result<()> {
    load.phase("create tables", |conn| {
        let c = sql(conn, "tpcc")?;
        let dialect = c.dialect();
        for t in tables(dialect) {
            step(&format!("create {}", t.name), c.create_table(t.name, &t.columns, t.key))?;
        }
        Ok(())
    })?;
    let now = now();
    let warehouses = i64::from(opts.tpcc.warehouses);
    // The largest first, so the last to finish is a small one.
    let mut jobs: Vec<Job> = (1..=warehouses).flat_map(|w| [Job::Stock(w), Job::Orders(w)]).collect();
    jobs.extend((1..=warehouses).map(Job::Customers));
    jobs.push(Job::Items);
    jobs.extend((1..=warehouses).map(Job::Warehouse));
    load.side_by_side("generate", &jobs, |conn, job| run(conn, *job, &now))?;
    load.phase("vacuum and keys", |conn| step("finish the load", sql(conn, "tpcc")?.finish_load()))?;
    load.phase("indexes", |conn| {
        let c = sql(conn, "tpcc")?;
        INDEXES.iter().try_for_each(|i| step("create an index", c.batch(i)))
    })
}

/// The load's timestamp, as SQL reads it: now, in UTC.
fn now() -> String {
    let t = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    t.trim_end_matches('Z').replace('T', " ")
}

/// Load one job's rows over `conn`.
fn run(conn: &mut Connection, job: Job, now: &str) -> Result<()> {
    let c = sql(conn, "tpcc")?;
    let seed = match job {
        Job::Items => 1,
        Job::Warehouse(w) => (w << 8) | 2,
        Job::Stock(w) => (w << 8) | 3,
        Job::Customers(w) => (w << 8) | 4,
        Job::Orders(w) => (w << 8) | 5,
    };
    let mut rng = Rng::new(seed as u64);
    match job {
        Job::Items => items(c, &mut rng),
        Job::Warehouse(w) => warehouse(c, &mut rng, w),
        Job::Stock(w) => stock(c, &mut rng, w),
        Job::Customers(w) => customers(c, &mut rng, w, now),
        Job::Orders(w) => orders(c, &mut rng, w, now),
    }
}

/// Put `rows` into `table`'s `columns`.
fn put(c: &mut dyn SqlClient, table: &str, columns: &[&str], rows: impl Iterator<Item = Vec<Datum>>) -> Result<()> {
    step(&format!("load {table}"), c.load_more(table, columns, &mut until_signal(rows))).map(drop)
}

fn text(s: impl Into<String>) -> Datum {
    Datum::Text(s.into())
}

/// A street, a city, a state and a zip code.
fn place(rng: &mut Rng) -> [Datum; 5] {
    [
        text(astring(rng, 10, 20)),
        text(astring(rng, 10, 20)),
        text(astring(rng, 10, 20)),
        text(state(rng)),
        text(zip(rng)),
    ]
}

fn items(c: &mut dyn SqlClient, rng: &mut Rng) -> Result<()> {
    let rows = (1..=ITEMS).map(|i| {
        vec![
            Datum::Int(i),
            Datum::Int(rng.range(1, 10_000)),
            text(astring(rng, 14, 24)),
            text(fixed(rng.range(100, 10_000), 2)),
            text(data_maybe_original(rng)),
        ]
    });
    put(c, "item", &["i_id", "i_im_id", "i_name", "i_price", "i_data"], rows)
}

fn warehouse(c: &mut dyn SqlClient, rng: &mut Rng, w: i64) -> Result<()> {
    let mut row = vec![Datum::Int(w), text(astring(rng, 6, 10))];
    row.extend(place(rng));
    row.extend([text(fixed(rng.range(0, 2000), 4)), text("300000.00")]);
    let cols = ["w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"];
    put(c, "warehouse", &cols, std::iter::once(row))?;
    let rows: Vec<Vec<Datum>> = (1..=DISTRICTS)
        .map(|d| {
            let mut row = vec![Datum::Int(d), Datum::Int(w), text(astring(rng, 6, 10))];
            row.extend(place(rng));
            row.extend([text(fixed(rng.range(0, 2000), 4)), text("30000.00"), Datum::Int(CUSTOMERS + 1)]);
            row
        })
        .collect();
    let cols = [
        "d_id",
        "d_w_id",
        "d_name",
        "d_street_1",
        "d_street_2",
        "d_city",
        "d_state",
        "d_zip",
        "d_tax",
        "d_ytd",
        "d_next_o_id",
    ];
    put(c, "district", &cols, rows.into_iter())
}

fn stock(c: &mut dyn SqlClient, rng: &mut Rng, w: i64) -> Result<()> {
    let rows = (1..=ITEMS).map(move |i| {
        let mut row = vec![Datum::Int(i), Datum::Int(w), Datum::Int(rng.range(10, 100))];
        row.extend((0..10).map(|_| text(astring(rng, 24, 24))));
        row.extend([Datum::Int(0), Datum::Int(0), Datum::Int(0), text(data_maybe_original(rng))]);
        row
    });
    let dists: Vec<String> = (1..=10).map(|d| format!("s_dist_{d:02}")).collect();
    let mut cols = vec!["s_i_id", "s_w_id", "s_quantity"];
    cols.extend(dists.iter().map(String::as_str));
    cols.extend(["s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"]);
    put(c, "stock", &cols, rows)
}

fn customers(c: &mut dyn SqlClient, rng: &mut Rng, w: i64, now: &str) -> Result<()> {
    let every = (1..=DISTRICTS).flat_map(|d| (1..=CUSTOMERS).map(move |id| (d, id)));
    let mut last = String::new();
    let rows = every.clone().map(|(d, id)| {
        let n = if id <= 1000 { id - 1 } else { nurand(rng, 255, C_LAST_LOAD, 0, 999) };
        last_name(n, &mut last);
        let mut row = vec![Datum::Int(id), Datum::Int(d), Datum::Int(w), text(astring(rng, 8, 16)), text("OE")];
        row.push(text(last.as_str()));
        row.extend(place(rng));
        row.extend([
            text(nstring(rng, 16)),
            text(now),
            text(if rng.range(1, 10) == 1 { "BC" } else { "GC" }),
            text("50000.00"),
            text(fixed(rng.range(0, 5000), 4)),
            text("-10.00"),
            text("10.00"),
            Datum::Int(1),
            Datum::Int(0),
            text(astring(rng, 300, 500)),
        ]);
        row
    });
    let cols = [
        "c_id",
        "c_d_id",
        "c_w_id",
        "c_first",
        "c_middle",
        "c_last",
        "c_street_1",
        "c_street_2",
        "c_city",
        "c_state",
        "c_zip",
        "c_phone",
        "c_since",
        "c_credit",
        "c_credit_lim",
        "c_discount",
        "c_balance",
        "c_ytd_payment",
        "c_payment_cnt",
        "c_delivery_cnt",
        "c_data",
    ];
    put(c, "customer", &cols, rows)?;
    let history = every.map(|(d, id)| {
        let ids = [id, d, w, d, w].map(Datum::Int);
        let mut row = ids.to_vec();
        row.extend([text(now), text("10.00"), text(astring(rng, 12, 24))]);
        row
    });
    let cols = ["h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"];
    put(c, "history", &cols, history)
}

fn orders(c: &mut dyn SqlClient, rng: &mut Rng, w: i64, now: &str) -> Result<()> {
    // Each order's customer: a random permutation of its district's customers; its
    // number of lines, kept for the lines' pass.
    let mut customers: Vec<i64> = Vec::with_capacity((DISTRICTS * CUSTOMERS) as usize);
    for _ in 1..=DISTRICTS {
        let mut d: Vec<i64> = (1..=CUSTOMERS).collect();
        rng.shuffle(&mut d);
        customers.extend(d);
    }
    let counts: Vec<i64> = (0..customers.len()).map(|_| rng.range(5, 15)).collect();
    let every = (1..=DISTRICTS).flat_map(|d| (1..=CUSTOMERS).map(move |o| (d, o)));
    let rows = every.clone().zip(customers.iter().zip(&counts)).map(|((d, o), (&cust, &lines))| {
        let carrier = if o < FIRST_NEW_ORDER { Datum::Int(rng.range(1, 10)) } else { Datum::Null };
        let mut row = [o, d, w, cust].map(Datum::Int).to_vec();
        row.extend([text(now), carrier, Datum::Int(lines), Datum::Int(1)]);
        row
    });
    let cols = ["o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"];
    put(c, "orders", &cols, rows)?;
    let undelivered = (1..=DISTRICTS)
        .flat_map(|d| (FIRST_NEW_ORDER..=CUSTOMERS).map(move |o| vec![Datum::Int(o), Datum::Int(d), Datum::Int(w)]));
    put(c, "new_order", &["no_o_id", "no_d_id", "no_w_id"], undelivered)?;
    let lines = every.zip(counts.iter()).flat_map(|((d, o), &n)| (1..=n).map(move |n| (d, o, n)));
    let rows = lines.map(|(d, o, n)| {
        let (when, amount) = match o < FIRST_NEW_ORDER {
            true => (text(now), text("0.00")),
            false => (Datum::Null, text(fixed(rng.range(1, 999_999), 2))),
        };
        let mut row = [o, d, w, n, rng.range(1, ITEMS), w].map(Datum::Int).to_vec();
        row.extend([when, Datum::Int(5), amount, text(astring(rng, 24, 24))]);
        row
    });
    let cols = [
        "ol_o_id",
        "ol_d_id",
        "ol_w_id",
        "ol_number",
        "ol_i_id",
        "ol_supply_w_id",
        "ol_delivery_d",
        "ol_quantity",
        "ol_amount",
        "ol_dist_info",
    ];
    put(c, "order_line", &cols, rows)
}
