//! sysbench 1.0's OLTP scripts (oltp_common.lua) with their default options: `oltp-rw`
//! (oltp_read_write), `oltp-ro` (oltp_read_only) and `oltp-wo` (oltp_write_only) on tables
//! sbtest1..N. Each group of statements picks its table uniformly and draws its ids from
//! sysbench 1.0's default distribution, 'special', as sysbench does.

pub mod options;

use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, into_sql, sql, step, until_signal};
use crate::engine::{Connection, Datum, Interface, Param, SqlClient, Stmt, TxError, TxResult};
use crate::error::Result;
use crate::rng::Rng;

/// Which statements a transaction runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mix {
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

impl Mix {
    fn reads(self) -> bool {
        self != Mix::WriteOnly
    }
    fn writes(self) -> bool {
        self != Mix::ReadOnly
    }
}

/// One of sysbench's OLTP scripts as a workload.
pub struct Oltp {
    mix: Mix,
    name: &'static str,
    about: &'static str,
}

/// sysbench oltp_read_write.
pub const OLTP_RW: Oltp = Oltp {
    mix: Mix::ReadWrite,
    name: "oltp-rw",
    about: "sysbench oltp_read_write: 10 point selects, 4 range selects, 2 updates, a delete + insert",
};
/// sysbench oltp_read_only.
pub const OLTP_RO: Oltp = Oltp {
    mix: Mix::ReadOnly,
    name: "oltp-ro",
    about: "sysbench oltp_read_only: 10 point selects, 4 range selects, in BEGIN … COMMIT",
};
/// sysbench oltp_write_only.
pub const OLTP_WO: Oltp =
    Oltp { mix: Mix::WriteOnly, name: "oltp-wo", about: "sysbench oltp_write_only: 2 updates, a delete + insert" };

/// sysbench's --point-selects and --range-size defaults (one query of each range kind).
const POINT_SELECTS: usize = 10;
const RANGE_SIZE: i64 = 100;

/// sysbench's statements, `{t}` the table number. Reads: point, simple range, sum range,
/// order range, distinct range.
const READS: [&str; 5] = [
    "SELECT c FROM sbtest{t} WHERE id=?",
    "SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest{t} WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c",
];
const POINT: usize = 0;
const SIMPLE: usize = 1;
const SUM: usize = 2;
const DISTINCT: usize = 4;
/// Writes: index update, non-index update, delete, insert.
const WRITES: [&str; 4] = [
    "UPDATE sbtest{t} SET k=k+1 WHERE id=?",
    "UPDATE sbtest{t} SET c=? WHERE id=?",
    "DELETE FROM sbtest{t} WHERE id=?",
    "INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)",
];
const INDEX_UPDATE: usize = 0;
const NON_INDEX_UPDATE: usize = 1;
const DELETE: usize = 2;
const INSERT: usize = 3;

const COLUMNS: &str = "id integer not null, k integer not null default 0, c char(120) not null default '', pad char(60) not null default ''";

/// sysbench's c and pad: groups of 11 random digits joined by dashes, ten groups
/// (119 characters) and five (59).
const C_LEN: usize = 119;
const PAD_LEN: usize = 59;

/// Every load draws from these seeds (per table), so every cell and repeat races on the
/// same rows, and oltp-ro's verify can recompute what was loaded.
const K_SEED: u64 = 0x5b7e_5700_0001;
const TEXT_SEED: u64 = 0x5b7e_5700_0002;

fn table_sql(template: &str, t: usize) -> String {
    template.replace("{t}", &t.to_string())
}

/// sysbench 1.0's default `--rand-type=special` with its default --rand-spec-iter=12,
/// --rand-spec-pct=1 and --rand-spec-res=75, step by step in the same floating point:
/// a quarter of the draws are a + (b - a) × the mean of 12 uniform draws (a bell around
/// the centre, never b), the other three quarters fall uniformly in a band about 1% of the
/// range wide at the centre (for 1..10,000: ids 4975..5051, about 3 in 4 accesses on 77 rows).
fn special(rng: &mut Rng, a: i64, b: i64) -> i64 {
    const ITER: u32 = 12;
    const PCT: f64 = 1.0;
    const RES: f64 = 75.0;
    let t = (b - a) as f64;
    let rnd = rng.unit();
    if rnd * (t * (100.0 / (100.0 - RES))) < t {
        let mut sum = 0.0;
        for _ in 0..ITER {
            sum += rng.unit();
        }
        return (a as f64 + sum * t * (1.0 / f64::from(ITER))) as i64;
    }
    let res = rnd * (t * (PCT / 100.0) + 1.0) + (t / 2.0 - t * (PCT / 200.0));
    a + res as i64
}

