//! The official postgres image, for every launcher, compose and suggest: its data in
//! PGDATA's default, settings as `-c key=value`, the account of POSTGRES_USER,
//! POSTGRES_PASSWORD and POSTGRES_DB.

use crate::engine::access::Access;
use crate::engine::image::{AccountEnv, Conf, Flags, Image, ProfileSettings, Stream};
use crate::profile::Profile;
use std::collections::BTreeMap;

/// The postgres image's terms.
pub static IMAGE: Image = Image {
    default_image: "postgres:17",
    images: &["postgres"],
    port: 5432,
    data_dir: "/var/lib/postgresql/data",
    programs: &["postgres"],
    flags: Flags::DashC,
    durability: &["fsync", "synchronous_commit", "full_page_writes"],
    defaults: &[],
    account_settings: &[],
    own_env: &["POSTGRES_HOST_AUTH_METHOD", "PGDATA"],
    access,
    settings,
    image_values: &[],
    init_dir: Some("/docker-entrypoint-initdb.d"),
    account: AccountEnv {
        user: &["POSTGRES_USER"],
        password: &["POSTGRES_PASSWORD"],
        database: &["POSTGRES_DB"],
        password_required: true,
    },
    conf: Conf { file: "postgresql.conf", render: conf },
    // The first start's temporary server listens on its socket only.
    ready: (Stream::Stderr, "listening on IPv4 address"),
};

/// The profile's durability settings; a profile of volatile tables or a WAL apart is not
/// a matter of server settings.
fn settings(p: &Profile) -> ProfileSettings {
    if p.unlogged {
        return Err(
            "UNLOGGED is a property of each table (CREATE UNLOGGED TABLE), not of the server; ram-nosync is the closest a whole server gets",
        );
    }
    if p.wal.is_some() {
        return Err(
            "pg_wal apart from the data needs initdb's --waldir on a tmpfs of its own (POSTGRES_INITDB_WALDIR); dbrace does not write that yet",
        );
    }
    Ok(super::durability_settings(p.durability))
}

/// postgresql.conf lines: `key = value`, quoted where the value is not one word.
fn conf(settings: &[(String, String)]) -> String {
    let word = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
    let value = |v: &str| if word(v) { v.to_string() } else { format!("'{}'", v.replace('\'', "''")) };
    settings.iter().map(|(k, v)| format!("{k} = {}\n", value(v))).collect()
}

/// POSTGRES_USER (default postgres), its password, and POSTGRES_DB (default: the user).
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    let [user, password, database] = IMAGE.account.read(env);
    let user = user.unwrap_or_else(|| "postgres".into());
    Access { port: None, password, database: Some(database.unwrap_or_else(|| user.clone())), user: Some(user) }
}
