//! Redis's own tests, beyond the conformance suite.

use super::require_binary;
use crate::common::Sandbox;

#[test]
fn wal_ram_has_no_meaning_for_redis_and_says_why() {
    require_binary();
    let sb = Sandbox::new();
    let o = sb.cmd(&["run", "-q", "-e", "redis", "-p", "wal-ram"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("'wal-ram'") && err.contains("append-only file in its dir"), "{err}");
}
