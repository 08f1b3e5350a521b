//! CLI entry: parse, dispatch, map errors to exit codes.

use clap::Parser;
use clap::error::ErrorKind;
use dbrace::cli::Cli;

fn main() {
    // Die quietly on a closed pipe (`dbrace report r.json | head`), as Unix tools do,
    // instead of panicking on the failed write.
    // SAFETY: setting a signal disposition before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            std::process::exit(2);
        }
        Err(e) => {
            // One line, not clap's usage block: what was wrong, then where to look.
            let text = e.render().to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut first = lines.next().unwrap_or("invalid arguments").trim_start_matches("error: ").to_string();
            // "the following required arguments were not provided:" names them below.
            if first.ends_with(':') {
                first = format!("{} {}", first, lines.next().unwrap_or_default());
            }
            eprintln!("dbrace: {first}; see 'dbrace --help'");
            std::process::exit(2);
        }
    };
    let code = match dbrace::commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dbrace: {e}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
