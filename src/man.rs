//! `dbrace man`: the man page in roff on stdout, or with `--dir` dbrace.1 and a page per
//! subcommand (dbrace-run.1, …), as its SUBCOMMANDS section names them.

use crate::cli::{Cli, ManArgs};
use crate::error::Result;
use crate::version::VERSION;
use clap::CommandFactory;
use clap_mangen::Man;
use std::io::Write;
use std::path::Path;

/// What main's exit codes mean, for dbrace.1 (roff).
const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Done: every cell measured and verified, every timed run succeeded.
.TP
\fB1\fR
The run failed: a cell failed or did not verify, a command under \fBexec\fR failed, or \fBcompare \-\-fail\-if\-slower\fR found a cell slower. Results are still written.
.TP
\fB2\fR
Bad input: one line on standard error says what was wrong and what to do.
.TP
\fB130\fR, \fB143\fR
Interrupted by SIGINT or SIGTERM; finished cells are kept, data directories removed.
"#;

/// Print dbrace.1, or write every page into `a.dir`.
pub fn run(a: ManArgs) -> Result<i32> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    match a.dir {
        None => {
            let page = top_page(&cmd).map_err(|e| failed!("cannot render the man page: {e}"))?;
            std::io::stdout().write_all(&page).map_err(|e| failed!("cannot write the man page: {e}"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|e| bad_input!("--dir {}: {e}", dir.display()))?;
            let n = write_pages(&cmd, &dir).map_err(|e| failed!("cannot write man pages to {}: {e}", dir.display()))?;
            eprintln!("dbrace: wrote dbrace.1 and {} subcommand pages to {}", n - 1, dir.display());
        }
    }
    Ok(0)
}

/// A page as clap_mangen draws it, its source naming dbrace's version.
fn man(cmd: &clap::Command) -> Man {
    Man::new(cmd.clone()).source(format!("dbrace {VERSION}"))
}

/// dbrace.1: clap_mangen's sections with the exit codes before the version.
fn top_page(cmd: &clap::Command) -> std::io::Result<Vec<u8>> {
    let m = man(cmd);
    let mut out = Vec::new();
    m.render_title(&mut out)?;
    m.render_name_section(&mut out)?;
    m.render_synopsis_section(&mut out)?;
    m.render_description_section(&mut out)?;
    m.render_options_section(&mut out)?;
    m.render_subcommands_section(&mut out)?;
    out.extend_from_slice(EXIT_STATUS.as_bytes());
    m.render_version_section(&mut out)?;
    Ok(out)
}

/// dbrace.1 and a page per visible subcommand, depth first; how many were written.
fn write_pages(cmd: &clap::Command, dir: &Path) -> std::io::Result<usize> {
    std::fs::write(dir.join("dbrace.1"), top_page(cmd)?)?;
    fn subpages(cmd: &clap::Command, dir: &Path) -> std::io::Result<usize> {
        let mut n = 0;
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            man(sub).generate_to(dir)?;
            n += 1 + subpages(sub, dir)?;
        }
        Ok(n)
    }
    Ok(1 + subpages(cmd, dir)?)
}
