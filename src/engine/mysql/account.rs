//! A started server opened to TCP clients: the account, its password and the database that
//! `--user`, `--password` and `--database` ask for, or dbrace's own.

use super::client::MyClient;
use super::endpoint::Endpoint;
use super::server::DATABASE;
use crate::engine::SqlClient;
use crate::engine::access::Access;
use crate::error::Result;
use crate::instance::server::{loopbacks, random_password};
use mysql_async::OptsBuilder;

/// The account TCP clients use (the socket uses root, with no password).
const TCP_USER: &str = "dbrace";

/// Open a started server to TCP clients as `access` says: the account (all privileges;
/// `dbrace` by default), its password (random unless given) and the database (created
/// unless it exists; `dbrace` by default). Returns where those clients connect.
pub fn account(root: &Endpoint, port: u16, access: &Access) -> Result<Endpoint> {
    let user = access.user.clone().unwrap_or_else(|| TCP_USER.to_string());
    let password = match &access.password {
        Some(p) => p.clone(),
        None => random_password()?,
    };
    let database = access.database.clone().unwrap_or_else(|| DATABASE.to_string());
    let mut c = MyClient::connect(root, false).map_err(|e| failed!("throwaway server: {e}"))?;
    let secret = literal(&password);
    // One account per loopback the server listens on: MariaDB tells 127.0.0.1 from ::1.
    let mut sql: String = loopbacks()
        .iter()
        .map(|host| {
            let who = format!("{}@{}", literal(&user), literal(host));
            format!(
                "CREATE USER IF NOT EXISTS {who} IDENTIFIED BY {secret}; ALTER USER {who} IDENTIFIED BY {secret}; \
                 GRANT ALL ON *.* TO {who} WITH GRANT OPTION; "
            )
        })
        .collect();
    sql.push_str(&format!("CREATE DATABASE IF NOT EXISTS `{}`", database.replace('`', "``")));
    c.batch(&sql).map_err(|e| {
        if access.given() {
            bad_input!("mysql refused the account or database: {e}; check --user, --password and --database")
        } else {
            failed!("cannot set up the throwaway server's account: {e}")
        }
    })?;
    let at = OptsBuilder::default().ip_or_hostname("127.0.0.1").tcp_port(port).user(Some(user)).pass(Some(password));
    Ok(Endpoint::new(at.db_name(Some(database))))
}

/// A quoted SQL string literal (backslashes are escapes in MySQL's strings).
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}
