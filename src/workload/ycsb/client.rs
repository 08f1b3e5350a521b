//! One YCSB client: draws an operation by the workload's proportions, its record by the
//! request distribution, and runs it on a `Store` (SQL or key-value), checking that the
//! records it reads are there. Per-operation latency for `--report-per-statement`.

use super::generator::KeyChooser;
use super::sequence::Sequence;
use super::{FIELD_LEN, FIELDS, Key, MAX_SCAN, fill, text};
use crate::engine::{TxError, TxResult};
use crate::results::StatementLatency;
use crate::rng::Rng;
use crate::workload::Transactor;
use std::sync::Arc;
use std::time::Instant;

/// YCSB's operations, in the order of a workload's proportions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Read every field of one record.
    Read = 0,
    /// Write one field of one record.
    Update = 1,
    /// Add a record with a new number.
    Insert = 2,
    /// Read 1–100 records in key order from one.
    Scan = 3,
    /// Read a record, then write one of its fields.
    ReadModifyWrite = 4,
}

impl Op {
    /// How many there are.
    pub const COUNT: usize = 5;
    const ALL: [Op; Op::COUNT] = [Op::Read, Op::Update, Op::Insert, Op::Scan, Op::ReadModifyWrite];
    /// YCSB's names, as its per-operation report prints them.
    const NAMES: [&str; Op::COUNT] = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"];
    /// Their names as transaction types (`--by-type`).
    const TYPES: [&str; Op::COUNT] = ["read", "update", "insert", "scan", "read-modify-write"];

    /// The transaction types of `mix`: its operations drawn at all, in YCSB's order; none
    /// for a mix of one.
    pub fn types(mix: &[f64; Op::COUNT]) -> Vec<String> {
        let drawn: Vec<String> =
            Op::ALL.iter().filter(|op| mix[**op as usize] > 0.0).map(|op| Op::TYPES[*op as usize].into()).collect();
        if drawn.len() > 1 { drawn } else { Vec::new() }
    }

    /// Its index among the types of `mix`.
    fn type_in(self, mix: &[f64; Op::COUNT]) -> usize {
        mix[..self as usize].iter().filter(|p| **p > 0.0).count()
    }
}

/// What an engine does for each operation.
pub trait Store: Send {
    /// Read every field of the record at `key`; whether it exists.
    fn read(&mut self, key: &str) -> TxResult<bool>;
    /// Set one field of the record at `key`; whether it exists.
    fn update(&mut self, key: &str, field: usize, value: &str) -> TxResult<bool>;
    /// Add the record `key` with its fields.
    fn insert(&mut self, key: &str, fields: &[[u8; FIELD_LEN]; FIELDS]) -> TxResult<()>;
    /// Read up to `len` records from `key` on, in the store's scan order, every field of
    /// each; the number read.
    fn scan(&mut self, key: &str, len: usize) -> TxResult<u64>;
    /// Undo a failed attempt, if anything is open.
    fn abort(&mut self);
}

/// A client's workload state, independent of the engine.
pub struct Driver {
    /// The workload, for the per-operation report.
    pub name: &'static str,
    /// Proportions indexed by `Op`.
    pub mix: [f64; Op::COUNT],
    /// The client's own generator.
    pub rng: Rng,
    /// The request distribution.
    pub chooser: KeyChooser,
    /// Insert numbers, shared by the cell's clients.
    pub sequence: Arc<Sequence>,
    /// `--report-per-statement`.
    pub per_statement: bool,
}

/// The values of one operation, kept for a retry.
struct Drawn {
    op: Op,
    key: Key,
    /// The number an insert claimed (given back if it never succeeds).
    insert: Option<u64>,
    field: usize,
    len: usize,
    fields: [[u8; FIELD_LEN]; FIELDS],
}

/// Per-operation counts while measured.
#[derive(Clone, Copy, Default)]
struct OpStat {
    executions: u64,
    failures: u64,
    retries: u64,
    nanos: u64,
}

/// A YCSB client on one engine's store.
pub struct Client<S: Store> {
    store: S,
    d: Driver,
    drawn: Drawn,
    timing: bool,
    stats: [OpStat; Op::COUNT],
}

impl<S: Store> Client<S> {
    /// A client for `store`.
    pub fn new(store: S, d: Driver) -> Client<S> {
        let drawn = Drawn {
            op: Op::Read,
            key: Key::of(0),
            insert: None,
            field: 0,
            len: 1,
            fields: [[b'-'; FIELD_LEN]; FIELDS],
        };
        Client { store, d, drawn, timing: false, stats: [OpStat::default(); Op::COUNT] }
    }

    /// YCSB's `DiscreteGenerator`: the operation whose cumulative proportion the draw falls in.
    fn choose_op(&mut self) -> Op {
        let mut u = self.d.rng.unit();
        for op in Op::ALL {
            let p = self.d.mix[op as usize];
            if p > 0.0 && u < p {
                return op;
            }
            u -= p;
        }
        // Rounding of the proportions: the last one in the mix.
        *Op::ALL.iter().rev().find(|op| self.d.mix[**op as usize] > 0.0).expect("a mix has an operation")
    }

