//! YCSB's core workloads A–F (`ycsb-a` … `ycsb-f`) on YCSB's `usertable`: records of ten
//! 100-byte fields under keys `user<FNV hash of the record number>`, operations drawn by
//! the workload's proportions, records by the request distribution (zipfian, uniform or
//! latest). Each operation is one transaction, as YCSB's autocommit bindings run them.
//! SQL engines get YCSB's JDBC statements; key-value engines what YCSB's redis binding
//! does: a hash per record and a sorted-set index for scans; document engines what its
//! mongodb binding does: a document per record, scans in `_id` order.

mod client;
mod doc;
pub mod generator;
mod kind;
mod kv;
pub mod options;
mod sequence;
mod sql;

use super::{CellWorkload, Loader, Transactor, Verdict, Workload, WorkloadOptions, store};
use crate::engine::{Capability, Connection, Interface};
use crate::error::Result;
use crate::rng::Rng;
use client::{Driver, Op};
use generator::{KeyChooser, Latest, ScrambledZipfian};
use kind::Records;
use sequence::Sequence;
use std::sync::Arc;

/// The kinds of store YCSB keeps its records in, in the order the plan lists them.
const KINDS: [&dyn Records; 3] = [&sql::Sql, &kv::HashesAndSortedSets, &doc::Docs];

pub use options::{DEFAULT_RECORDS, Distribution};

/// Fields per record (YCSB's fieldcount).
pub const FIELDS: usize = 10;
/// Bytes per field (YCSB's fieldlength).
pub const FIELD_LEN: usize = 100;
/// The longest scan (YCSB's maxscanlength); lengths are uniform in 1..=100.
pub const MAX_SCAN: usize = 100;
const FIELD_NAMES: [&str; FIELDS] =
    ["field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8", "field9"];

/// One of YCSB's core workloads.
#[derive(Clone, Copy)]
pub struct Ycsb {
    name: &'static str,
    about: &'static str,
    /// Proportions of READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE (indexed by `Op`).
    mix: [f64; Op::COUNT],
    /// The distribution of its workload file.
    distribution: Distribution,
}

const fn ycsb(name: &'static str, about: &'static str, mix: [f64; Op::COUNT], distribution: Distribution) -> Ycsb {
    Ycsb { name, about, mix, distribution }
}

/// workloada: update heavy.
pub const YCSB_A: Ycsb =
    ycsb("ycsb-a", "YCSB A: 50% reads, 50% updates, zipfian", [0.5, 0.5, 0.0, 0.0, 0.0], Distribution::Zipfian);
/// workloadb: read mostly.
pub const YCSB_B: Ycsb =
    ycsb("ycsb-b", "YCSB B: 95% reads, 5% updates, zipfian", [0.95, 0.05, 0.0, 0.0, 0.0], Distribution::Zipfian);
/// workloadc: read only.
pub const YCSB_C: Ycsb =
    ycsb("ycsb-c", "YCSB C: 100% reads, zipfian", [1.0, 0.0, 0.0, 0.0, 0.0], Distribution::Zipfian);
/// workloadd: read latest.
pub const YCSB_D: Ycsb = ycsb(
    "ycsb-d",
    "YCSB D: 95% reads, 5% inserts, the newest records most read",
    [0.95, 0.0, 0.05, 0.0, 0.0],
    Distribution::Latest,
);
/// workloade: short ranges.
pub const YCSB_E: Ycsb = ycsb(
    "ycsb-e",
    "YCSB E: 95% scans of 1-100 records, 5% inserts, zipfian",
    [0.0, 0.0, 0.05, 0.95, 0.0],
    Distribution::Zipfian,
);
/// workloadf: read-modify-write.
pub const YCSB_F: Ycsb = ycsb(
    "ycsb-f",
    "YCSB F: 50% reads, 50% read-modify-writes, zipfian",
    [0.5, 0.0, 0.0, 0.0, 0.5],
    Distribution::Zipfian,
);

impl Workload for Ycsb {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> &str {
        self.about
    }
    fn interfaces(&self) -> &'static [Interface] {
        &[Interface::Sql, Interface::Kv, Interface::Doc]
    }
    fn needs(&self, iface: Interface) -> &'static [Capability] {
        store::needs(&KINDS, iface)
    }
    /// A record is 1,000 bytes of fields and a key of up to 23: 1.4 KB in SQLite with the
    /// key's index (measured on 100,000 records), doubled and rounded up for the log, the
    /// inserts and growth.
    fn estimated_bytes(&self, opts: &WorkloadOptions) -> u64 {
        opts.ycsb.records * 3_000
    }
    fn size_options(&self, opts: &WorkloadOptions) -> String {
        format!("--records {}", opts.ycsb.records)
    }
    fn types(&self) -> Vec<String> {
        Op::types(&self.mix)
    }
    fn prepare(&self, load: &mut Loader, opts: &WorkloadOptions) -> Result<Box<dyn CellWorkload>> {
        let conn = load.conn();
        store::pick(&KINDS, conn, self.name)?.load(conn, opts.ycsb.records)?;
        Ok(Box::new(Cell {
            w: *self,
            records: opts.ycsb.records,
            // The distribution in effect: `--distribution`, else the workload file's.
            distribution: opts.ycsb.distribution.unwrap_or(self.distribution),
            per_statement: opts.per_statement,
            sequence: Arc::new(Sequence::new(opts.ycsb.records)),
            latest_zeta: None,
        }))
    }
}

