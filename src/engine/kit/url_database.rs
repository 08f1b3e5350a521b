//! A fresh database per cell and repeat on a `--url` server: a name nobody else uses,
//! created with the admin connection, dropped when the instance goes.

use crate::engine::SqlClient;
use crate::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// `dbrace_<pid>_<n>`: unique on the server while this process lives.
pub fn unique_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("dbrace_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Create a database with a unique name through `admin`; `server` (redacted) and `needs`
/// (the privilege) name the fix when the server refuses.
pub fn create(admin: &mut dyn SqlClient, server: &str, needs: &str) -> Result<String> {
    let name = unique_name();
    admin
        .batch(&format!("CREATE DATABASE {name}"))
        .map_err(|e| bad_input!("cannot create a database on {server}: {e}; {needs}"))?;
    Ok(name)
}

/// Runs one statement on the `--url` server as its admin: connects, sends, says why not.
pub type Admin = Box<dyn Fn(&str) -> std::result::Result<(), String> + Send + Sync>;

/// A database made on a `--url` server, dropped on drop: a busy server gets three tries,
/// and one that still refuses is named with the statement that finishes the job.
pub struct UrlDatabase {
    /// The database's name.
    pub name: String,
    drop_sql: String,
    admin: Admin,
}

impl UrlDatabase {
    /// A database `name` that `drop_sql` removes through `admin`.
    pub fn new(name: String, drop_sql: String, admin: Admin) -> UrlDatabase {
        UrlDatabase { name, drop_sql, admin }
    }
}

impl Drop for UrlDatabase {
    fn drop(&mut self) {
        let mut why = String::new();
        for attempt in 0..3 {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(200));
            }
            match (self.admin)(&self.drop_sql) {
                Ok(()) => return,
                Err(e) => why = e,
            }
        }
        eprintln!(
            "dbrace: could not drop the run's database {} ({why}); drop it yourself: {}",
            self.name, self.drop_sql
        );
    }
}
