//! A Compose project's `.env` file (and a service's `env_file:`): `KEY=VALUE` lines,
//! `#` comments, an optional `export `, values in single quotes taken as written and in
//! double quotes with `\n`, `\"` and `\\` escapes.

use crate::error::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// The variables of the env file at `path`; none when it does not exist and need not.
pub fn read(path: &Path, required: bool) -> Result<BTreeMap<String, String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(BTreeMap::new()),
        Err(e) => Err(bad_input!("cannot read {}: {e}", path.display())),
    }
}

/// The variables of an env file's `text`; `name` is the file, for messages.
pub fn parse(text: &str, name: &str) -> Result<BTreeMap<String, String>> {
    let mut vars = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, raw)) = line.split_once('=') else {
            return Err(bad_input!("{name}:{}: '{line}' is not KEY=VALUE", i + 1));
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(bad_input!("{name}:{}: '{key}' is not a variable's name", i + 1));
        }
        vars.insert(key.to_string(), unquoted(raw.trim()));
    }
    Ok(vars)
}

/// A value without its quotes (and, unquoted, without a trailing ` # comment`).
fn unquoted(raw: &str) -> String {
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.to_string();
    }
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return inner.replace("\\n", "\n").replace("\\\"", "\"").replace("\\\\", "\\");
    }
    raw.split(" #").next().unwrap_or(raw).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_quotes_and_export() {
        let text = "# a comment\nDB_USER=app\nexport DB_PORT=15432\nPW='p#ss word'\nQ=\"a\\\"b\"\nX=1 # why\n\n";
        let v = parse(text, ".env").unwrap();
        assert_eq!(v["DB_USER"], "app");
        assert_eq!(v["DB_PORT"], "15432");
        assert_eq!(v["PW"], "p#ss word");
        assert_eq!(v["Q"], "a\"b");
        assert_eq!(v["X"], "1");
        let e = parse("A=1\nnot a pair\n", ".env").unwrap_err().to_string();
        assert!(e.contains(".env:2"), "{e}");
    }
}
