//! A Compose service of the official postgres image: its data in PGDATA's default, settings
//! as `-c key=value`, the account of POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.

use crate::engine::access::Access;
use crate::engine::compose::{Flags, ServiceContract, first};
use std::collections::BTreeMap;

/// The postgres image's terms.
pub static CONTRACT: ServiceContract = ServiceContract {
    images: &["postgres"],
    port: 5432,
    data_dir: "/var/lib/postgresql/data",
    programs: &["postgres"],
    flags: Flags::DashC,
    durability: &["fsync", "synchronous_commit", "full_page_writes"],
    defaults: &[],
    account_settings: &[],
    access,
};

/// POSTGRES_USER (default postgres), its password, and POSTGRES_DB (default: the user).
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    let user = first(env, &["POSTGRES_USER"]).unwrap_or_else(|| "postgres".into());
    Access {
        port: None,
        password: first(env, &["POSTGRES_PASSWORD"]),
        database: Some(first(env, &["POSTGRES_DB"]).unwrap_or_else(|| user.clone())),
        user: Some(user),
    }
}
