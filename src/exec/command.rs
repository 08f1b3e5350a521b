//! The user's command and `--prepare`: argv as given (never a shell string built by
//! dbrace), checked to exist before any server starts.

use crate::error::Result;
use std::path::Path;

/// Split `--prepare`'s text into argv by the shell's quoting rules; no shell runs it.
pub fn split(text: &str) -> Result<Vec<String>> {
    let argv = shell_words::split(text)
        .map_err(|e| bad_input!("--prepare '{text}': {e}; quote it as a shell would (no shell runs it)"))?;
    if argv.is_empty() {
        return Err(bad_input!("--prepare is empty; give a command, e.g. --prepare 'alembic upgrade head'"));
    }
    Ok(argv)
}

/// Refuse a command (`what` names it in the message) that cannot run: not found on PATH,
/// not a file, or not executable.
pub fn check(argv: &[String], what: &str) -> Result<()> {
    let Some(program) = argv.first() else {
        return Err(bad_input!(
            "{what}: no command given; put it after --, e.g. dbrace exec --profile disk,ram-nosync -- pytest -q"
        ));
    };
    if crate::platform::files::names_a_path(program) {
        return executable(Path::new(program)).map_err(|why| bad_input!("{what} '{program}' {why}"));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut why = None;
    let names = crate::platform::files::program_names(program);
    for candidate in std::env::split_paths(&path).flat_map(|dir| names.iter().map(move |n| dir.join(n))) {
        match executable(&candidate) {
            Ok(()) => return Ok(()),
            Err(w) if candidate.exists() => why = why.or(Some((candidate, w))),
            Err(_) => {}
        }
    }
    Err(match why {
        Some((p, w)) => bad_input!("{what} '{program}': {} {w}", p.display()),
        None => bad_input!("{what} '{program}' not found on PATH; install it, or give its path"),
    })
}

/// Why `p` cannot be run, if it cannot.
fn executable(p: &Path) -> std::result::Result<(), String> {
    match std::fs::metadata(p) {
        Err(e) => Err(format!("cannot be run: {e}")),
        Ok(m) if !m.is_file() => Err("is not a file".into()),
        Ok(m) if !crate::platform::files::executable(&m) => Err("is not executable (chmod +x)".into()),
        Ok(_) => Ok(()),
    }
}

/// The argv to record: passwords in URLs and `secret` replaced by `***`.
pub fn recorded(argv: &[String], secret: &str) -> Vec<String> {
    argv.iter().map(|a| crate::redact::scrub(&crate::redact::redact(a), secret)).collect()
}

/// `argv` as one line for messages, quoted where a shell would need it.
pub fn shown(argv: &[String]) -> String {
    shell_words::join(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn prepare_is_split_as_a_shell_would_without_a_shell() {
        assert_eq!(split("alembic upgrade 'head'").unwrap(), argv(&["alembic", "upgrade", "head"]));
        assert_eq!(split(r#"sh -c "echo $X; exit 3""#).unwrap(), argv(&["sh", "-c", "echo $X; exit 3"]));
        assert!(split("echo 'open").unwrap_err().to_string().contains("--prepare"));
        assert!(split("  ").is_err());
    }

    #[test]
    fn commands_are_found_on_path_or_refused_by_name() {
        assert!(check(&argv(&["sh", "-c", "true"]), "command").is_ok());
        assert!(check(&argv(&["/bin/sh"]), "command").is_ok());
        let e = check(&argv(&["no-such-command-dbrace"]), "command").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("'no-such-command-dbrace' not found on PATH"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("script.sh");
        std::fs::write(&plain, "true\n").unwrap();
        crate::platform::files::set_mode(&plain, 0o644).unwrap();
        let e = check(&[plain.display().to_string()], "--prepare").unwrap_err().to_string();
        assert!(e.contains("not executable"), "{e}");
        let e = check(&[dir.path().display().to_string()], "--prepare").unwrap_err().to_string();
        assert!(e.contains("is not a file"), "{e}");
        assert!(check(&[], "command").unwrap_err().to_string().contains("after --"));
    }

    #[test]
    fn recorded_commands_keep_no_password() {
        let a = argv(&["psql", "postgresql://u:hunter2@h/d", "--password=s3cret"]);
        assert_eq!(recorded(&a, "s3cret"), argv(&["psql", "postgresql://u:***@h/d", "--password=***"]));
    }
}
