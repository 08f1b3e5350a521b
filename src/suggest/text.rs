//! Pieces every output kind writes: its comment header and quoted literals.

use super::Suggestion;

/// `s` as a double-quoted literal that Java, JavaScript, Python, Go, Rust and YAML all
/// read back as `s`: JSON's quoting (settings are printable text, so JSON's `\u` escapes,
/// which Rust spells otherwise, never appear).
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `items` quoted and separated by `, `.
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    items.iter().map(|i| quoted(i.as_ref())).collect::<Vec<_>>().join(", ")
}

/// The header of an output, each line after `prefix`: what it configures and what the
/// profile gives up, and where a password comes from.
pub fn header(s: &Suggestion, prefix: &str) -> String {
    let mut lines = vec![format!("dbrace suggest: {} {} on {}", s.engine, s.profile, s.image), s.gives_up()];
    if let Some(var) = s.contract.account.required_password() {
        lines.push(format!("{var} is read from your environment: set it before the server starts"));
    }
    lines.iter().map(|l| format!("{prefix} {l}\n")).collect()
}
