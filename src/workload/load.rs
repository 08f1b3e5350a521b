//! What a repeat's data set is loaded over: a first connection, more of the same
//! instance's for loading side by side (tables, or ranges of one table where the engine
//! gains from it), and the time each phase of the load took.

use crate::engine::{Connection, Instance};
use crate::error::Result;
use crate::results::LoadPhase;
use std::time::Instant;

/// A repeat's loading connections and the phases timed on them.
pub struct Loader<'a> {
    /// The first connection, then those opened for side-by-side phases.
    conns: Vec<Connection>,
    instance: &'a dyn Instance,
    /// Connections that may load at once (1: an embedded engine, whose writers queue).
    width: usize,
    phases: Vec<LoadPhase>,
}

impl<'a> Loader<'a> {
    /// Load `instance` over a first connection, opening more when a phase can use them:
    /// a server's, one per core; an embedded engine's writers queue, so it has one.
    pub fn new(instance: &'a dyn Instance) -> Result<Loader<'a>> {
        let width = if instance.embedded() { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
        Ok(Loader { conns: vec![instance.connect()?], instance, width, phases: Vec::new() })
    }

    /// The first connection, for what runs on one.
    pub fn conn(&mut self) -> &mut Connection {
        &mut self.conns[0]
    }

    /// How many connections may load at once.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Run `f` on the first connection, timed as phase `name`.
    pub fn phase<T>(&mut self, name: &str, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let began = Instant::now();
        let r = f(&mut self.conns[0]);
        self.record(name, began);
        r
    }

    /// Run `job` on every item, as many at once as the loader is wide, each on a
    /// connection of its own, the whole timed as phase `name`; the first failure stops
    /// the items not yet begun.
    pub fn side_by_side<I: Sync>(
        &mut self,
        name: &str,
        items: &[I],
        job: impl Fn(&mut Connection, &I) -> Result<()> + Sync,
    ) -> Result<()> {
        let began = Instant::now();
        let r = self.run_side_by_side(items, &job);
        self.record(name, began);
        r
    }

    fn run_side_by_side<I: Sync>(
        &mut self,
        items: &[I],
        job: &(impl Fn(&mut Connection, &I) -> Result<()> + Sync),
    ) -> Result<()> {
        let wanted = self.width.min(items.len());
        while self.conns.len() < wanted {
            self.conns.push(self.instance.connect()?);
        }
        let done = crate::jobs::side_by_side(&mut self.conns[..wanted], items.len(), |c, i| job(c, &items[i]));
        done.into_iter().flatten().collect()
    }

    fn record(&mut self, name: &str, began: Instant) {
        let s = began.elapsed().as_secs_f64();
        match self.phases.iter_mut().find(|p| p.phase == name) {
            Some(p) => p.s += s,
            None => self.phases.push(LoadPhase { phase: name.to_string(), s }),
        }
    }

    /// The phases, in the order they first ran; the connections close.
    pub fn finish(self) -> Vec<LoadPhase> {
        self.phases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, Launch, Machine, Target};
    use std::sync::Mutex;

    #[test]
    fn side_by_side_runs_every_item_once_and_stops_at_a_failure() {
        let profile = crate::profile::Profile::builtin("ram").unwrap();
        let (storage, machine) = (crate::instance::Storage::default(), Machine::default());
        let launch = Launch::run(&profile, &Target::Managed, &storage, &machine);
        let memory = crate::engine::memory::Memory.launch(&launch).unwrap();
        let mut l = Loader::new(&*memory).unwrap();
        assert_eq!(l.width(), 1, "an embedded engine loads over one connection");
        let done = Mutex::new(Vec::new());
        l.side_by_side("tables", &[1, 2, 3], |_, i| {
            done.lock().unwrap().push(*i);
            Ok(())
        })
        .unwrap();
        assert_eq!(*done.lock().unwrap(), [1, 2, 3]);
        let e = l.side_by_side("tables", &[4, 5], |_, i| Err(crate::error::Error::Run(format!("item {i}"))));
        assert_eq!(e.unwrap_err().to_string(), "item 4");
        let phases = l.finish();
        assert_eq!(phases.len(), 1, "a phase run twice is one phase");
        assert_eq!(phases[0].phase, "tables");
    }
}
