//! A Compose service of the official redis image: its data in /data, settings as
//! `--key value`, a password only where the command sets `--requirepass`.

use crate::engine::access::Access;
use crate::engine::compose::{Flags, ServiceContract};
use std::collections::BTreeMap;

/// The redis image's terms.
pub static CONTRACT: ServiceContract = ServiceContract {
    images: &["redis"],
    port: 6379,
    data_dir: "/data",
    programs: &["redis-server"],
    flags: Flags::Spaced,
    durability: &["appendonly", "appendfsync", "save"],
    defaults: &[("appendonly", "no"), ("save", "3600 1 300 100 60 10000")],
    account_settings: &["requirepass"],
    access,
};

/// The default user, with `--requirepass`'s password, else none.
fn access(_: &BTreeMap<String, String>, account: &BTreeMap<String, String>) -> Access {
    Access {
        port: None,
        user: None,
        password: Some(account.get("requirepass").cloned().unwrap_or_default()),
        database: None,
    }
}
