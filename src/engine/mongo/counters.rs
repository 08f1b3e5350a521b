//! MongoDB's counters: `serverStatus`'s operation counters, network bytes and CPU time,
//! and WiredTiger's journal, cache, transaction and checkpoint statistics, read on a
//! connection of their own.
//!
//! The reply is the server's, so it is read defensively: a section or field it lacks, or
//! one that is not a number, is left out, never a failure (SecantusDB, the tests'
//! stand-in, answers with opcounters and network alone); the sections figures are made of
//! that it lacked are named by `lacking`, and those figures stay empty.

use super::client::MongoClient;
use super::reply::get_doc;
use super::url::Endpoint;
use crate::counters::Figures;
use crate::engine::counters::{CounterReader, PATIENCE, Reading, sum};
use bson::{RawBsonRef, RawDocument};

/// The counters kept: a section's path in the reply and the fields read in it; each is
/// kept as its path and field joined by dots (`wiredTiger.log.log bytes written`).
const KEPT: &[(&[&str], &[&str])] = &[
    (&["opcounters"], &["insert", "query", "update", "delete", "getmore", "command"]),
    (&["network"], &["bytesIn", "bytesOut", "numRequests"]),
    // The server's own CPU time (Linux): a --url server's, or a container's.
    (&["extra_info"], &["user_time_us", "system_time_us"]),
    (
        &["wiredTiger", "log"],
        &[
            "log sync operations",
            "log sync time duration (usecs)",
            "log sync_dir operations",
            "log bytes written",
            "log write operations",
            "log flush operations",
        ],
    ),
    (
        &["wiredTiger", "cache"],
        &[
            "pages requested from the cache",
            "pages read into cache",
            "bytes read into cache",
            "pages written from cache",
            "bytes written from cache",
        ],
    ),
    (
        &["wiredTiger", "transaction"],
        &["transactions committed", "transactions rolled back", "transaction checkpoints"],
    ),
    // Where 8.0 counts checkpoints.
    (&["wiredTiger", "checkpoint"], &["total succeed number of checkpoints"]),
    (&["wiredTiger", "connection"], &["total fsync I/Os", "total read I/Os", "total write I/Os"]),
];

/// The sections the shared figures are made of.
const FIGURES_FROM: [&str; 3] = ["wiredTiger.log", "wiredTiger.cache", "wiredTiger.transaction"];

/// A connection that reads the counters.
pub struct MongoCounters {
    client: MongoClient,
    /// The sections of FIGURES_FROM the last reply lacked.
    lacking: Vec<&'static str>,
}

impl MongoCounters {
    /// Connect to `at` and log in as it says (serverStatus needs clusterMonitor on
    /// someone else's server).
    pub fn open(at: &Endpoint, db: &str, wc: super::client::WriteConcern) -> Result<MongoCounters, String> {
        let mut client = MongoClient::connect(at, db, wc).map_err(|e| e.to_string())?;
        client.set_patience(PATIENCE);
        Ok(MongoCounters { client, lacking: Vec::new() })
    }
}

/// A counter's value: any of BSON's numbers, finite.
fn value(v: RawBsonRef) -> Option<f64> {
    let f = match v {
        RawBsonRef::Int32(i) => f64::from(i),
        RawBsonRef::Int64(i) => i as f64,
        RawBsonRef::Double(d) => d,
        _ => return None,
    };
    f.is_finite().then_some(f)
}

/// The counters of a serverStatus reply, and which sections of FIGURES_FROM it lacked.
fn parse(status: &RawDocument) -> (Reading, Vec<&'static str>) {
    let mut out = Reading::new();
    let mut found = Vec::new();
    for (path, fields) in KEPT {
        let Some(section) = path.iter().try_fold(status, |d, key| get_doc(d, key)) else { continue };
        let prefix = path.join(".");
        let before = out.len();
        for field in *fields {
            if let Some(v) = section.get(field).ok().flatten().and_then(value) {
                out.insert(format!("{prefix}.{field}"), v);
            }
        }
        if out.len() > before {
            found.push(prefix);
        }
    }
    let lacking = FIGURES_FROM.into_iter().filter(|s| !found.iter().any(|f| f == s)).collect();
    (out, lacking)
}

