//! The official redis image, for every launcher, compose and suggest: its data in /data,
//! settings as `--key value`, a password only where the command sets `--requirepass`.

use crate::engine::Engine;
use crate::engine::access::Access;
use crate::engine::image::{AccountEnv, Conf, Flags, Image, ProfileSettings, Stream};
use crate::profile::Profile;
use std::collections::BTreeMap;

/// The redis image's terms.
pub static IMAGE: Image = Image {
    default_image: "redis:7",
    images: &["redis"],
    port: 6379,
    data_dir: "/data",
    programs: &["redis-server"],
    flags: Flags::Spaced,
    durability: &["appendonly", "appendfsync", "save"],
    defaults: &[("appendonly", "no"), ("save", "3600 1 300 100 60 10000")],
    account_settings: &["requirepass"],
    own_env: &[],
    access,
    settings,
    image_values: &[("no-appendfsync-on-rewrite", "no")],
    init_dir: None,
    account: AccountEnv { user: &[], password: &[], database: &[], password_required: false },
    conf: Conf { file: "redis.conf", render: conf },
    ready: (Stream::Stdout, "Ready to accept connections"),
};

/// The profile's persistence settings; a log apart from `dir` Redis does not have.
fn settings(p: &Profile) -> ProfileSettings {
    if p.wal.is_some() {
        return Err("Redis keeps its append-only file in its dir, beside the data");
    }
    let p = super::Redis.resolve_profile(p).ok_or("no such Redis mode")?;
    Ok(super::profile_settings(&p))
}

/// redis.conf lines: `key value`, an empty value as `""`.
fn conf(settings: &[(String, String)]) -> String {
    let value = |v: &str| if v.is_empty() { "\"\"".to_string() } else { v.to_string() };
    settings.iter().map(|(k, v)| format!("{k} {}\n", value(v))).collect()
}

/// The default user, with `--requirepass`'s password, else none.
fn access(_: &BTreeMap<String, String>, account: &BTreeMap<String, String>) -> Access {
    Access {
        port: None,
        user: None,
        password: Some(account.get("requirepass").cloned().unwrap_or_default()),
        database: None,
    }
}
