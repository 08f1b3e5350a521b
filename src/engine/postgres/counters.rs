//! PostgreSQL's counters: the cumulative statistics views (pg_stat_wal, the checkpointer's,
//! the database's) and the WAL insert position, read on a connection of their own.
//!
//! Backends hand their statistics to the shared views at most once a second and when
//! they exit (PostgreSQL 15's cumulative statistics): read before the clients connect and
//! once their backends have gone, the views hold all they did; a `--log-interval` slice's
//! difference is that of a window shifted by up to a second. The WAL position is exact.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use crate::counters::Figures;
use crate::engine::counters::{CounterReader, Reading, number, sum};
use crate::engine::{SqlClient, Stmt};

/// Each source, by the prefix its columns get and the query that reads it. A view this
/// server lacks (pg_stat_wal before 14, pg_stat_checkpointer before 17) is left out.
const SOURCES: [(&str, &str); 5] = [
    ("wal", "SELECT * FROM pg_stat_wal"),
    ("bgwriter", "SELECT * FROM pg_stat_bgwriter"),
    ("checkpointer", "SELECT * FROM pg_stat_checkpointer"),
    ("database", "SELECT * FROM pg_stat_database WHERE datname = current_database()"),
    ("lsn", "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS insert_bytes"),
];

/// The columns kept: counters of work done (a view's gauges and times of day are not).
const KEPT: [&str; 25] = [
    "wal_records",
    "wal_fpi",
    "wal_bytes",
    "wal_buffers_full",
    "wal_write",
    "wal_sync",
    "wal_write_time",
    "wal_sync_time",
    "checkpoints_timed",
    "checkpoints_req",
    "num_timed",
    "num_requested",
    "buffers_checkpoint",
    "buffers_written",
    "buffers_clean",
    "buffers_backend",
    "buffers_backend_fsync",
    "xact_commit",
    "xact_rollback",
    "blks_read",
    "blks_hit",
    "temp_bytes",
    "tup_inserted",
    "tup_updated",
    "insert_bytes",
];

/// A connection that reads the counters.
pub struct PgCounters {
    client: PgClient,
    sources: Vec<(&'static str, Stmt)>,
}

impl PgCounters {
    /// Connect as `info` says and prepare the sources this server has.
    pub fn open(info: &ConnInfo) -> Result<PgCounters, String> {
        let mut client = PgClient::side(info, "dbrace counters")?;
        let sources = SOURCES.iter().filter_map(|(name, sql)| Some((*name, client.prepare(sql).ok()?))).collect();
        Ok(PgCounters { client, sources })
    }
}

impl CounterReader for PgCounters {
    fn read(&mut self) -> Result<Reading, String> {
        let mut out = Reading::new();
        let mut missing = Vec::new();
        for (name, stmt) in &self.sources {
            let mut row = |_: usize, column: &str, text: Option<&str>| {
                if let Some(v) = text.and_then(number).filter(|_| KEPT.contains(&column)) {
                    out.insert(format!("{name}.{column}"), v);
                }
            };
            if self.client.query_each(*stmt, &[], &mut row).is_err() {
                missing.push(*name);
            }
        }
        if out.is_empty() {
            return Err(format!("postgres: cannot read its statistics views ({})", missing.join(", ")));
        }
        Ok(out)
    }

    /// A backend hands on its counters as it exits, just after its client closed the
    /// connection: read until the commits counted stop changing (within half a second).
    fn read_settled(&mut self) -> Result<Reading, String> {
        let commits = |r: &Reading| r.get("database.xact_commit").copied();
        let mut last = self.read()?;
        for _ in 0..25 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let now = self.read()?;
            if commits(&now) == commits(&last) {
                return Ok(now);
            }
            last = now;
        }
        Ok(last)
    }

    fn figures(&self, d: &Reading) -> Figures {
        let timed = sum(d, &["wal.wal_sync_time"]).filter(|ms| *ms > 0.0);
        Figures {
            commits: sum(d, &["database.xact_commit"]),
            fsyncs: sum(d, &["wal.wal_sync"]),
            fsync_s: timed.map(|ms| ms / 1000.0),
            log_bytes: sum(d, &["lsn.insert_bytes"]).or_else(|| sum(d, &["wal.wal_bytes"])),
            full_pages: sum(d, &["wal.wal_fpi"]),
            cache_misses: sum(d, &["database.blks_read"]),
            cache_requests: sum(d, &["database.blks_read", "database.blks_hit"]),
            checkpoints: sum(d, &["checkpointer.num_timed", "checkpointer.num_requested"])
                .or_else(|| sum(d, &["bgwriter.checkpoints_timed", "bgwriter.checkpoints_req"])),
        }
    }
}