/// The shared figures in a difference of two readings.
fn figures(d: &Reading) -> Figures {
    let log = |f: &str| sum(d, &[&format!("wiredTiger.log.{f}")]);
    let cache = |f: &str| sum(d, &[&format!("wiredTiger.cache.{f}")]);
    Figures {
        // WiredTiger's transactions: one per write outside a multi-document transaction,
        // so a workload's transaction of several writes counts several.
        commits: sum(d, &["wiredTiger.transaction.transactions committed"]),
        // The journal's syncs, which a write with j: true waits for.
        fsyncs: log("log sync operations"),
        fsync_s: log("log sync time duration (usecs)").map(|us| us / 1e6),
        log_bytes: log("log bytes written"),
        full_pages: None,
        cache_misses: cache("pages read into cache"),
        cache_requests: cache("pages requested from the cache"),
        checkpoints: sum(d, &["wiredTiger.transaction.transaction checkpoints"])
            .or_else(|| sum(d, &["wiredTiger.checkpoint.total succeed number of checkpoints"])),
    }
}

impl CounterReader for MongoCounters {
    fn read(&mut self) -> Result<Reading, String> {
        let status = self.client.admin("serverStatus").map_err(|e| format!("mongo: serverStatus: {e}"))?;
        let (out, lacking) = parse(&status);
        self.lacking = lacking;
        if out.is_empty() {
            return Err("mongo: serverStatus has none of the counters read".to_string());
        }
        Ok(out)
    }

    fn figures(&self, d: &Reading) -> Figures {
        figures(d)
    }

