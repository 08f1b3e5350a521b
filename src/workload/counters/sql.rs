//! Counters on SQL engines: the table per `--counters-schema`, the upsert and range read
//! in each dialect, and the sums a verify reads back.
//!
//! `json`: a document per bucket, as Trifle::Stats' drivers keep it (flat, paths as keys),
//! each counter added in place: PostgreSQL `jsonb ||  jsonb_build_object(…)`, MariaDB/MySQL
//! `JSON_SET(…)` in `ON DUPLICATE KEY UPDATE`, SQLite json1's `json_set(…)` in `ON CONFLICT`.
//! `rows`: a row per counter per bucket and one multi-row upsert per bucket,
//! `value = value + excluded.value`. Either way a track is seven statements in one
//! transaction, finest bucket first (every track locks in the same order: no deadlock
//! between two tracks of one key).

use super::buckets::Granularity;
use super::clock::{Clock, Ranges};
use super::kind::{Data, Keeps};
use super::options::{CountersOptions, MAX_VALUES, Schema};
use super::pick::{Pick, wrong_read};
use super::{Totals, document, increment, metric, paths};
use crate::engine::{Connection, Datum, Dialect, Interface, Param, SqlClient, Stmt, TxResult};
use crate::error::Result;
use crate::workload::store::{Kind, Need, into_sql, sql};
use crate::workload::{Transactor, step, until_signal};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

const TABLE: &str = "dbrace_counters";
/// The columns naming a bucket: its key (metric), granularity and start.
const BUCKET: &str = "metric varchar(64) not null, granularity varchar(8) not null, at bigint not null";
/// The most parameters of one upsert (a row per counter: four each).
const MAX_PARAMS: usize = 4 * MAX_VALUES as usize;

/// Create the table; load the read data set (`data`: per granularity, the buckets each
/// key holds and how many tracks filled each), if any.
fn prepare(c: &mut dyn SqlClient, o: &CountersOptions, data: Option<&[Vec<(i64, u64)>]>) -> Result<()> {
    create(c, o)?;
    if let Some(data) = data {
        load(c, o, data)?;
    }
    step("finish the load", c.finish_load())
}

fn create(c: &mut dyn SqlClient, o: &CountersOptions) -> Result<()> {
    let key = match o.schema {
        Schema::Json => "metric, granularity, at",
        Schema::Rows => "metric, granularity, at, path",
    };
    create_table(c, o, key)?;
    if c.dialect() == Dialect::Mysql {
        // MEMORY tables (the unlogged profile) index a primary key by hash, which cannot
        // serve a range read (every read would scan the table): ask for a B-tree, as a
        // metrics library on MEMORY tables would; InnoDB's key is one anyway.
        let sql = format!("ALTER TABLE {TABLE} DROP PRIMARY KEY, ADD PRIMARY KEY USING BTREE ({key})");
        step("create table", c.batch(&sql))?;
    }
    Ok(())
}

fn create_table(c: &mut dyn SqlClient, o: &CountersOptions, key: &str) -> Result<()> {
    let key = Some(key);
    if o.schema == Schema::Rows {
        let cols = format!("{BUCKET}, path varchar(64) not null, value bigint not null");
        return step("create table", c.create_table(TABLE, &cols, key));
    }
    let doc = match c.dialect() {
        Dialect::Postgres => "jsonb",
        Dialect::Mysql => "json",
        Dialect::Sqlite => "text",
    };
    match c.create_table(TABLE, &format!("{BUCKET}, data {doc} not null"), key) {
        // MariaDB's JSON is a LONGTEXT, which MEMORY tables (the unlogged profile) refuse:
        // a varchar long enough for the document holds it there.
        Err(first) if c.dialect() == Dialect::Mysql => {
            let cols = format!("{BUCKET}, data varchar({}) not null", 48 * o.values + 16);
            c.create_table(TABLE, &cols, key).map_err(|_| failed!("create table: {first}"))
        }
        r => step("create table", r),
    }
}

