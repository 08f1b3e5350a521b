//! The official mysql or mariadb image, for every launcher, compose and suggest: its data
//! in /var/lib/mysql, settings as `--key=value`, the account of MYSQL_USER / MARIADB_USER
//! (else root) and its password, and MYSQL_DATABASE / MARIADB_DATABASE.

use crate::engine::access::Access;
use crate::engine::image::{AccountEnv, Conf, Flags, Image, ProfileSettings, Stream, first};
use crate::profile::Profile;
use std::collections::BTreeMap;

/// The mysql and mariadb images' terms.
pub static IMAGE: Image = Image {
    default_image: "mariadb:11",
    images: &["mysql", "mariadb"],
    port: 3306,
    data_dir: "/var/lib/mysql",
    programs: &["mariadbd", "mysqld"],
    flags: Flags::Mysqld,
    durability: &["innodb_flush_log_at_trx_commit", "innodb_doublewrite", "sync_binlog"],
    defaults: &[],
    account_settings: &[],
    own_env: &["MYSQL_", "MARIADB_"],
    access,
    settings,
    // The images keep the binary log off (MariaDB's) or sync it at each commit (MySQL's
    // default sync_binlog=1, which every profile sets or relaxes with the redo log).
    image_values: &[("log_bin", "OFF")],
    // Both images read the MYSQL_ name (MariaDB's also its own MARIADB_ROOT_PASSWORD).
    init_dir: Some("/docker-entrypoint-initdb.d"),
    account: AccountEnv {
        user: &[],
        password: &["MYSQL_ROOT_PASSWORD", "MARIADB_ROOT_PASSWORD"],
        database: &["MYSQL_DATABASE", "MARIADB_DATABASE"],
        password_required: true,
    },
    conf: Conf { file: "my.cnf", render: conf },
    // The first start's temporary server runs without networking: port 0.
    ready: (Stream::Stderr, "port: 3306"),
};

/// The profile's durability settings; MEMORY tables and a redo log apart are left out:
/// their sizes and directories are the user's to choose.
fn settings(p: &Profile) -> ProfileSettings {
    if p.unlogged {
        return Err(
            "MEMORY tables (default_storage_engine=MEMORY) need max_heap_table_size sized to your data; dbrace does not guess it",
        );
    }
    if p.wal.is_some() {
        return Err(
            "a redo log apart from the data needs innodb_log_group_home_dir on a tmpfs of its own; dbrace does not write that yet",
        );
    }
    Ok(super::durability_settings(p.durability))
}

/// my.cnf lines under `[mysqld]`.
fn conf(settings: &[(String, String)]) -> String {
    let lines: String = settings.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    format!("[mysqld]\n{lines}")
}

/// The user the image creates, else root, with its password; the database it creates.
fn access(env: &BTreeMap<String, String>, _: &BTreeMap<String, String>) -> Access {
    let [_, root_password, database] = IMAGE.account.read(env);
    let (user, password) = match first(env, &["MARIADB_USER", "MYSQL_USER"]) {
        Some(u) => (u, first(env, &["MARIADB_PASSWORD", "MYSQL_PASSWORD"])),
        None => ("root".into(), root_password),
    };
    Access { port: None, user: Some(user), password, database }
}
