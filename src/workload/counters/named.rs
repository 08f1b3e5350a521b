//! A `CounterStore` as a kind of store for the counters: the generic load, writer,
//! reader and sums over it.

use super::kind::{Data, Keeps};
use super::options::CountersOptions;
use super::store::CounterStore;
use super::{Totals, load, reader, verify, writer};
use crate::engine::Connection;
use crate::error::Result;
use crate::workload::Transactor;
use crate::workload::store::{Kind, Need};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// The kind of store a `CounterStore` makes.
pub(super) struct Named<S>(PhantomData<fn() -> S>);

impl<S> Named<S> {
    /// The kind.
    pub(super) const KIND: Named<S> = Named(PhantomData);
}

impl<S: CounterStore> Kind for Named<S> {
    fn need(&self) -> Need {
        S::NEED
    }
}

impl<S: CounterStore> Keeps for Named<S> {
    fn prepare(&self, conn: &mut Connection, o: &CountersOptions, data: Option<Data>) -> Result<()> {
        S::fresh(conn)?;
        match data {
            Some(data) => load::load::<S>(conn, o, data),
            None => Ok(()),
        }
    }
    fn writer(&self, conn: Connection, o: &CountersOptions, seed: u64) -> Result<Box<dyn Transactor>> {
        Ok(writer::writer::<S>(conn, o, seed))
    }
    fn reader(
        &self,
        conn: Connection,
        o: &CountersOptions,
        seed: u64,
        wrong: Arc<AtomicU64>,
    ) -> Result<Box<dyn Transactor>> {
        Ok(reader::reader::<S>(conn, o, seed, wrong))
    }
    fn totals(&self, conn: &mut Connection, o: &CountersOptions, reach: Data) -> Result<Totals> {
        verify::totals::<S>(conn, o, reach)
    }
}
