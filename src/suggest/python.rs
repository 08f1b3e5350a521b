//! testcontainers-python: a `DockerContainer` with `with_command`, and the tmpfs through
//! `with_kwargs` (docker-py's `tmpfs=`), which it has no method of its own for.

use super::Suggestion;
use super::text::{header, list, quoted};

/// The container, started.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "#");
    out.push_str("import os\n\nfrom testcontainers.core.container import DockerContainer\n");
    out.push_str("from testcontainers.core.waiting_utils import wait_for_logs\n\n");
    out.push_str(&format!("db = DockerContainer({}).with_exposed_ports({})\n", quoted(&s.image), s.contract.port));
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("db = db.with_env({0}, os.environ[{0}])\n", quoted(var)));
    }
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("db = db.with_kwargs(tmpfs={{{}: \"rw\"}})\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("db = db.with_command([{}])\n", list(&args)));
    }
    out.push_str(&format!("db.start()\nwait_for_logs(db, {})\n", quoted(s.contract.ready.1)));
    out
}
