//! A Compose service of the official mysql or mariadb image: its data in /var/lib/mysql,
//! settings as `--key=value`, the account of MYSQL_USER / MARIADB_USER (else root) and
//! its password, and MYSQL_DATABASE / MARIADB_DATABASE.

use crate::engine::access::Access;
use crate::engine::compose::{Flags, ServiceContract, first};
use std::collections::BTreeMap;

/// The mysql and mariadb images' terms.
pub static CONTRACT: ServiceContract = ServiceContract {
    images: &["mysql", "mariadb"],
    port: 3306,
    data_dir: "/var/lib/mysql",
    programs: &["mysqld", "mariadbd"],
    flags: Flags::Mysqld,
    durability: &["innodb_flush_log_at_trx_commit", "innodb_doublewrite", "sync_binlog"],
    defaults: &[],
    account_settings: &[],
    access,
};

/// The user the image creates, else root, with its password; the database it creates.
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    let (user, password) = match first(env, &["MARIADB_USER", "MYSQL_USER"]) {
        Some(u) => (u, first(env, &["MARIADB_PASSWORD", "MYSQL_PASSWORD"])),
        None => ("root".into(), first(env, &["MARIADB_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD"])),
    };
    Access { port: None, user: Some(user), password, database: first(env, &["MARIADB_DATABASE", "MYSQL_DATABASE"]) }
}