    fn draw(&mut self) {
        // An insert that never succeeded gives its number back (a hole the reads skip past).
        if let Some(n) = self.drawn.insert.take() {
            self.d.sequence.acknowledge(n, false);
        }
        let op = self.choose_op();
        self.drawn.op = op;
        let n = if op == Op::Insert {
            let n = self.d.sequence.claim();
            self.drawn.insert = Some(n);
            for f in &mut self.drawn.fields {
                fill(&mut self.d.rng, f);
            }
            n
        } else {
            self.d.chooser.next(&mut self.d.rng, self.d.sequence.limit())
        };
        self.drawn.key = Key::of(n);
        match op {
            Op::Update | Op::ReadModifyWrite => {
                // YCSB's writeallfields=false: one field, chosen uniformly.
                self.drawn.field = self.d.rng.range(0, FIELDS as i64 - 1) as usize;
                fill(&mut self.d.rng, &mut self.drawn.fields[0]);
            }
            Op::Scan => self.drawn.len = self.d.rng.range(1, MAX_SCAN as i64) as usize,
            Op::Read | Op::Insert => {}
        }
    }

    fn attempt(&mut self) -> TxResult<()> {
        let d = &self.drawn;
        let key = d.key.as_str();
        let missing = |what: &str| TxError::Fail(format!("{what} of {key}: no such record"));
        match d.op {
            Op::Read => {
                if !self.store.read(key)? {
                    return Err(missing("read"));
                }
            }
            Op::Update => {
                if !self.store.update(key, d.field, text(&d.fields[0]))? {
                    return Err(missing("update"));
                }
            }
            Op::ReadModifyWrite => {
                if !self.store.read(key)? {
                    return Err(missing("read-modify-write"));
                }
                if !self.store.update(key, d.field, text(&d.fields[0]))? {
                    return Err(missing("read-modify-write"));
                }
            }
            Op::Insert => {
                self.store.insert(key, &d.fields)?;
                if let Some(n) = self.drawn.insert.take() {
                    self.d.sequence.acknowledge(n, true);
                }
            }
            Op::Scan => {
                let n = self.store.scan(key, d.len)?;
                // The first record exists: at least it is read, at most `len`.
                if n == 0 || n > d.len as u64 {
                    return Err(TxError::Fail(format!("scan of {} from {key} read {n} records", d.len)));
                }
            }
        }
        Ok(())
    }
}

impl<S: Store> Transactor for Client<S> {
    fn run_one(&mut self, retry: bool) -> TxResult<()> {
        if !retry {
            self.draw();
        }
        let start = self.timing.then(Instant::now);
        let r = self.attempt();
        if let Some(start) = start {
            let s = &mut self.stats[self.drawn.op as usize];
            match &r {
                Ok(()) => {
                    s.executions += 1;
                    s.nanos += start.elapsed().as_nanos() as u64;
                }
                Err(TxError::Retry) => s.retries += 1,
                Err(_) => s.failures += 1,
            }
        }
        r
    }
    fn abort(&mut self) {
        self.store.abort();
    }
    fn last_type(&self) -> usize {
        self.drawn.op.type_in(&self.d.mix)
    }
    fn measuring(&mut self) {
        self.timing = self.d.per_statement;
    }
    fn statements(&self) -> Vec<StatementLatency> {
        if !self.timing {
            return Vec::new();
        }
        Op::ALL
            .iter()
            .filter(|op| self.d.mix[**op as usize] > 0.0)
            .map(|&op| {
                let s = self.stats[op as usize];
                StatementLatency::new(
                    self.d.name.to_string(),
                    op as u32 + 1,
                    Op::NAMES[op as usize].to_string(),
                    [s.executions, s.failures, s.retries],
                    s.nanos as f64 / 1e9,
                )
            })
            .collect()
    }
}

impl<S: Store> Drop for Client<S> {
    /// A client leaving with an insert in flight gives its number back, so the others'
    /// reads are not held below it.
    fn drop(&mut self) {
        if let Some(n) = self.drawn.insert.take() {
            self.d.sequence.acknowledge(n, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Op;

    #[test]
    fn an_operation_is_the_type_of_its_name_among_those_drawn() {
        for mix in [[0.5, 0.5, 0.0, 0.0, 0.0], [0.0, 0.0, 0.05, 0.95, 0.0], [0.5, 0.0, 0.0, 0.0, 0.5]] {
            let types = Op::types(&mix);
            for op in Op::ALL.iter().filter(|op| mix[**op as usize] > 0.0) {
                assert_eq!(types[op.type_in(&mix)], Op::TYPES[*op as usize], "{mix:?}");
            }
        }
    }
}
