//! An in-process store: a sharded hash map behind mutexes. No server, no I/O, no
//! durability; the upper bound a real engine is compared to.

use super::{
    Capability, Capable, Connection, Engine, Facts, HashField, HashIncr, Hashes, Instance, Interface, KvClient, Launch,
    Machine, SortedSets, Target, TxError, TxResult,
};
use crate::error::Result;
use crate::profile::{Durability, LocationKind, Profile};
use crate::results::Survives;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

/// The in-process reference engine.
pub struct Memory;

const SHARDS: usize = 64;

/// A key-value store with hashes and sorted sets, and nothing to configure.
static FACTS: Facts = Facts {
    capabilities: &[Capability::Hashes, Capability::SortedSets],
    embedded: true,
    ..Facts::new("memory", Interface::Kv)
};

impl Engine for Memory {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }
    fn version(&self, _machine: &Machine) -> Result<String> {
        Ok(env!("CARGO_PKG_VERSION").to_string())
    }
    /// Whatever was asked, the memory store has one mode: in RAM, nothing logged.
    fn resolve_profile(&self, _requested: &Profile) -> Option<Profile> {
        Some(Profile {
            name: "unlogged".into(),
            location: LocationKind::Ram,
            durability: Durability::Off,
            unlogged: true,
            wal: None,
            settings: Vec::new(),
            tls: false,
        })
    }
    fn needs_data_dir(&self, _profile: &Profile, _target: &Target) -> bool {
        false
    }
    /// A hash map in dbrace's process: gone with it.
    fn survives(&self, _profile: &Profile, _settings: &BTreeMap<String, String>) -> Survives {
        Survives::Nothing
    }
    fn launch(&self, _launch: &Launch) -> Result<Box<dyn Instance>> {
        let shards = (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect();
        Ok(Box::new(MemoryInstance { store: Arc::new(shards) }))
    }
}

type Shard = HashMap<Box<[u8]>, Entry, BuildHasherDefault<Fnv>>;
type Bytes = Box<[u8]>;

/// A stored value, typed as Redis types its keys.
enum Entry {
    Bytes(Bytes),
    /// Field values as decimal text where they are counters, as Redis keeps them.
    Hash(HashMap<Bytes, Bytes, BuildHasherDefault<Fnv>>),
    /// A sorted set: members in score order, and each member's score.
    Sorted(BTreeSet<(i64, Bytes)>, HashMap<Bytes, i64, BuildHasherDefault<Fnv>>),
}

/// Redis's answer to an operation on a key of another type.
fn wrong_type() -> TxError {
    TxError::Fail("memory: WRONGTYPE operation against a key holding the wrong kind of value".into())
}
type Store = Vec<Mutex<Shard>>;

struct MemoryInstance {
    store: Arc<Store>,
}

impl Instance for MemoryInstance {
    fn connect(&self) -> Result<Connection> {
        Ok(Connection::Kv(Box::new(MemoryClient { store: self.store.clone() })))
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }
    fn embedded(&self) -> bool {
        FACTS.embedded
    }
    fn settings(&self) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("store".to_string(), "sharded hash map".to_string()),
            ("shards".to_string(), SHARDS.to_string()),
        ])
    }
}

struct MemoryClient {
    store: Arc<Store>,
}