fn load(c: &mut dyn SqlClient, o: &CountersOptions, data: &[Vec<(i64, u64)>]) -> Result<()> {
    let paths = &paths(o.values);
    let buckets = (0..o.keys as usize).flat_map(|k| {
        let m = metric(k);
        Granularity::ALL.into_iter().flat_map(move |g| {
            let m = m.clone();
            data[g.index()].iter().map(move |&(start, n)| (m.clone(), g, start, n))
        })
    });
    let bucket =
        |m: String, g: Granularity, start: i64| vec![Datum::Text(m), Datum::Text(g.code().into()), Datum::Int(start)];
    let n = match o.schema {
        Schema::Json => {
            let mut rows = until_signal(buckets.map(|(m, g, start, n)| {
                let mut row = bucket(m, g, start);
                row.push(Datum::Text(document(paths, n)));
                row
            }));
            c.load(TABLE, &["metric", "granularity", "at", "data"], &mut rows)
        }
        Schema::Rows => {
            let mut rows = until_signal(buckets.flat_map(|(m, g, start, n)| {
                paths.iter().enumerate().map(move |(j, p)| {
                    let mut row = bucket(m.clone(), g, start);
                    row.extend([Datum::Text(p.clone()), Datum::Int(n as i64 * increment(j))]);
                    row
                })
            }));
            c.load(TABLE, &["metric", "granularity", "at", "path", "value"], &mut rows)
        }
    };
    step(&format!("load {TABLE}"), n).map(drop)
}

/// A JSON path naming one top-level key (quoted: the key has dots).
fn json_path(p: &str) -> String {
    format!("'$.\"{p}\"'")
}

/// The value of counter `p` in a document, as an integer.
fn extract(d: Dialect, p: &str) -> String {
    match d {
        Dialect::Postgres => format!("(data->>'{p}')::bigint"),
        Dialect::Mysql => format!("CAST(JSON_EXTRACT(data, {}) AS SIGNED)", json_path(p)),
        Dialect::Sqlite => format!("json_extract(data, {})", json_path(p)),
    }
}

/// The upsert of one bucket: parameters metric, granularity, start, then per schema the
/// new document and each counter's increment, or (metric, granularity, start, increment)
/// per counter.
fn upsert_sql(d: Dialect, schema: Schema, paths: &[String]) -> String {
    let conflict = match d {
        Dialect::Mysql => "ON DUPLICATE KEY UPDATE".to_string(),
        _ if schema == Schema::Rows => "ON CONFLICT (metric, granularity, at, path) DO UPDATE SET".to_string(),
        _ => "ON CONFLICT (metric, granularity, at) DO UPDATE SET".to_string(),
    };
    if schema == Schema::Rows {
        let rows: Vec<String> = paths.iter().map(|p| format!("(?, ?, ?, '{p}', ?)")).collect();
        let add = match d {
            Dialect::Mysql => "value = value + VALUES(value)",
            _ => "value = dbrace_counters.value + excluded.value",
        };
        return format!(
            "INSERT INTO {TABLE} (metric, granularity, at, path, value) VALUES {} {conflict} {add}",
            rows.join(", ")
        );
    }
    match d {
        Dialect::Postgres => {
            // jsonb_build_object takes 100 arguments: 40 counters a call, joined by ||.
            let objects: Vec<String> = paths
                .chunks(40)
                .map(|ps| {
                    let pairs: Vec<String> = ps
                        .iter()
                        .map(|p| format!("'{p}', coalesce((t.data->>'{p}')::bigint, 0) + ?::bigint"))
                        .collect();
                    format!("jsonb_build_object({})", pairs.join(", "))
                })
                .collect();
            format!(
                "INSERT INTO {TABLE} AS t (metric, granularity, at, data) VALUES (?, ?, ?, ?::jsonb) {conflict} data = t.data || {}",
                objects.join(" || ")
            )
        }
        Dialect::Mysql | Dialect::Sqlite => {
            let f = if d == Dialect::Mysql { "JSON_SET" } else { "json_set" };
            let sets: Vec<String> =
                paths.iter().map(|p| format!("{}, coalesce({}, 0) + ?", json_path(p), extract(d, p))).collect();
            format!(
                "INSERT INTO {TABLE} (metric, granularity, at, data) VALUES (?, ?, ?, ?) {conflict} data = {f}(data, {})",
                sets.join(", ")
            )
        }
    }
}