/// sysbench's `sysbench.rand.string` of its c / pad templates: a digit for every `#`.
fn digits(rng: &mut Rng, out: &mut [u8]) {
    for (i, b) in out.iter_mut().enumerate() {
        *b = if i % 12 == 11 { b'-' } else { b'0' + rng.range(0, 9) as u8 };
    }
}

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("digits and dashes are ASCII")
}

/// The k column as loaded into table `t`, in row order.
fn loaded_keys(t: usize, rows: i64) -> impl Iterator<Item = i64> {
    let mut rng = Rng::new(K_SEED ^ t as u64);
    (0..rows).map(move |_| special(&mut rng, 1, rows))
}

fn sizes(opts: &WorkloadOptions) -> (usize, i64) {
    (opts.oltp.tables as usize, opts.oltp.table_size as i64)
}

impl Workload for Oltp {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> &str {
        self.about
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql]
    }
    /// A row takes 264 bytes in PostgreSQL with both indexes (211 in SQLite; measured on
    /// 100,000 rows); doubled and rounded up for the log and growth.
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        u64::from(opts.oltp.tables) * opts.oltp.table_size * 550
    }
    fn size_options(&self, opts: &WorkloadOptions) -> String {
        format!("--tables {} --table-size {}", opts.oltp.tables, opts.oltp.table_size)
    }
    /// As sysbench's prepare, table by table: create, bulk insert (k from the default
    /// distribution, c and pad from the templates), then the secondary index k_N; the
    /// tables side by side, each loaded on a connection of its own (a table's rows
    /// depend on its number alone), then their indexes side by side.
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let (tables, rows) = sizes(opts);
        let numbers: Vec<usize> = (1..=tables).collect();
        load.side_by_side("generate", &numbers, |conn, &t| {
            let c = sql(conn, self.name)?;
            let name = format!("sbtest{t}");
            step(&format!("create {name}"), c.create_table(&name, COLUMNS, Some("id")))?;
            let mut strings = Rng::new(TEXT_SEED ^ t as u64);
            let mut data = until_signal((1..=rows).zip(loaded_keys(t, rows)).map(|(id, k)| {
                let (mut cv, mut pad) = ([0u8; C_LEN], [0u8; PAD_LEN]);
                digits(&mut strings, &mut cv);
                digits(&mut strings, &mut pad);
                vec![Datum::Int(id), Datum::Int(k), Datum::Text(text(&cv).into()), Datum::Text(text(&pad).into())]
            }));
            step(&format!("load {name}"), c.load(&name, &["id", "k", "c", "pad"], &mut data))?;
            step("finish the load", c.finish_load())
        })?;
        load.side_by_side("indexes", &numbers, |conn, &t| {
            let c = sql(conn, self.name)?;
            step(&format!("create index k_{t}"), c.batch(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)")))
        })?;
        Ok(Box::new(Cell { name: self.name, mix: self.mix, tables, rows }))
    }
}

/// A repeat of an OLTP workload: its clients share nothing but the tables' sizes.
struct Cell {
    name: &'static str,
    mix: Mix,
    tables: usize,
    rows: i64,
}

