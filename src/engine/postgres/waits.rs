//! PostgreSQL's wait events: pg_stat_activity's wait_event of each of dbrace's client
//! backends, on a connection of its own that names itself apart so it is not counted.

use super::client::PgClient;
use super::conninfo::ConnInfo;
use crate::engine::waits::WaitReader;
use crate::engine::{SqlClient, Stmt};

/// The clients' sessions (their application_name is the login's "dbrace"): the event a
/// backend waits in, or CPU where an active one waits for none.
const SESSIONS: &str = "SELECT coalesce(wait_event_type || ':' || wait_event, \
    CASE WHEN state = 'active' THEN 'CPU' ELSE coalesce(state, 'unknown') END) \
    FROM pg_stat_activity WHERE application_name = 'dbrace' AND backend_type = 'client backend'";

/// A side connection that reads the clients' wait events.
pub struct PgWaits {
    client: PgClient,
    sessions: Stmt,
}

impl PgWaits {
    /// Connect as `info` says, under a name of its own, and prepare the query.
    pub fn open(info: &ConnInfo) -> Result<PgWaits, String> {
        let mut client = PgClient::side(info, "dbrace waits")?;
        let sessions = client.prepare(SESSIONS).map_err(|e| e.to_string())?;
        Ok(PgWaits { client, sessions })
    }
}

impl WaitReader for PgWaits {
    fn read(&mut self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let mut row = |_: usize, _: &str, text: Option<&str>| out.extend(text.map(str::to_string));
        self.client.query_each(self.sessions, &[], &mut row).map_err(|e| format!("pg_stat_activity: {e}"))?;
        Ok(out)
    }
}