/// One key's buckets of one granularity starting in [from, to): parameters metric,
/// granularity, from, to.
fn select_sql(schema: Schema) -> String {
    let cols = if schema == Schema::Json { "data" } else { "path, value" };
    format!("SELECT {cols} FROM {TABLE} WHERE metric = ? AND granularity = ? AND at >= ? AND at < ?")
}

/// A client tracking: one transaction of seven upserts per call.
struct Writer {
    c: Box<dyn SqlClient>,
    upsert: Stmt,
    schema: Schema,
    /// The key and timestamp of the current track (kept for a retry).
    pick: Pick<i64>,
    /// A new bucket's document: one track's counters.
    doc: String,
    incs: Vec<i64>,
    clock: Clock,
}

/// A client tracking on a SQL engine.
fn writer(mut c: Box<dyn SqlClient>, o: &CountersOptions, seed: u64) -> Result<Box<dyn Transactor>> {
    let paths = paths(o.values);
    let upsert = step("prepare", c.prepare(&upsert_sql(c.dialect(), o.schema, &paths)))?;
    Ok(Box::new(Writer {
        c,
        upsert,
        schema: o.schema,
        pick: Pick::new(o, seed),
        doc: document(&paths, 1),
        incs: (0..paths.len()).map(increment).collect(),
        clock: Clock::new(o),
    }))
}

impl Transactor for Writer {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        use Param::{Int, Text};
        let (m, at) = self.pick.next(retry, |_| self.clock.tick());
        let mut p = [Int(0); MAX_PARAMS];
        self.c.begin(true)?;
        for g in Granularity::ALL {
            let bucket = [Text(m), Text(g.code()), Int(g.floor(at))];
            let n = match self.schema {
                Schema::Json => {
                    p[..3].copy_from_slice(&bucket);
                    p[3] = Text(&self.doc);
                    for (slot, inc) in p[4..].iter_mut().zip(&self.incs) {
                        *slot = Int(*inc);
                    }
                    4 + self.incs.len()
                }
                Schema::Rows => {
                    for (row, inc) in p.chunks_exact_mut(4).zip(&self.incs) {
                        row[..3].copy_from_slice(&bucket);
                        row[3] = Int(*inc);
                    }
                    4 * self.incs.len()
                }
            };
            self.c.execute(self.upsert, &p[..n])?;
        }
        self.c.commit()
    }
    fn abort(&mut self) {
        self.c.rollback();
    }
    fn measuring(&mut self) {
        self.clock.restart();
    }
}

/// A client reading ranges of the data set.
struct Reader {
    c: Box<dyn SqlClient>,
    select: Stmt,
    pick: Pick<usize>,
    range: Ranges,
    /// Rows a bucket reads as: one document, or a row per counter.
    per_bucket: u64,
    wrong: Arc<AtomicU64>,
}

/// A client reading on a SQL engine.
fn reader(
    mut c: Box<dyn SqlClient>,
    o: &CountersOptions,
    seed: u64,
    wrong: Arc<AtomicU64>,
) -> Result<Box<dyn Transactor>> {
    let select = step("prepare", c.prepare(&select_sql(o.schema)))?;
    Ok(Box::new(Reader {
        c,
        select,
        pick: Pick::new(o, seed),
        range: Ranges::new(o),
        per_bucket: if o.schema == Schema::Json { 1 } else { u64::from(o.values) },
        wrong,
    }))
}

