//! The job summary of a CI step: GitHub Actions shows the Markdown appended to the file its
//! `GITHUB_STEP_SUMMARY` names on the run's page (docs/ci.md).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The variable naming the summary file.
pub const VAR: &str = "GITHUB_STEP_SUMMARY";

/// Append `markdown` to the summary file when `GITHUB_STEP_SUMMARY` names one. Appended,
/// never truncated: earlier steps' summaries share the file. A file that cannot be written
/// is a warning, not a failure: the report is on stdout either way.
pub fn append(markdown: &str) {
    let Some(file) = std::env::var_os(VAR).filter(|f| !f.is_empty()) else { return };
    let file = Path::new(&file);
    if let Err(e) = write(file, markdown) {
        eprintln!("dbrace: warning: cannot append the report to {VAR} {}: {e}", file.display());
    }
}

/// `markdown` at the end of `file`, after a blank line when the file has text already: a
/// line of the step before would otherwise run into this report's first line.
fn write(file: &Path, markdown: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().read(true).append(true).create(true).open(file)?;
    let gap = gap(&mut f)?;
    f.write_all(format!("{gap}{}\n", markdown.trim_end()).as_bytes())
}

/// The newlines that end the text in `f` with a blank line; none in an empty file.
fn gap(f: &mut std::fs::File) -> std::io::Result<&'static str> {
    if f.metadata()?.len() == 0 {
        return Ok("");
    }
    let mut last = [0u8];
    f.seek(SeekFrom::End(-1))?;
    f.read_exact(&mut last)?;
    Ok(if last[0] == b'\n' { "\n" } else { "\n\n" })
}

#[cfg(test)]
mod tests {
    use super::write;

    #[test]
    fn appends_after_what_is_there_with_a_blank_line_between() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("summary.md");
        write(&file, "| a |\n|---|\n| 1 |\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "| a |\n|---|\n| 1 |\n", "no gap at the top");
        std::fs::write(&file, "an earlier step's line").unwrap();
        write(&file, "| a |\n|---|\n| 1 |\n").unwrap();
        write(&file, "| b |\n|---|\n| 2 |").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text, "an earlier step's line\n\n| a |\n|---|\n| 1 |\n\n| b |\n|---|\n| 2 |\n");
    }

    #[test]
    fn an_unwritable_file_is_an_error_for_the_caller_to_warn_of() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write(dir.path(), "| a |").is_err(), "a directory is not a file");
    }
}