impl MemoryClient {
    fn shard(&self, key: &[u8]) -> std::sync::MutexGuard<'_, Shard> {
        let mut h = Fnv::default();
        h.write(key);
        let i = (h.finish() as usize) % SHARDS;
        // A poisoned shard only means another client panicked; its data is still a map.
        self.store[i].lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl KvClient for MemoryClient {
    fn set(&mut self, key: &[u8], value: &[u8]) -> TxResult<()> {
        self.shard(key).insert(key.into(), Entry::Bytes(value.into()));
        Ok(())
    }
    /// One key at a time: the store has no transactions, and nothing here can fail.
    fn set_all(&mut self, keys: &mut dyn Iterator<Item = &[u8]>, value: &[u8]) -> TxResult<()> {
        for key in keys {
            self.set(key, value)?;
        }
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> TxResult<bool> {
        out.clear();
        match self.shard(key).get(key) {
            Some(Entry::Bytes(v)) => {
                out.extend_from_slice(v);
                Ok(true)
            }
            Some(_) => Err(wrong_type()),
            None => Ok(false),
        }
    }
    fn count(&mut self) -> TxResult<u64> {
        Ok(self.store.iter().map(|s| s.lock().unwrap_or_else(|p| p.into_inner()).len() as u64).sum())
    }
}

/// Hashes and sorted sets as Redis keeps them, the upper bound of Redis's.
impl Capable for MemoryClient {
    fn hashes(&mut self) -> Option<&mut dyn Hashes> {
        Some(self)
    }
    fn sorted_sets(&mut self) -> Option<&mut dyn SortedSets> {
        Some(self)
    }
}

impl Hashes for MemoryClient {
    fn hset(&mut self, key: &[u8], fields: &[(&[u8], &[u8])]) -> TxResult<()> {
        let mut shard = self.shard(key);
        let Entry::Hash(h) = shard.entry(key.into()).or_insert_with(|| Entry::Hash(HashMap::default())) else {
            return Err(wrong_type());
        };
        for (f, v) in fields {
            h.insert((*f).into(), (*v).into());
        }
        Ok(())
    }
    fn hincrby(&mut self, incs: &[HashIncr]) -> TxResult<()> {
        for inc in incs {
            let mut shard = self.shard(inc.key);
            let Entry::Hash(h) = shard.entry(inc.key.into()).or_insert_with(|| Entry::Hash(HashMap::default())) else {
                return Err(wrong_type());
            };
            let slot = h.entry(inc.field.into()).or_insert_with(|| Box::from(&b"0"[..]));
            let now: i64 = std::str::from_utf8(slot)
                .ok()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| TxError::Fail("memory: hash value is not an integer".into()))?;
            *slot = (now + inc.by).to_string().into_bytes().into();
        }
        Ok(())
    }
    fn hgetall(&mut self, keys: &[&[u8]], field: &mut HashField) -> TxResult<u64> {
        let mut found = 0;
        for (i, key) in keys.iter().enumerate() {
            match self.shard(key).get(*key) {
                Some(Entry::Hash(h)) => {
                    found += 1;
                    h.iter().for_each(|(f, v)| field(i, f, v));
                }
                Some(_) => return Err(wrong_type()),
                None => {}
            }
        }
        Ok(found)
    }
}

impl SortedSets for MemoryClient {
    fn zadd(&mut self, key: &[u8], score: i64, member: &[u8]) -> TxResult<()> {
        let mut shard = self.shard(key);
        let empty = || Entry::Sorted(BTreeSet::new(), HashMap::default());
        let Entry::Sorted(z, scores) = shard.entry(key.into()).or_insert_with(empty) else {
            return Err(wrong_type());
        };
        // A member has one score, as in Redis: a new score replaces the old.
        if let Some(old) = scores.insert(member.into(), score) {
            z.remove(&(old, Box::from(member)));
        }
        z.insert((score, member.into()));
        Ok(())
    }
    fn zrange_from(&mut self, key: &[u8], min: i64, count: usize, member: &mut dyn FnMut(&[u8])) -> TxResult<u64> {
        match self.shard(key).get(key) {
            Some(Entry::Sorted(z, _)) => {
                let from = (min, Box::<[u8]>::default());
                let mut n = 0;
                for (_, m) in z.range(from..).take(count) {
                    member(m);
                    n += 1;
                }
                Ok(n)
            }
            Some(_) => Err(wrong_type()),
            None => Ok(0),
        }
    }
}

/// FNV-1a: short keys hash faster than with SipHash, and no one attacks our own keys.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_and_sorted_sets() {
        let profile = Profile::builtin("ram").unwrap();
        let (storage, machine) = (crate::instance::Storage::default(), Machine::default());
        let inst = Memory.launch(&Launch::run(&profile, &Target::Managed, &storage, &machine)).unwrap();
        let mut conn = inst.connect().unwrap();
        for cap in Capability::ALL {
            assert_eq!(conn.offers(cap), Memory.facts().capabilities.contains(&cap), "{}", cap.name());
        }
        super::super::capability::check_kv_ops(conn.kv().expect("memory is key-value"));
    }
}
