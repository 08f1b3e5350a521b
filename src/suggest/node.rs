//! Testcontainers for Node.js: a `GenericContainer` with `withTmpFs` and `withCommand`.

use super::Suggestion;
use super::text::{header, list, quoted};

/// The container, started.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "//");
    out.push_str("const { GenericContainer, Wait } = require(\"testcontainers\");\n\n");
    out.push_str(&format!(
        "const db = await new GenericContainer({})\n  .withExposedPorts({})\n",
        quoted(&s.image),
        s.contract.port
    ));
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("  .withEnvironment({{ {var}: process.env.{var} }})\n"));
    }
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("  .withTmpFs({{ {}: \"rw\" }})\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("  .withCommand([{}])\n", list(&args)));
    }
    out.push_str(&format!("  .withWaitStrategy(Wait.forLogMessage({}))\n", quoted(s.contract.ready.1)));
    out.push_str("  .start();\n");
    out
}
