//! A Compose service of the official mongo image: its data in /data/db, settings as
//! `--key value`, the root account of MONGO_INITDB_ROOT_USERNAME and its password, and
//! MONGO_INITDB_DATABASE.

use crate::engine::access::Access;
use crate::engine::compose::{Conf, Flags, ProfileSettings, ServiceContract, Stream, first};
use crate::profile::{Durability, Profile};
use std::collections::BTreeMap;

/// The mongo image's terms.
pub static CONTRACT: ServiceContract = ServiceContract {
    default_image: "mongo:8",
    images: &["mongo", "mongodb-community-server"],
    port: 27017,
    data_dir: "/data/db",
    programs: &["mongod"],
    flags: Flags::Spaced,
    durability: &[],
    defaults: &[],
    account_settings: &[],
    own_env: &["MONGO_INITDB_"],
    access,
    settings,
    // mongod with WiredTiger, and the write concern of a durable profile, which each of
    // your clients must send ({w: 1, j: true}): the server cannot be told to.
    image_values: &[
        ("server_process", "mongod"),
        ("storage_engine", "wiredTiger"),
        ("storage_persistent", "true"),
        ("write_concern", "{w: 1, j: true}"),
    ],
    password_env: None,
    conf: Conf { file: "mongod.conf", render: conf },
    ready: (Stream::Stdout, "Waiting for connections"),
};

/// Only where the data lives is the server's: how durable a write is, its write concern
/// says, which each client sends.
fn settings(p: &Profile) -> ProfileSettings {
    match (p.durability, p.unlogged, p.wal) {
        (Durability::Durable, false, None) => Ok(Vec::new()),
        _ => {
            Err("MongoDB's durability is the write concern each client sends ({w: 1, j: false}), not a server setting")
        }
    }
}

/// mongod takes no durability setting from its file for these profiles.
fn conf(_: &[(String, String)]) -> String {
    String::new()
}

/// The root account the image creates, and the database it names.
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    Access {
        port: None,
        user: first(env, &["MONGO_INITDB_ROOT_USERNAME"]),
        password: first(env, &["MONGO_INITDB_ROOT_PASSWORD"]),
        database: first(env, &["MONGO_INITDB_DATABASE"]),
    }
}
