//! A started server opened to TCP clients: the role, its password and the database that
//! `--user`, `--password` and `--database` ask for, or dbrace's own.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use super::server::SUPERUSER;
use crate::engine::SqlClient;
use crate::engine::access::Access;
use crate::error::Result;
use crate::instance::server::random_password;

/// Open a started server to TCP clients as `access` says: the role (a superuser, created
/// unless it is the template's), its password (random unless given) and the database
/// (created unless it exists; `postgres` by default). Returns where those clients connect.
pub fn account(socket: &ConnInfo, port: u16, access: &Access) -> Result<ConnInfo> {
    let user = access.user.clone().unwrap_or_else(|| SUPERUSER.to_string());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => random_password()?,
    };
    let database = access.database.clone().unwrap_or_else(|| "postgres".to_string());
    // A refusal of a name the user gave is theirs to fix; of ours, a failed run.
    let refused = |what: &str, e: crate::engine::TxError| {
        if access.given() {
            bad_input!("postgres refused {what}: {e}; check --user, --password and --database")
        } else {
            failed!("cannot set up the throwaway server's {what}: {e}")
        }
    };
    let mut c = PgClient::connect(socket, false).map_err(|e| failed!("throwaway server: {e}"))?;
    let (role, secret) = (ident(&user), literal(&password));
    let sql = if user == SUPERUSER {
        format!("ALTER ROLE {role} PASSWORD {secret}")
    } else {
        format!("CREATE ROLE {role} SUPERUSER LOGIN PASSWORD {secret}")
    };
    c.batch(&sql).map_err(|e| refused("the role", e))?;
    let exists = c
        .scalar(&format!("SELECT count(*) FROM pg_database WHERE datname = {}", literal(&database)))
        .map_err(|e| refused("the database", e))?;
    if exists == 0 {
        // A file copy of template1 (two checkpoints, nothing synced with fsync off) is
        // quicker than WAL-logging every block of it, the default since 15.
        let major: u32 = c.server_version.split(['.', ' ']).next().and_then(|m| m.parse().ok()).unwrap_or(0);
        let strategy = if major >= 15 { " STRATEGY FILE_COPY" } else { "" };
        c.batch(&format!("CREATE DATABASE {} OWNER {role}{strategy}", ident(&database)))
            .map_err(|e| refused("the database", e))?;
    }
    Ok(ConnInfo::plain("127.0.0.1".into(), port, user, Some(password), database))
}

/// A quoted SQL identifier.
fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A quoted SQL string literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
