//! An in-process store: a sharded hash map behind mutexes. No server, no I/O, no
//! durability; the upper bound a real engine is compared to.

use super::{Connection, Engine, Instance, Interface, KvClient, Target, TxResult};
use crate::error::Result;
use crate::instance::Storage;
use crate::profile::{Durability, LocationKind, Profile};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

/// The in-process reference engine.
pub struct Memory;

const SHARDS: usize = 64;

impl Engine for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }
    fn interface(&self) -> Interface {
        Interface::Kv
    }
    fn version(&self) -> Result<String> {
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
        })
    }
    fn setting_keys(&self) -> &'static [&'static str] {
        &[]
    }
    fn needs_data_dir(&self, _profile: &Profile, _target: &Target) -> bool {
        false
    }
    fn launch(&self, _profile: &Profile, _target: &Target, _storage: &Storage) -> Result<Box<dyn Instance>> {
        let shards = (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect();
        Ok(Box::new(MemoryInstance { store: Arc::new(shards) }))
    }
}

type Shard = HashMap<Box<[u8]>, Box<[u8]>, BuildHasherDefault<Fnv>>;
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
        self.shard(key).insert(key.into(), value.into());
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> TxResult<bool> {
        out.clear();
        match self.shard(key).get(key) {
            Some(v) => {
                out.extend_from_slice(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn count(&mut self) -> TxResult<u64> {
        Ok(self.store.iter().map(|s| s.lock().unwrap_or_else(|p| p.into_inner()).len() as u64).sum())
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
