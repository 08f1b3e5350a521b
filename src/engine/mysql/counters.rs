//! MariaDB's and MySQL's counters: the global status variables of InnoDB's log and data
//! files, its buffer pool and the binary log, read on a connection of their own.

use super::client::MyClient;
use super::endpoint::Endpoint;
use crate::counters::Figures;
use crate::engine::counters::{CounterReader, PATIENCE, Reading, number, sum};
use crate::engine::{SqlClient, Stmt};

/// The status variables read, as information_schema spells them.
const VARIABLES: &str = "'INNODB_OS_LOG_FSYNCS', 'INNODB_OS_LOG_WRITTEN', 'INNODB_DATA_FSYNCS', \
    'INNODB_DATA_WRITTEN', 'INNODB_DATA_READ', 'INNODB_BUFFER_POOL_READS', \
    'INNODB_BUFFER_POOL_READ_REQUESTS', 'INNODB_LSN_CURRENT', 'INNODB_LOG_WRITES', \
    'INNODB_CHECKPOINTS', 'BINLOG_COMMITS', 'BINLOG_GROUP_COMMITS', 'COM_COMMIT', 'HANDLER_COMMIT'";

/// Where the status variables are: MariaDB's information_schema, MySQL 8's
/// performance_schema.
const TABLES: [&str; 2] = ["information_schema.GLOBAL_STATUS", "performance_schema.global_status"];

/// A connection that reads the counters.
pub struct MyCounters {
    client: MyClient,
    stmt: Stmt,
}

impl MyCounters {
    /// Connect to `at` and prepare the query its server answers.
    pub fn open(at: &Endpoint) -> Result<MyCounters, String> {
        let mut client = MyClient::connect(at, false).map_err(|e| e.to_string())?;
        client.set_patience(PATIENCE);
        let query = |table: &str| {
            format!("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM {table} WHERE upper(VARIABLE_NAME) IN ({VARIABLES})")
        };
        let stmt = TABLES
            .iter()
            .find_map(|t| client.prepare(&query(t)).ok())
            .ok_or_else(|| "mysql: its global status cannot be read".to_string())?;
        Ok(MyCounters { client, stmt })
    }
}

impl CounterReader for MyCounters {
    fn read(&mut self) -> Result<Reading, String> {
        let mut out = Reading::new();
        let mut name = String::new();
        let mut row = |i: usize, _: &str, text: Option<&str>| match (i, text) {
            (0, Some(n)) => name = n.to_ascii_lowercase(),
            (1, Some(v)) => {
                if let Some(v) = number(v) {
                    out.insert(std::mem::take(&mut name), v);
                }
            }
            _ => {}
        };
        self.client.query_each(self.stmt, &[], &mut row).map_err(|e| format!("mysql: global status: {e}"))?;
        Ok(out)
    }

    fn figures(&self, d: &Reading) -> Figures {
        Figures {
            // Handler_commit counts a statement's commit and its transaction's.
            commits: None,
            fsyncs: sum(d, &["innodb_data_fsyncs"]).or_else(|| sum(d, &["innodb_os_log_fsyncs"])),
            fsync_s: None,
            log_bytes: sum(d, &["innodb_os_log_written"]).or_else(|| sum(d, &["innodb_lsn_current"])),
            full_pages: None,
            cache_misses: sum(d, &["innodb_buffer_pool_reads"]),
            cache_requests: sum(d, &["innodb_buffer_pool_read_requests"]),
            checkpoints: sum(d, &["innodb_checkpoints"]),
        }
    }
}
