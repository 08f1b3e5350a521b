//! Variables in a Compose file's values, as Compose substitutes them: `$VAR`, `${VAR}`,
//! `${VAR:-default}` (unset or empty), `${VAR-default}` (unset), `${VAR:?message}` and
//! `${VAR?message}` (required), `${VAR:+other}` and `${VAR+other}`, `$$` for a `$`.
//! A variable that is unset and has no default is refused, not left empty: a server
//! started without the password the suite expects would fail later and less clearly.

use crate::error::Result;

/// Where variables come from: the shell's environment first, then the `.env` file.
pub trait Lookup {
    /// The variable's value, if it is set.
    fn get(&self, name: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String>> Lookup for F {
    fn get(&self, name: &str) -> Option<String> {
        self(name)
    }
}

/// `text` with its variables substituted; `at` names where it is, for the message.
pub fn interpolate(text: &str, vars: &dyn Lookup, at: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(after) = rest.strip_prefix('$') {
            out.push('$');
            rest = after;
        } else if let Some(braced) = rest.strip_prefix('{') {
            let end = closing(braced).ok_or_else(|| bad_input!("{at}: '${{' without its '}}' in '{text}'"))?;
            out.push_str(&expand(&braced[..end], vars, at)?);
            rest = &braced[end + 1..];
        } else {
            let n = name_len(rest);
            if n == 0 {
                out.push('$');
                continue;
            }
            out.push_str(&value(&rest[..n], vars, at)?);
            rest = &rest[n..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The index of the `}` that closes a `${`, nested ones counted.
fn closing(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// How many leading bytes of `s` make a variable's name.
fn name_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.first().is_none_or(|c| !(c.is_ascii_alphabetic() || *c == b'_')) {
        return 0;
    }
    b.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count()
}

/// The value of one `${…}`'s inside.
fn expand(inner: &str, vars: &dyn Lookup, at: &str) -> Result<String> {
    let n = name_len(inner);
    let (name, op) = inner.split_at(n);
    if n == 0 {
        return Err(bad_input!("{at}: '${{{inner}}}' does not start with a variable's name"));
    }
    let set = vars.get(name);
    let empty = set.as_deref().is_none_or(str::is_empty);
    let word = |w: &str| interpolate(w, vars, at);
    let (colon, op) = match op.strip_prefix(':') {
        Some(o) => (true, o),
        None => (false, op),
    };
    let missing = if colon { empty } else { set.is_none() };
    match op.chars().next() {
        None if !colon => value(name, vars, at),
        Some('-') if missing => word(&op[1..]),
        Some('-') => Ok(set.unwrap_or_default()),
        Some('?') if missing => {
            let why = if op.len() > 1 { word(&op[1..])? } else { "it is required".into() };
            Err(bad_input!("{at}: variable {name} is not set: {why}; set it in the environment or the .env file"))
        }
        Some('?') => Ok(set.unwrap_or_default()),
        Some('+') if missing => Ok(String::new()),
        Some('+') => word(&op[1..]),
        _ => Err(bad_input!("{at}: '${{{inner}}}' is not a form Compose substitutes")),
    }
}

/// A plain variable's value: refused when it is not set.
fn value(name: &str, vars: &dyn Lookup, at: &str) -> Result<String> {
    vars.get(name).ok_or_else(|| {
        bad_input!(
            "{at}: variable {name} is not set and has no default; set it in the environment or the .env file, or write ${{{name}:-default}}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        match name {
            "USER" => Some("app".into()),
            "EMPTY" => Some(String::new()),
            "PORT" => Some("15432".into()),
            _ => None,
        }
    }

    fn sub(text: &str) -> Result<String> {
        interpolate(text, &vars, "services.db")
    }

    #[test]
    fn the_forms_compose_substitutes() {
        assert_eq!(sub("$USER and ${USER}").unwrap(), "app and app");
        assert_eq!(sub("${PORT}:5432").unwrap(), "15432:5432");
        assert_eq!(sub("${NONE:-def} ${EMPTY:-def} ${EMPTY-def} ${NONE-x}").unwrap(), "def def  x");
        assert_eq!(sub("${NONE:-${USER}-1}").unwrap(), "app-1");
        assert_eq!(sub("${USER:+yes}${NONE:+no}${EMPTY+set}").unwrap(), "yesset");
        assert_eq!(sub("cost $$5 and $ alone and $1").unwrap(), "cost $5 and $ alone and $1");
        assert_eq!(sub("${USER?}").unwrap(), "app");
    }

    #[test]
    fn an_unset_variable_without_a_default_is_refused_by_name() {
        let e = sub("postgres://${DB_PASSWORD}@x").unwrap_err().to_string();
        assert!(e.contains("DB_PASSWORD") && e.contains("services.db") && e.contains(".env"), "{e}");
        let e = sub("${EMPTY:?give a password}").unwrap_err().to_string();
        assert!(e.contains("give a password"), "{e}");
        assert!(sub("${USER").unwrap_err().to_string().contains("without its"));
        assert!(sub("${USER/x/y}").is_err());
        assert!(sub("${9}").is_err());
    }
}
