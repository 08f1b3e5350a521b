//! testcontainers-go: a `ContainerRequest` with `Tmpfs` and `Cmd`.

use super::Suggestion;
use super::text::{header, list, quoted};

/// The request and the started container.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "//");
    let port = s.contract.port;
    out.push_str(&format!(
        "req := testcontainers.ContainerRequest{{\n\tImage:        {},\n\tExposedPorts: []string{{\"{port}/tcp\"}},\n",
        quoted(&s.image)
    ));
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("\tEnv:          map[string]string{{{0}: os.Getenv({0})}},\n", quoted(var)));
    }
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("\tTmpfs:        map[string]string{{{}: \"rw\"}},\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("\tCmd:          []string{{{}}},\n", list(&args)));
    }
    out.push_str(&format!("\tWaitingFor:   wait.ForLog({}),\n}}\n", quoted(s.contract.ready.1)));
    out.push_str("db, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{\n");
    out.push_str("\tContainerRequest: req,\n\tStarted:          true,\n})\n");
    out
}
