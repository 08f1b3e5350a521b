//! A docker-compose.override.yml: Compose merges it over the service of the same name,
//! adding its tmpfs and replacing its command.

use super::Suggestion;
use super::text::{header, list, quoted};

/// The override file.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "#");
    out.push_str("# docker compose reads docker-compose.override.yml beside docker-compose.yml by itself;\n");
    out.push_str("# its command replaces the service's.\n");
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("# The tmpfs takes the place of a volume on {dir}: drop that volume.\n"));
    }
    for (k, v) in s.settings.iter().filter(|(_, v)| v.starts_with("${")) {
        out.push_str(&format!("# {v}: set it in .env or the environment to the service's {k}.\n"));
    }
    // Compose's own service names are plain words; anything else is quoted.
    let plain = s.service.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    let key = if plain { s.service.clone() } else { quoted(&s.service) };
    out.push_str(&format!("services:\n  {key}:\n"));
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("    tmpfs:\n      - {}\n", quoted(dir)));
    }
    let args = s.args();
    if !args.is_empty() {
        out.push_str(&format!("    command: [{}]\n", list(&args)));
    }
    out
}
