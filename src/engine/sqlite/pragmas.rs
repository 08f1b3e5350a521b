//! The PRAGMAs a profile and `--set` ask for, and reading them back to check they took.

use crate::error::Result;
use crate::profile::{Durability, Profile};
use rusqlite::OptionalExtension;
use rusqlite::types::ValueRef;
use std::collections::BTreeMap;

/// Settings always recorded, besides any the user set.
const RECORDED: &[&str] =
    &["journal_mode", "synchronous", "fullfsync", "page_size", "cache_size", "locking_mode", "mmap_size"];

/// The PRAGMAs for a profile, in the order they must run: `--set` values replace the
/// profile's own, and page_size / auto_vacuum come before the switch to WAL (after it
/// they no longer apply).
pub(super) fn pragmas(profile: &Profile) -> Vec<(String, String)> {
    const BEFORE_WAL: [&str; 2] = ["page_size", "auto_vacuum"];
    let user = |key: &str| profile.settings.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: String| {
        out.retain(|(x, _)| x != k);
        out.push((k.to_string(), v));
    };
    for (k, v) in profile.settings.iter().filter(|(k, _)| BEFORE_WAL.contains(&k.as_str())) {
        push(k, v.clone());
    }
    if !profile.unlogged {
        push("journal_mode", user("journal_mode").unwrap_or_else(|| "wal".into()));
    }
    let sync = match profile.durability {
        Durability::Durable => "FULL",
        Durability::Async => "NORMAL",
        Durability::Off => "OFF",
    };
    push("synchronous", user("synchronous").unwrap_or_else(|| sync.into()));
    for (k, v) in &profile.settings {
        if !BEFORE_WAL.contains(&k.as_str()) && k != "journal_mode" && k != "synchronous" {
            push(k, v.clone());
        }
    }
    out
}

/// Read the settings back and fail when one did not take the value we set.
pub(super) fn read_back(
    conn: &rusqlite::Connection,
    wanted: &[(String, String)],
    profile: &str,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let keys = RECORDED.iter().map(|k| k.to_string()).chain(wanted.iter().map(|(k, _)| k.clone()));
    for key in keys {
        // Some pragmas answer nothing on some VFSes (mmap_size on memdb).
        let v: Option<String> = conn
            .query_row(&format!("PRAGMA {key}"), [], |r| r.get_ref(0).map(value_text))
            .optional()
            .map_err(|e| failed!("sqlite: cannot read PRAGMA {key}: {e}"))?;
        if let Some(v) = v {
            out.insert(key, v);
        }
    }
    for (k, v) in wanted {
        let Some(have) = out.get(k) else {
            out.insert(k.clone(), "(not supported by this database)".into());
            continue;
        };
        if normalize(k, have) != normalize(k, v) {
            return Err(failed!("profile '{profile}' did not take effect on sqlite: {k} is {have}, expected {v}"));
        }
    }
    Ok(out)
}

fn value_text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Null => String::new(),
        ValueRef::Blob(_) => "<blob>".into(),
    }
}

/// Names and numbers SQLite treats as the same value, in one spelling.
pub(super) fn normalize(key: &str, v: &str) -> String {
    let v = v.trim().to_ascii_lowercase();
    let named: &[&str] = match key {
        "synchronous" => &["off", "normal", "full", "extra"],
        "temp_store" => &["default", "file", "memory"],
        "auto_vacuum" => &["none", "full", "incremental"],
        "secure_delete" | "automatic_index" | "foreign_keys" | "cache_spill" => &["off", "on"],
        _ => &[],
    };
    match named.iter().position(|n| *n == v) {
        Some(i) => i.to_string(),
        None if v == "true" || v == "yes" => "1".into(),
        None if v == "false" || v == "no" => "0".into(),
        None => v,
    }
}
