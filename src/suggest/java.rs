//! Testcontainers for Java: a `GenericContainer` with `withTmpFs` and `withCommand`.

use super::Suggestion;
use super::text::{header, list, quoted};

/// The container's declaration.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "//");
    out.push_str(&format!(
        "GenericContainer<?> db = new GenericContainer<>(DockerImageName.parse({}))\n    .withExposedPorts({})\n",
        quoted(&s.image),
        s.contract.port
    ));
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("    .withEnv({0}, System.getenv({0}))\n", quoted(var)));
    }
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("    .withTmpFs(Map.of({}, \"rw\"))\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("    .withCommand({})\n", list(&args)));
    }
    // Log messages are matched whole, as regular expressions; the stream does not matter.
    let (_, line) = s.contract.ready;
    out.push_str(&format!("    .waitingFor(Wait.forLogMessage({}, 1));\n", quoted(&format!(".*{line}.*\\n"))));
    out
}
