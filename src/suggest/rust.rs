//! testcontainers-rs: a `GenericImage` with `with_mount(Mount::tmpfs_mount(…))` and
//! `with_cmd`.

use super::Suggestion;
use super::text::{header, list, quoted};
use crate::engine::image::Stream;

/// The container, started (in an async test).
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "//");
    out.push_str("use testcontainers::core::{IntoContainerPort, Mount, WaitFor};\n");
    out.push_str("use testcontainers::{GenericImage, ImageExt, runners::AsyncRunner};\n\n");
    let (name, tag) = s.image_parts();
    let (stream, line) = s.contract.ready;
    let wait = match stream {
        Stream::Stdout => "message_on_stdout",
        Stream::Stderr => "message_on_stderr",
    };
    out.push_str(&format!(
        "let db = GenericImage::new({}, {})\n    .with_exposed_port({}.tcp())\n    .with_wait_for(WaitFor::{wait}({}))\n",
        quoted(name),
        quoted(tag),
        s.contract.port,
        quoted(line)
    ));
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("    .with_env_var({0}, std::env::var({0})?)\n", quoted(var)));
    }
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("    .with_mount(Mount::tmpfs_mount({}))\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("    .with_cmd([{}])\n", list(&args)));
    }
    out.push_str("    .start()\n    .await?;\n");
    out
}