impl Transactor for Reader {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        use Param::{Int, Text};
        let (m, end) = self.pick.next(retry, |rng| self.range.draw(rng));
        let (from, to, buckets) = self.range.bounds(end);
        let g = self.range.granularity;
        let params = [Text(m), Text(g.code()), Int(from), Int(to)];
        let rows = self.c.query_rows(self.select, &params)?;
        let want = buckets.len() as u64 * self.per_bucket;
        if rows != want {
            return Err(wrong_read(&self.wrong, m, (from, to), g, format!("returned {rows} rows, want {want}")));
        }
        Ok(())
    }
    fn abort(&mut self) {}
}

/// Every path's sum and the buckets, per granularity, over the whole table.
fn totals(c: &mut dyn SqlClient, o: &CountersOptions) -> Result<Totals> {
    let paths = paths(o.values);
    let d = c.dialect();
    let sql = match o.schema {
        Schema::Json => {
            let sums: Vec<String> = paths.iter().map(|p| format!("coalesce(sum({}), 0)", extract(d, p))).collect();
            format!("SELECT count(*), {} FROM {TABLE} WHERE granularity = ?", sums.join(", "))
        }
        Schema::Rows => {
            format!("SELECT path, count(*), coalesce(sum(value), 0) FROM {TABLE} WHERE granularity = ? GROUP BY path")
        }
    };
    let stmt = step("verify", c.prepare(&sql))?;
    let mut t = Totals::new(o.values);
    let mut bad: Option<String> = None;
    for g in Granularity::ALL {
        let (buckets, sums) = (&mut t.buckets[g.index()], &mut t.sums[g.index()]);
        let mut path = None;
        let mut row = |i: usize, _: &str, v: Option<&str>| {
            let v = v.unwrap_or("0");
            // SUM is a numeric or decimal on some engines: "12" or "12.0".
            let n = v.parse::<i64>().ok().or_else(|| v.parse::<f64>().ok().map(|f| f as i64));
            let n = match (o.schema, i) {
                (Schema::Rows, 0) => {
                    path = paths.iter().position(|p| p == v);
                    if path.is_none() {
                        t.strays += 1;
                    }
                    return;
                }
                _ => match n {
                    Some(n) => n,
                    None => {
                        bad = Some(format!("{} column {i}: '{v}' is not a number", g.name()));
                        return;
                    }
                },
            };
            match (o.schema, i) {
                (Schema::Json, 0) => *buckets = n as u64,
                (Schema::Json, i) => sums[i - 1] = n,
                (Schema::Rows, 1) if path == Some(0) => *buckets = n as u64,
                (Schema::Rows, 1) => {}
                (Schema::Rows, _) => {
                    if let Some(j) = path {
                        sums[j] = n;
                    }
                }
            }
        };
        step("verify", c.query_each(stmt, &[Param::Text(g.code())], &mut row))?;
    }
    match bad {
        Some(m) => Err(failed!("verify: {m}")),
        None => Ok(t),
    }
}

/// Buckets as rows of a SQL table.
pub(super) struct Sql;

impl Kind for Sql {
    fn need(&self) -> Need {
        Need { interface: Interface::Sql, capabilities: &[] }
    }
}

impl Keeps for Sql {
    fn prepare(&self, conn: &mut Connection, o: &CountersOptions, data: Option<Data>) -> Result<()> {
        prepare(sql(conn)?, o, data)
    }
    fn writer(&self, conn: Connection, o: &CountersOptions, seed: u64) -> Result<Box<dyn Transactor>> {
        writer(into_sql(conn)?, o, seed)
    }
    fn reader(
        &self,
        conn: Connection,
        o: &CountersOptions,
        seed: u64,
        wrong: Arc<AtomicU64>,
    ) -> Result<Box<dyn Transactor>> {
        reader(into_sql(conn)?, o, seed, wrong)
    }
    /// A SQL store sums by itself, over the whole table.
    fn totals(&self, conn: &mut Connection, o: &CountersOptions, _reach: Data) -> Result<Totals> {
        totals(sql(conn)?, o)
    }
}
