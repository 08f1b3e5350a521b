//! Redis's counters: the fields of INFO that count work (commands, network bytes, the
//! append-only file's growth and rewrites, snapshots, the server's own CPU), read on a
//! connection of their own.
//!
//! Redis counts no fsyncs. With `appendfsync always` it syncs the append-only file once
//! per turn of its event loop that appended to it (one fsync for every client's commands
//! of that turn), with `everysec` once a second in a background thread, and INFO shows
//! neither: `aof_delayed_fsync` counts only the writes `everysec` held back behind a slow
//! fsync. So `fsyncs` stays None here; the disk's flushes (counters.device) count them.

use super::client::RedisClient;
use super::endpoint::Endpoint;
use crate::counters::Figures;
use crate::engine::counters::{CounterReader, PATIENCE, Reading, number, sum};

/// The INFO fields kept: counters of work done, none of its gauges (a gauge's fall would
/// read as a reset of a counter).
const KEPT: [&str; 19] = [
    "aof_current_size",
    "aof_rewrites",
    "aof_delayed_fsync",
    "rdb_changes_since_last_save",
    "rdb_saves",
    "total_forks",
    "total_commands_processed",
    "total_net_input_bytes",
    "total_net_output_bytes",
    "total_reads_processed",
    "total_writes_processed",
    "keyspace_hits",
    "keyspace_misses",
    "expired_keys",
    "evicted_keys",
    "used_cpu_sys",
    "used_cpu_user",
    "used_cpu_sys_children",
    "used_cpu_user_children",
];

/// A connection that reads the counters.
pub struct RedisCounters {
    client: RedisClient,
}

impl RedisCounters {
    /// Connect to `at`, where the run's keys are under `prefix` (INFO reads none of them).
    pub fn open(at: &Endpoint, prefix: &[u8]) -> Result<RedisCounters, String> {
        let mut client = RedisClient::connect(at, prefix).map_err(|e| e.to_string())?;
        client.set_patience(PATIENCE);
        Ok(RedisCounters { client })
    }
}

/// The kept fields of an INFO reply (`name:value` lines under `# Section` headings).
fn parse(info: &str) -> Reading {
    info.lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, _)| KEPT.contains(name))
        .filter_map(|(name, value)| Some((name.to_string(), number(value)?)))
        .collect()
}

impl CounterReader for RedisCounters {
    fn read(&mut self) -> Result<Reading, String> {
        // The default sections (server, clients, memory, persistence, stats, replication,
        // cpu, …): one INFO of a few kB, on every version.
        let info = self.client.info(None).map_err(|e| format!("redis: INFO: {e}"))?;
        let out = parse(&info);
        if out.is_empty() {
            return Err("redis: INFO has none of the counters read".to_string());
        }
        Ok(out)
    }

    fn figures(&self, d: &Reading) -> Figures {
        figures(d)
    }
}

/// The shared figures in a difference of two readings.
fn figures(d: &Reading) -> Figures {
    // A rewrite replaces the file: its size's difference is then not what was appended.
    let rewritten = sum(d, &["aof_rewrites"]).is_some_and(|n| n > 0.0);
    Figures {
        // Redis has no transactions to count: total_commands_processed counts every
        // command (a workload's transaction may be several, and this reader's INFO is
        // one), so it stays among the server's counters, not called commits.
        commits: None,
        fsyncs: None,
        fsync_s: None,
        // There only with appendonly on.
        log_bytes: sum(d, &["aof_current_size"]).filter(|_| !rewritten),
        full_pages: None,
        // Everything is in memory: nothing is read into a cache.
        cache_misses: None,
        cache_requests: None,
        // A snapshot or a rewrite of the append-only file writes the whole data set once,
        // after which the log starts over: Redis's checkpoint.
        checkpoints: sum(d, &["rdb_saves", "aof_rewrites"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts of Redis 7.0's INFO with appendonly on.
    const INFO: &str = "# Server\r\nredis_version:7.0.15\r\nprocess_id:2279\r\n\r\n# Memory\r\nused_memory:1164024\r\n\r\n\
        # Persistence\r\nrdb_changes_since_last_save:9018\r\nrdb_saves:0\r\naof_enabled:1\r\naof_rewrites:0\r\n\
        aof_current_size:50\r\naof_delayed_fsync:0\r\n\r\n# Stats\r\ntotal_commands_processed:35\r\n\
        total_net_input_bytes:607006\r\ninstantaneous_ops_per_sec:0\r\n\r\n# CPU\r\nused_cpu_sys:1.646577\r\n\
        used_cpu_user:1.821751\r\n\r\n# Errorstats\r\nerrorstat_WRONGTYPE:count=1\r\n";

    #[test]
    fn info_keeps_the_counters_of_work_and_no_gauge() {
        let r = parse(INFO);
        assert_eq!(r.get("aof_current_size"), Some(&50.0));
        assert_eq!(r.get("total_commands_processed"), Some(&35.0));
        assert_eq!(r.get("used_cpu_user"), Some(&1.821751));
        for gauge in ["used_memory", "process_id", "aof_enabled", "instantaneous_ops_per_sec", "errorstat_WRONGTYPE"] {
            assert!(!r.contains_key(gauge), "{gauge}: {r:?}");
        }
        assert!(parse("").is_empty() && parse("aof_current_size:lots\r\n:\r\n::").is_empty());
    }

    #[test]
    fn log_bytes_are_the_files_growth_unless_it_was_rewritten() {
        let c = |pairs: &[(&str, f64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect::<Reading>();
        let f =
            figures(&c(&[("aof_current_size", 4096.0), ("aof_rewrites", 0.0), ("total_commands_processed", 100.0)]));
        assert_eq!((f.log_bytes, f.commits, f.fsyncs, f.checkpoints), (Some(4096.0), None, None, Some(0.0)));
        let f = figures(&c(&[("aof_current_size", 4096.0), ("aof_rewrites", 1.0)]));
        assert_eq!((f.log_bytes, f.checkpoints), (None, Some(1.0)));
        // appendonly off: no such field.
        assert_eq!(figures(&c(&[("total_commands_processed", 100.0)])).log_bytes, None);
    }
}
