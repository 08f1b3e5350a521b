//! The skeleton server engines share, written once: `--set` merged over a profile's own
//! settings, settings read back and compared, a fresh database with a unique name on a
//! `--url` server (dropped with the instance), session settings SET on every connection,
//! what an instance owns (a throwaway server or something on a user's server),
//! managed-only profiles refused against `--url`, and sockets whose every wait a deadline
//! or a signal ends (`patient`). How a server is started is the launcher's (src/launcher/).
//! Each engine supplies only what differs: its statements, how it reads a setting, how
//! it compares a value.

pub mod merge;
pub mod owned;
pub mod patient;
pub mod read_back;
pub mod session;
pub mod setting_names;
pub mod stream;
pub mod target;
pub mod tls;
pub mod tls_failure;
pub mod url_database;

pub use crate::launcher::ServerUser;
pub use merge::merged;
pub use owned::Owned;
pub use read_back::ReadBack;
pub use url_database::UrlDatabase;
