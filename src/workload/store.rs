//! How a workload keeps its data on whatever an engine offers: each of its store kinds
//! (one per store file) says what it needs, an interface and capabilities beyond it; the
//! plan reads the same list (`Workload::needs`), and a connection gets the kind of its
//! interface, so no workload matches on a connection's variants.

use crate::engine::{Capability, Connection, DocClient, Interface, KvClient, SqlClient};
use crate::error::Result;

/// What one of a workload's store kinds needs of an engine.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    /// The client interface it drives.
    pub interface: Interface,
    /// The capabilities it uses beyond that interface's basic operations.
    pub capabilities: &'static [Capability],
}

/// One of a workload's store kinds.
pub trait Kind: Sync {
    /// What it needs of an engine.
    fn need(&self) -> Need;
}

/// What `kinds` need of an engine whose clients are of `iface` (none where no kind drives it).
pub fn needs<K: Kind + ?Sized>(kinds: &[&K], iface: Interface) -> &'static [Capability] {
    kinds.iter().map(|k| k.need()).find(|n| n.interface == iface).map_or(&[], |n| n.capabilities)
}

/// The kind of `kinds` that drives `conn`, or why `workload` cannot (the plan pairs no
/// such engine with it, so only a caller past the plan meets the error).
pub fn pick<K: Kind + ?Sized>(kinds: &[&'static K], conn: &mut Connection, workload: &str) -> Result<&'static K> {
    let iface = conn.interface();
    let kind = kinds.iter().find(|k| k.need().interface == iface);
    let Some(kind) = kind else {
        return Err(failed!("workload {workload} drives no {iface:?} client"));
    };
    match kind.need().capabilities.iter().find(|c| !conn.offers(**c)) {
        Some(c) => Err(failed!("workload {workload} needs {}, which this client lacks", c.name())),
        None => Ok(kind),
    }
}

/// The key-value client of a connection `pick` gave a key-value kind.
pub fn kv(conn: &mut Connection) -> Result<&mut dyn KvClient> {
    conn.kv().ok_or_else(|| failed!("a key-value store was given another client"))
}

/// The document client of a connection `pick` gave a document kind.
pub fn doc(conn: &mut Connection) -> Result<&mut dyn DocClient> {
    conn.doc().ok_or_else(|| failed!("a document store was given another client"))
}

/// As `kv`, for a client to own.
pub fn into_kv(conn: Connection) -> Result<Box<dyn KvClient>> {
    conn.into_kv().map_err(|_| failed!("a key-value store was given another client"))
}

/// As `doc`, for a client to own.
pub fn into_doc(conn: Connection) -> Result<Box<dyn DocClient>> {
    conn.into_doc().map_err(|_| failed!("a document store was given another client"))
}

/// The SQL client of a connection `pick` gave a SQL kind.
pub fn sql(conn: &mut Connection) -> Result<&mut dyn SqlClient> {
    conn.sql().ok_or_else(|| failed!("a SQL store was given another client"))
}

/// As `sql`, for a client to own.
pub fn into_sql(conn: Connection) -> Result<Box<dyn SqlClient>> {
    conn.into_sql().map_err(|_| failed!("a SQL store was given another client"))
}
