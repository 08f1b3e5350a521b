//! The kinds of store YCSB keeps its records in, one per store file (sql.rs, kv.rs,
//! doc.rs), each over what an engine offers: the plan reads what they need, a cell picks
//! the one its connection drives.

use super::client::Driver;
use crate::engine::Connection;
use crate::error::Result;
use crate::workload::Transactor;
use crate::workload::store::Kind;

/// One kind of store for YCSB's records: its load, a client on it, its verify.
pub trait Records: Kind {
    /// Load `n` records into a fresh data set.
    fn load(&self, conn: &mut Connection, n: u64) -> Result<()>;
    /// A client driving `conn` as `driver` draws.
    fn client(&self, conn: Connection, driver: Driver) -> Result<Box<dyn Transactor>>;
    /// Whether the store holds `want` records; what was found.
    fn verify(&self, conn: &mut Connection, want: u64) -> Result<(bool, String)>;
}
