//! Errors that reach the user: one line, and an exit code that says whose fault it was.

use std::fmt::{self, Write};

/// A user-facing error; its kind decides the exit code.
#[derive(Debug)]
pub enum Error {
    /// The user's input was wrong (exit 2).
    Input(String),
    /// The run itself failed (exit 1).
    Run(String),
    /// A signal stopped the run (exit 128 + signal).
    Interrupted(i32),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Run(_) => 1,
            Error::Interrupted(sig) => 128 + sig,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Bad input is one line whatever the user typed: a newline or other control
            // character in a quoted URL, path or script text is written as an escape.
            Error::Input(m) => m
                .chars()
                .try_for_each(|c| if c.is_control() { write!(f, "{}", c.escape_default()) } else { f.write_char(c) }),
            Error::Run(m) => f.write_str(m),
            Error::Interrupted(sig) => write!(
                f,
                "interrupted by {}; finished cells are kept",
                if *sig == crate::platform::signal::TERM { "SIGTERM" } else { "SIGINT" }
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Result with dbrace's error.
pub type Result<T> = std::result::Result<T, Error>;

/// Build an `Error::Input` from a format string.
#[macro_export]
macro_rules! bad_input {
    ($($arg:tt)*) => { $crate::error::Error::Input(format!($($arg)*)) };
}

/// Build an `Error::Run` from a format string.
#[macro_export]
macro_rules! failed {
    ($($arg:tt)*) => { $crate::error::Error::Run(format!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    #[test]
    fn bad_input_is_one_line_whatever_it_quotes() {
        assert_eq!(bad_input!("--url {}: no", "pg://a\nb\t\0").to_string(), "--url pg://a\\nb\\t\\u{0}: no");
        assert_eq!(failed!("log:\nline").to_string(), "log:\nline");
    }
}
