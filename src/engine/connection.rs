//! A connection as an engine hands it out, and the one place that looks at its interface:
//! workloads reach its client through the accessors here, by interface or capability,
//! and never match on its variants.

use super::capability::{Capability, DocIncrements, DocRanges, Hashes, SortedSets};
use super::{DocClient, Interface, KvClient, SqlClient, TxResult};

/// A connection of one interface.
pub enum Connection {
    /// A SQL client.
    Sql(Box<dyn SqlClient>),
    /// A key-value client.
    Kv(Box<dyn KvClient>),
    /// A document client.
    Doc(Box<dyn DocClient>),
}

impl Connection {
    /// Whether many such connections may share a thread (see `SqlClient::evented`).
    pub fn evented(&self) -> bool {
        match self {
            Connection::Sql(c) => c.evented(),
            Connection::Kv(c) => c.evented(),
            Connection::Doc(c) => c.evented(),
        }
    }

    /// The interface of its client.
    pub fn interface(&self) -> Interface {
        match self {
            Connection::Sql(_) => Interface::Sql,
            Connection::Kv(_) => Interface::Kv,
            Connection::Doc(_) => Interface::Doc,
        }
    }

    /// Its SQL client, if it speaks SQL.
    pub fn sql(&mut self) -> Option<&mut dyn SqlClient> {
        match self {
            Connection::Sql(c) => Some(c.as_mut()),
            _ => None,
        }
    }

    /// Its SQL client, for a client to own; the connection back if it speaks none.
    pub fn into_sql(self) -> Result<Box<dyn SqlClient>, Connection> {
        match self {
            Connection::Sql(c) => Ok(c),
            other => Err(other),
        }
    }

    /// Its key-value client, if it is one.
    pub fn kv(&mut self) -> Option<&mut dyn KvClient> {
        match self {
            Connection::Kv(c) => Some(c.as_mut()),
            _ => None,
        }
    }

    /// Its key-value client, for a client to own; the connection back if it is none.
    pub fn into_kv(self) -> Result<Box<dyn KvClient>, Connection> {
        match self {
            Connection::Kv(c) => Ok(c),
            other => Err(other),
        }
    }

    /// Its document client, if it is one.
    pub fn doc(&mut self) -> Option<&mut dyn DocClient> {
        match self {
            Connection::Doc(c) => Some(c.as_mut()),
            _ => None,
        }
    }

    /// Its document client, for a client to own; the connection back if it is none.
    pub fn into_doc(self) -> Result<Box<dyn DocClient>, Connection> {
        match self {
            Connection::Doc(c) => Ok(c),
            other => Err(other),
        }
    }

    /// Its hashes, or the failure of a client without them.
    pub fn hashes(&mut self) -> TxResult<&mut dyn Hashes> {
        self.capable().and_then(|c| c.hashes()).ok_or_else(|| Capability::Hashes.lacking())
    }

    /// Its sorted sets, or the failure of a client without them.
    pub fn sorted_sets(&mut self) -> TxResult<&mut dyn SortedSets> {
        self.capable().and_then(|c| c.sorted_sets()).ok_or_else(|| Capability::SortedSets.lacking())
    }

    /// Its document increments, or the failure of a client without them.
    pub fn doc_increments(&mut self) -> TxResult<&mut dyn DocIncrements> {
        self.capable().and_then(|c| c.doc_increments()).ok_or_else(|| Capability::DocIncrements.lacking())
    }

    /// Its document ranges, or the failure of a client without them.
    pub fn doc_ranges(&mut self) -> TxResult<&mut dyn DocRanges> {
        self.capable().and_then(|c| c.doc_ranges()).ok_or_else(|| Capability::DocRanges.lacking())
    }

    /// Whether its client offers `cap`.
    pub fn offers(&mut self, cap: Capability) -> bool {
        self.capable().is_some_and(|c| c.offers(cap))
    }

    /// Apply a `--setup` file's text: a SQL batch, or a document engine's commands
    /// (exec, serve); `None` for an engine that takes none.
    pub fn setup(&mut self, text: &str) -> Option<TxResult<()>> {
        match self {
            Connection::Sql(c) => Some(c.batch(text)),
            Connection::Doc(c) => Some(c.setup(text)),
            Connection::Kv(_) => None,
        }
    }

    /// Its client's capability accessors (SQL clients offer none).
    fn capable(&mut self) -> Option<&mut dyn super::Capable> {
        match self {
            Connection::Sql(_) => None,
            Connection::Kv(c) => Some(c.as_mut()),
            Connection::Doc(c) => Some(c.as_mut()),
        }
    }
}
