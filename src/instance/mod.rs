//! Throwaway storage for instances: checked locations, per-instance data dirs, the reaper.

pub mod datadir;
pub mod fsync_probe;
pub mod location;
pub mod server;
pub mod user;

pub use datadir::DataDir;
pub use location::{Location, Locations};
