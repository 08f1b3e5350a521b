//! A service's `command:` read as server settings, the way its server reads its command
//! line: the program's name first or not at all, then settings only. Anything else (a
//! shell, a script, a config file's path) is not something dbrace can race as written.

use crate::engine::image::{Flags, Image};
use crate::error::Result;

/// The settings `words` give, in order; `at` names the command, for messages.
pub fn settings(words: &[String], c: &Image, at: &str) -> Result<Vec<(String, String)>> {
    let mut rest = words;
    if let Some(first) = words.first().filter(|w| !w.starts_with('-')) {
        let program = first.rsplit('/').next().unwrap_or(first);
        if !c.programs.contains(&program) {
            return Err(bad_input!(
                "{at} runs '{first}', not the server ({}); dbrace starts the server itself and reads only its settings from the command: write it as [{}, settings…] or drop it",
                c.programs.join(" or "),
                c.programs[0]
            ));
        }
        rest = &words[1..];
    }
    match c.flags {
        Flags::DashC => dash_c(rest, at),
        Flags::Mysqld => mysqld(rest, at),
        Flags::Spaced => spaced(rest, at),
    }
}

/// PostgreSQL's `-c key=value`, `-ckey=value` and `--key=value`.
fn dash_c(words: &[String], at: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let pair = match w.as_str() {
            "-c" => it.next().cloned().unwrap_or_default(),
            w if w.starts_with("-c") => w[2..].to_string(),
            w if w.starts_with("--") => w[2..].to_string(),
            _ => return Err(unread(at, w)),
        };
        out.push(key_value(&pair, at)?);
    }
    Ok(out)
}

/// mysqld's `--key=value`, `--key` (on) and `--skip-key` (off); `-` and `_` alike.
fn mysqld(words: &[String], at: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for w in words {
        let Some(flag) = w.strip_prefix("--") else { return Err(unread(at, w)) };
        let (key, value) = match flag.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => match flag.strip_prefix("skip-") {
                Some(k) => (k.to_string(), "OFF".into()),
                None => (flag.to_string(), "ON".into()),
            },
        };
        out.push((key.replace('-', "_"), value));
    }
    Ok(out)
}

/// redis-server's and mongod's `--key value…` (or `--key=value`).
fn spaced(words: &[String], at: &str) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for w in words {
        match w.strip_prefix("--") {
            Some(flag) => match flag.split_once('=') {
                Some((k, v)) => out.push((k.to_string(), v.to_string())),
                None => out.push((flag.to_string(), String::new())),
            },
            None => match out.last_mut() {
                Some((_, v)) if v.is_empty() => *v = w.clone(),
                Some((_, v)) => *v = format!("{v} {w}"),
                None => return Err(unread(at, w)),
            },
        }
    }
    Ok(out)
}

/// `key=value`.
fn key_value(pair: &str, at: &str) -> Result<(String, String)> {
    match pair.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(bad_input!("{at}: '{pair}' is not key=value")),
    }
}

/// A word that is not a setting.
fn unread(at: &str, word: &str) -> crate::error::Error {
    bad_input!(
        "{at}: '{word}' is not a server setting dbrace can read (a config file's path or another option); write the settings themselves, or drop it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    fn read(engine: &dyn Engine, s: &str) -> Result<Vec<(String, String)>> {
        settings(&words(s), engine.facts().image.unwrap(), "services.db.command")
    }

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn each_servers_command_line_reads_as_settings() {
        use crate::engine::{mysql::Mysql, postgres::Postgres, redis::Redis};
        let pg = read(&Postgres, "postgres -c fsync=off -csynchronous_commit=off --full_page_writes=off").unwrap();
        assert_eq!(pg, kv(&[("fsync", "off"), ("synchronous_commit", "off"), ("full_page_writes", "off")]));
        let my = read(&Mysql, "--innodb-flush-log-at-trx-commit=0 --skip-log-bin --innodb_doublewrite").unwrap();
        assert_eq!(
            my,
            kv(&[("innodb_flush_log_at_trx_commit", "0"), ("log_bin", "OFF"), ("innodb_doublewrite", "ON")])
        );
        let redis = read(&Redis, "redis-server --appendonly yes --save 60 1000 --requirepass pw").unwrap();
        assert_eq!(redis, kv(&[("appendonly", "yes"), ("save", "60 1000"), ("requirepass", "pw")]));
        assert_eq!(read(&Postgres, "/usr/lib/postgresql/16/bin/postgres").unwrap(), kv(&[]));
    }

    #[test]
    fn a_command_that_is_not_the_server_is_refused_naming_it() {
        use crate::engine::{postgres::Postgres, redis::Redis};
        let e = read(&Postgres, "bash -c true").unwrap_err().to_string();
        assert!(e.contains("services.db.command runs 'bash'"), "{e}");
        let e = read(&Redis, "redis-server /usr/local/etc/redis/redis.conf").unwrap_err().to_string();
        assert!(e.contains("redis.conf"), "{e}");
        assert!(read(&Postgres, "postgres -p 5433").is_err());
        assert!(read(&Postgres, "postgres -c fsync").is_err());
    }
}