impl CellWorkload for Cell {
    fn client(&mut self, conn: Connection, _id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let mut conn = into_sql(conn, self.name)?;
        let c = conn.as_mut();
        let (tables, rows) = (self.tables, self.rows);
        let mut p = |s: String| step("prepare", c.prepare(&s));
        // Only the statements the script runs, as sysbench prepares them.
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        for t in 1..=tables {
            if self.mix.reads() {
                let mut r = [Stmt(0); 5];
                for (s, q) in r.iter_mut().zip(READS) {
                    *s = p(table_sql(q, t))?;
                }
                reads.push(r);
            }
            if self.mix.writes() {
                let mut w = [Stmt(0); 4];
                for (s, q) in w.iter_mut().zip(WRITES) {
                    *s = p(table_sql(q, t))?;
                }
                writes.push(w);
            }
        }
        Ok(Box::new(OltpClient {
            conn,
            mix: self.mix,
            reads,
            writes,
            rng: Rng::new(seed),
            tables: tables as i64,
            rows,
            drawn: Draw::default(),
        }))
    }
    fn verify(&mut self, conn: &mut Connection, _committed: u64) -> Result<Verdict> {
        let c = sql(conn, self.name)?;
        let (tables, rows) = (self.tables, self.rows);
        let mut problems = Vec::new();
        let (mut k_sum, mut k_loaded) = (0i64, 0i64);
        for t in 1..=tables {
            let mut q = |s: &str| step("verify", c.scalar(&table_sql(s, t)));
            let count = q("SELECT count(*) FROM sbtest{t}")?;
            let lo = q("SELECT min(id) FROM sbtest{t}")?;
            let hi = q("SELECT max(id) FROM sbtest{t}")?;
            // Everything the clients write keeps c and pad full and k at least 1.
            let malformed = q("SELECT count(*) FROM sbtest{t} WHERE length(c) <> 119 OR length(pad) <> 59 OR k < 1")?;
            k_sum += q("SELECT coalesce(sum(k), 0) FROM sbtest{t}")?;
            k_loaded += loaded_keys(t, rows).sum::<i64>();
            // The primary key makes ids unique: with this count, min and max they are 1..rows.
            if (count, lo, hi) != (rows, 1, rows) {
                problems.push(format!("sbtest{t} has {count} rows, ids {lo}..{hi}"));
            }
            if malformed > 0 {
                problems.push(format!("sbtest{t} has {malformed} rows with a short c or pad or k < 1"));
            }
        }
        let k = if self.mix == Mix::ReadOnly {
            if k_sum != k_loaded {
                problems.push(format!("a read-only run changed sum(k) from {k_loaded} to {k_sum}"));
            }
            "sum(k) as loaded".to_string()
        } else {
            format!("sum(k) {:+} since the load", k_sum - k_loaded)
        };
        let detail = format!("{tables} table(s) × {rows} rows, ids 1..{rows}, c and pad full, {k}");
        if problems.is_empty() {
            Ok(Verdict { ok: true, detail })
        } else {
            Ok(Verdict { ok: false, detail: problems.join("; ") })
        }
    }
}

/// The values of one transaction, drawn in sysbench's order and kept for a retry. Tables
/// are 0-based here.
struct Draw {
    points: (usize, [i64; POINT_SELECTS]),
    /// Simple, sum, order and distinct range: table and first id.
    ranges: [(usize, i64); 4],
    index_update: (usize, i64),
    non_index_update: (usize, i64),
    c: [u8; C_LEN],
    /// Table, id, and the new row's k.
    delete_insert: (usize, i64, i64),
    insert_c: [u8; C_LEN],
    insert_pad: [u8; PAD_LEN],
}

impl Default for Draw {
    fn default() -> Self {
        Draw {
            points: (0, [1; POINT_SELECTS]),
            ranges: [(0, 1); 4],
            index_update: (0, 1),
            non_index_update: (0, 1),
            c: [b'0'; C_LEN],
            delete_insert: (0, 1, 1),
            insert_c: [b'0'; C_LEN],
            insert_pad: [b'0'; PAD_LEN],
        }
    }
}

struct OltpClient {
    conn: Box<dyn SqlClient>,
    mix: Mix,
    /// Per table (0-based): READS / WRITES prepared, or empty when the mix has none.
    reads: Vec<[Stmt; 5]>,
    writes: Vec<[Stmt; 4]>,
    rng: Rng,
    tables: i64,
    rows: i64,
    drawn: Draw,
}

impl OltpClient {
    fn table(&mut self) -> usize {
        (self.rng.range(1, self.tables) - 1) as usize
    }
    fn id(&mut self) -> i64 {
        special(&mut self.rng, 1, self.rows)
    }
    fn draw(&mut self) {
        if self.mix.reads() {
            self.drawn.points.0 = self.table();
            for i in 0..POINT_SELECTS {
                self.drawn.points.1[i] = self.id();
            }
            for i in 0..4 {
                self.drawn.ranges[i] = (self.table(), self.id());
            }
        }
        if self.mix.writes() {
            self.drawn.index_update = (self.table(), self.id());
            let t = self.table();
            digits(&mut self.rng, &mut self.drawn.c);
            self.drawn.non_index_update = (t, self.id());
            let t = self.table();
            let (id, k) = (self.id(), self.id());
            self.drawn.delete_insert = (t, id, k);
            digits(&mut self.rng, &mut self.drawn.insert_c);
            digits(&mut self.rng, &mut self.drawn.insert_pad);
        }
    }
}

/// A select that did not return the rows every committed state of the tables holds.
fn wrong_rows(what: &str, t: usize, id: i64, got: u64, want: u64) -> TxError {
    TxError::Fail(format!("{what} at id {id} of sbtest{} returned {got} rows, expected {want}", t + 1))
}