/// A repeat of a YCSB workload: the insert sequence its clients share, started over
/// after each load.
struct Cell {
    w: Ycsb,
    records: u64,
    distribution: Distribution,
    per_statement: bool,
    sequence: Arc<Sequence>,
    /// ζ(records) for `latest`, computed once for the repeat rather than by every client
    /// (O(records) each).
    latest_zeta: Option<f64>,
}

impl Cell {
    /// A client's key chooser for the loaded records.
    fn chooser(&mut self) -> KeyChooser {
        let records = self.records;
        match self.distribution {
            Distribution::Uniform => KeyChooser::Uniform(records),
            // YCSB sizes the key space for the inserts expected: operations × insert
            // proportion × 2; its workload files set operationcount = recordcount.
            Distribution::Zipfian => {
                let expected = (records as f64 * self.w.mix[Op::Insert as usize] * 2.0) as u64;
                KeyChooser::Zipfian(ScrambledZipfian::new(records + expected))
            }
            Distribution::Latest => {
                let zetan = *self.latest_zeta.get_or_insert_with(|| generator::zeta(0, records, generator::THETA, 0.0));
                KeyChooser::Latest(Latest::new(records, Some(zetan)))
            }
        }
    }
}

impl CellWorkload for Cell {
    fn client(&mut self, mut conn: Connection, _id: u32, seed: u64) -> Result<Box<dyn Transactor>> {
        let driver = Driver {
            name: self.w.name,
            mix: self.w.mix,
            rng: Rng::new(seed),
            chooser: self.chooser(),
            sequence: Arc::clone(&self.sequence),
            per_statement: self.per_statement,
        };
        store::pick(&KINDS, &mut conn, self.w.name)?.client(conn, driver)
    }
    fn verify(&mut self, conn: &mut Connection, committed: u64) -> Result<Verdict> {
        let inserted = self.sequence.inserted();
        let records = self.records;
        let want = records + inserted;
        let (ok, found) = store::pick(&KINDS, conn, self.w.name)?.verify(conn, want)?;
        let detail =
            format!("{want} records = {records} loaded + {inserted} inserted; {found}; {committed} operations");
        Ok(Verdict { ok, detail })
    }
}

/// A record's key: `user` and the FNV hash of its number, in decimal (YCSB's hashed
/// insert order, `insertorder=hashed`), formatted on the stack.
#[derive(Clone, Copy)]
pub struct Key {
    buf: [u8; 24],
    len: usize,
}

impl Key {
    /// The key of record `n`.
    pub fn of(n: u64) -> Key {
        let mut buf = [0u8; 24];
        buf[..4].copy_from_slice(b"user");
        let mut digits = itoa::Buffer::new();
        let d = digits.format(generator::fnv64(n)).as_bytes();
        buf[4..4 + d.len()].copy_from_slice(d);
        Key { buf, len: 4 + d.len() }
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).expect("ASCII digits")
    }
}

/// Fill a field with random printable ASCII (letters, digits, `-`, `_`: nothing any
/// engine's bulk format would need to escape), ten characters per 64 random bits.
pub fn fill(rng: &mut Rng, field: &mut [u8; FIELD_LEN]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for chunk in field.chunks_mut(10) {
        let mut bits = rng.next_u64();
        for b in chunk {
            *b = ALPHABET[(bits & 63) as usize];
            bits >>= 6;
        }
    }
}

/// A field as text.
pub fn text(field: &[u8; FIELD_LEN]) -> &str {
    std::str::from_utf8(field).expect("fields are ASCII")
}

/// Every load draws from this seed, so every cell and repeat races on the same records.
const LOAD_SEED: u64 = 0x9c5b_0001;

/// The loaded records in order: key and fields of each.
fn records(n: u64) -> impl Iterator<Item = (Key, [[u8; FIELD_LEN]; FIELDS])> {
    let mut rng = Rng::new(LOAD_SEED);
    (0..n).map(move |i| {
        let mut fields = [[0u8; FIELD_LEN]; FIELDS];
        for f in &mut fields {
            fill(&mut rng, f);
        }
        (Key::of(i), fields)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_user_and_the_hash_in_decimal() {
        assert_eq!(Key::of(7).as_str(), format!("user{}", generator::fnv64(7)));
        // The longest hash (2^63 as Java's Math.abs leaves it) fits.
        let longest = format!("user{}", 1u64 << 63);
        assert!(longest.len() <= 24);
        let keys: std::collections::BTreeSet<String> = (0..10_000).map(|i| Key::of(i).as_str().to_string()).collect();
        assert_eq!(keys.len(), 10_000);
    }

    #[test]
    fn fields_are_printable_and_full() {
        let mut rng = Rng::new(1);
        let mut f = [0u8; FIELD_LEN];
        fill(&mut rng, &mut f);
        assert!(text(&f).bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        let distinct: std::collections::BTreeSet<u8> = f.iter().copied().collect();
        assert!(distinct.len() > 30);
    }

    #[test]
    fn distributions_parse_and_refuse() {
        assert_eq!("latest".parse::<Distribution>().unwrap(), Distribution::Latest);
        assert!("bogus".parse::<Distribution>().unwrap_err().contains("zipfian, uniform or latest"));
    }

    #[test]
    fn types_are_the_operations_a_mix_draws() {
        assert_eq!(YCSB_A.types(), ["read", "update"]);
        assert_eq!(YCSB_E.types(), ["insert", "scan"]);
        assert_eq!(YCSB_F.types(), ["read", "read-modify-write"]);
        assert!(YCSB_C.types().is_empty(), "one operation is one type");
    }

    #[test]
    fn mixes_add_up() {
        for w in [YCSB_A, YCSB_B, YCSB_C, YCSB_D, YCSB_E, YCSB_F] {
            assert!((w.mix.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{}", w.name);
        }
    }
}