    fn lacking(&self) -> Vec<String> {
        if self.lacking.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "mongo: serverStatus has no {} (a server of another storage engine, or a stand-in)",
            self.lacking.join(", ")
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{Bson, doc};

    /// A reply shaped as MongoDB 7.0's serverStatus on a standalone mongod (its sections
    /// cut down to some of their fields, WiredTiger's statistics as 64-bit integers).
    fn mongodb7() -> bson::Document {
        doc! {
            "host": "db1",
            "version": "7.0.14",
            "process": "mongod",
            "uptime": 812.0,
            "localTime": bson::DateTime::from_millis(1_700_000_000_000),
            "opcounters": { "insert": 20_412_i64, "query": 3_i64, "update": 0_i64, "delete": 0_i64, "getmore": 0_i64, "command": 97_i64 },
            "network": { "bytesIn": 4_410_112_i64, "bytesOut": 2_200_001_i64, "numRequests": 20_530_i64, "physicalBytesIn": 4_410_112_i64 },
            "extra_info": { "note": "fields vary by platform", "user_time_us": 5_100_000_i64, "system_time_us": 2_300_000_i64, "page_faults": 0_i32 },
            "storageEngine": { "name": "wiredTiger", "persistent": true },
            "wiredTiger": {
                "uri": "statistics:",
                "cache": {
                    "bytes currently in the cache": 8_123_456_i64,
                    "bytes read into cache": 0_i64,
                    "bytes written from cache": 3_444_000_i64,
                    "maximum bytes configured": 1_073_741_824_i64,
                    "pages read into cache": 12_i64,
                    "pages requested from the cache": 61_337_i64,
                    "pages written from cache": 215_i64,
                },
                "connection": { "total fsync I/Os": 20_480_i64, "total read I/Os": 1_290_i64, "total write I/Os": 20_700_i64 },
                "log": {
                    "log bytes of payload data": 3_100_000_i64,
                    "log bytes written": 4_096_000_i64,
                    "log flush operations": 8_100_i64,
                    "log sync operations": 20_401_i64,
                    "log sync time duration (usecs)": 40_802_000_i64,
                    "log sync_dir operations": 1_i64,
                    "log write operations": 20_412_i64,
                    "maximum log file size": 104_857_600_i64,
                },
                "transaction": {
                    "transaction begins": 20_600_i64,
                    "transaction checkpoints": 14_i64,
                    "transaction checkpoint currently running": 0_i64,
                    "transactions committed": 20_440_i64,
                    "transactions rolled back": 160_i64,
                },
            },
            "ok": 1.0,
        }
    }

    fn parsed(d: &bson::Document) -> (Reading, Vec<&'static str>) {
        let bytes = bson::to_vec(d).unwrap();
        parse(RawDocument::from_bytes(&bytes).unwrap())
    }

    #[test]
    fn a_mongodb_7_reply_gives_every_figure_but_full_pages() {
        let (r, lacking) = parsed(&mongodb7());
        assert!(lacking.is_empty(), "{lacking:?}");
        assert_eq!(r["opcounters.insert"], 20_412.0);
        assert_eq!(r["extra_info.user_time_us"], 5_100_000.0);
        assert_eq!(r["wiredTiger.connection.total fsync I/Os"], 20_480.0);
        // Gauges and settings are not counters of work.
        for gauge in ["wiredTiger.cache.bytes currently in the cache", "wiredTiger.log.maximum log file size", "uptime"]
        {
            assert!(!r.contains_key(gauge), "{gauge}");
        }
        let f = figures(&r);
        assert_eq!(f.commits, Some(20_440.0));
        assert_eq!(f.fsyncs, Some(20_401.0));
        assert_eq!(f.fsync_s, Some(40.802));
        assert_eq!(f.log_bytes, Some(4_096_000.0));
        assert_eq!((f.cache_misses, f.cache_requests), (Some(12.0), Some(61_337.0)));
        assert_eq!((f.checkpoints, f.full_pages), (Some(14.0), None));
    }

    #[test]
    fn mongodb_8_counts_checkpoints_in_a_section_of_their_own() {
        let mut d = mongodb7();
        let wt = d.get_document_mut("wiredTiger").unwrap();
        wt.get_document_mut("transaction").unwrap().remove("transaction checkpoints");
        wt.insert(
            "checkpoint",
            doc! { "total succeed number of checkpoints": 9_i64, "most recent time (msecs)": 30_i64 },
        );
        let (r, _) = parsed(&d);
        assert_eq!(figures(&r).checkpoints, Some(9.0));
    }

    #[test]
    fn a_stand_in_without_wiredtiger_says_what_it_lacks_and_figures_stay_empty() {
        // SecantusDB 0.7's serverStatus, as it answers.
        let d = doc! {
            "host": "secantus", "version": "8.2.11", "process": "secantus",
            "storageEngine": { "name": "wiredTiger", "persistent": true },
            "ok": 1.0,
            "connections": { "current": 3_i32, "available": 0_i32, "totalCreated": 3_i32 },
            "opcounters": { "insert": 1_i32, "query": 0_i32, "update": 0_i32, "delete": 0_i32, "getmore": 0_i32, "command": 5_i32 },
            "network": { "numRequests": 6_i32, "bytesIn": 0_i32, "bytesOut": 0_i32 },
        };
        let (r, lacking) = parsed(&d);
        assert_eq!(lacking, FIGURES_FROM);
        assert_eq!(r["opcounters.insert"], 1.0);
        assert_eq!(figures(&r), Figures::default());
    }

    #[test]
    fn wrong_types_and_broken_bytes_are_skipped_never_a_panic() {
        let d = doc! {
            "opcounters": { "insert": "many", "query": Bson::Null, "update": f64::NAN, "delete": f64::INFINITY, "command": 7.5 },
            "network": [1_i32, 2_i32],
            "extra_info": "none",
            "wiredTiger": { "log": 3_i32, "cache": { "pages read into cache": true }, "transaction": {} },
        };
        let (r, lacking) = parsed(&d);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r["opcounters.command"], 7.5);
        assert_eq!(lacking, FIGURES_FROM);
        // A reply whose elements are cut or mangled: what can still be read, and no panic.
        let whole = bson::to_vec(&mongodb7()).unwrap();
        for at in (4..whole.len() - 1).step_by(7) {
            let mut bytes = whole.clone();
            bytes[at] ^= 0x5a;
            if let Ok(doc) = RawDocument::from_bytes(&bytes) {
                let _ = parse(doc);
            }
        }
    }
}
