//! The official mongo image, for every launcher, compose and suggest: its data in /data/db,
//! settings as `--key value`, the root account of MONGO_INITDB_ROOT_USERNAME and its
//! password, and MONGO_INITDB_DATABASE.

use crate::engine::access::Access;
use crate::engine::image::{AccountEnv, Conf, Flags, Image, ProfileSettings, Stream};
use crate::profile::{Durability, Profile};
use std::collections::BTreeMap;

/// The mongo image's terms.
pub static IMAGE: Image = Image {
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
    init_dir: Some("/docker-entrypoint-initdb.d"),
    account: AccountEnv {
        user: &["MONGO_INITDB_ROOT_USERNAME"],
        password: &["MONGO_INITDB_ROOT_PASSWORD"],
        database: &["MONGO_INITDB_DATABASE"],
        password_required: false,
    },
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
    let [user, password, database] = IMAGE.account.read(env);
    Access { port: None, user, password, database }
}
