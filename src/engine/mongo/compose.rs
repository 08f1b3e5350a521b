//! A Compose service of the official mongo image: its data in /data/db, settings as
//! `--key value`, the root account of MONGO_INITDB_ROOT_USERNAME and its password, and
//! MONGO_INITDB_DATABASE.

use crate::engine::access::Access;
use crate::engine::compose::{Flags, ServiceContract, first};
use std::collections::BTreeMap;

/// The mongo image's terms.
pub static CONTRACT: ServiceContract = ServiceContract {
    images: &["mongo", "mongodb-community-server"],
    port: 27017,
    data_dir: "/data/db",
    programs: &["mongod"],
    flags: Flags::Spaced,
    durability: &[],
    defaults: &[],
    account_settings: &[],
    access,
};

/// The root account the image creates, and the database it names.
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    Access {
        port: None,
        user: first(env, &["MONGO_INITDB_ROOT_USERNAME"]),
        password: first(env, &["MONGO_INITDB_ROOT_PASSWORD"]),
        database: first(env, &["MONGO_INITDB_DATABASE"]),
    }
}
