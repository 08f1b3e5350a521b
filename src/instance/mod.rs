//! Throwaway storage for instances: checked locations, per-instance data dirs, the reaper.

pub mod certs;
pub mod datadir;
pub mod fsync_probe;
pub mod location;
pub mod server;
pub mod user;

pub use datadir::DataDir;

/// The directories an instance keeps its files in, removed when dropped.
#[derive(Debug, Default)]
pub struct Storage {
    /// The data directory, in the profile's location.
    pub data: Option<DataDir>,
    /// A separate directory for the write-ahead log, in the profile's WAL location.
    pub wal: Option<DataDir>,
}
pub use location::{Location, Locations};

impl Storage {
    /// Fresh directories for `profile` in its locations: the data, and the write-ahead log
    /// when the profile puts it elsewhere.
    pub fn create(profile: &crate::profile::Profile, locations: &Locations) -> crate::error::Result<Storage> {
        let data = Some(DataDir::create(&locations.get(profile.location)?.path)?);
        let wal = match profile.wal.filter(|w| *w != profile.location) {
            Some(w) => Some(DataDir::create(&locations.get(w)?.path)?),
            None => None,
        };
        Ok(Storage { data, wal })
    }
}