impl Transactor for OltpClient {
    /// A unique violation is a conflict here, as sysbench's drivers ignore it: a delete +
    /// insert of an id racing another client's fails on the insert, and a retry succeeds.
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        self.attempt(retry).map_err(|e| match e {
            TxError::Duplicate(_) => TxError::Retry,
            e => e,
        })
    }
    fn abort(&mut self) {
        self.conn.rollback();
    }
}

impl OltpClient {
    fn attempt(&mut self, retry: bool) -> TxResult<()> {
        use Param::{Int, Text};
        if !retry {
            self.draw();
        }
        let d = &self.drawn;
        let c: &mut dyn SqlClient = self.conn.as_mut();
        c.begin(self.mix.writes())?;
        if self.mix.reads() {
            let (t, ids) = d.points;
            for id in ids {
                let n = c.query_rows(self.reads[t][POINT], &[Int(id)])?;
                if n != 1 {
                    return Err(wrong_rows("point select", t, id, n, 1));
                }
            }
            for (i, &(t, id)) in d.ranges.iter().enumerate() {
                let n = c.query_rows(self.reads[t][SIMPLE + i], &[Int(id), Int(id + RANGE_SIZE - 1)])?;
                // Ids are 1..rows: a range starting near the end is short. SUM returns
                // one row; DISTINCT c at most one per id (c has 110 random digits).
                let ids = (self.rows - id + 1).min(RANGE_SIZE) as u64;
                let (ok, want) = match SIMPLE + i {
                    SUM => (n == 1, 1),
                    DISTINCT => ((1..=ids).contains(&n), ids),
                    _ => (n == ids, ids),
                };
                if !ok {
                    let what = ["simple range", "sum range", "order range", "distinct range"][i];
                    return Err(wrong_rows(what, t, id, n, want));
                }
            }
        }
        if self.mix.writes() {
            let (t, id) = d.index_update;
            c.execute(self.writes[t][INDEX_UPDATE], &[Int(id)])?;
            let (t, id) = d.non_index_update;
            c.execute(self.writes[t][NON_INDEX_UPDATE], &[Text(text(&d.c)), Int(id)])?;
            let (t, id, k) = d.delete_insert;
            c.execute(self.writes[t][DELETE], &[Int(id)])?;
            c.execute(self.writes[t][INSERT], &[Int(id), Int(k), Text(text(&d.insert_c)), Text(text(&d.insert_pad))])?;
        }
        c.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds worked out by hand from sysbench's formula for [1, 10000] (t = 9999: the
    /// band starts at 1 + ⌊0.25 × 100.99 + 4949.505⌋ = 4975 and ends below
    /// 1 + 100.99 + 4949.505, at 5051), and the shares sysbench 1.0.20 itself gave for a
    /// million draws: 76.2% inside 4950..5051, the rest split evenly on both sides, never
    /// 10000, ids 1438..8397.
    #[test]
    fn special_matches_sysbench() {
        let mut rng = Rng::new(42);
        let n = 1_000_000;
        let (mut below, mut band, mut above, mut lo, mut hi) = (0, 0, 0, i64::MAX, 0);
        let mut hot = std::collections::BTreeSet::new();
        for _ in 0..n {
            let v = special(&mut rng, 1, 10_000);
            lo = lo.min(v);
            hi = hi.max(v);
            match v {
                ..4950 => below += 1,
                4950..=5051 => band += 1,
                _ => above += 1,
            }
            if (4975..=5051).contains(&v) {
                hot.insert(v);
            }
        }
        let share = |x: i32| f64::from(x) / f64::from(n);
        assert!((share(band) - 0.762).abs() < 0.005, "band {}", share(band));
        assert!((share(below) - share(above)).abs() < 0.005, "{below} {above}");
        assert_eq!(hot.len(), 77);
        assert!(lo > 1000 && hi < 9000, "{lo}..{hi}");
        // Smallest table: one row, always id 1.
        assert_eq!(special(&mut rng, 1, 1), 1);
    }

    #[test]
    fn templates_are_digit_groups() {
        let mut rng = Rng::new(1);
        let mut c = [0u8; C_LEN];
        digits(&mut rng, &mut c);
        let groups: Vec<&str> = text(&c).split('-').collect();
        assert_eq!(groups.len(), 10);
        assert!(groups.iter().all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit())));
        let mut pad = [0u8; PAD_LEN];
        digits(&mut rng, &mut pad);
        assert_eq!(text(&pad).split('-').count(), 5);
    }
}
