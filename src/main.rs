//! CLI entry: parse, dispatch, map errors to exit codes.

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};
use dbrace::cli::{Cli, Command};

fn main() {
    // Die quietly on a closed pipe (`dbrace report r.json | head`), as Unix tools do,
    // instead of panicking on the failed write.
    dbrace::platform::signal::default_pipe_end();
    let args = match dbrace::config::expand(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("dbrace: {e}");
            std::process::exit(e.exit_code());
        }
    };
    let parsed = Cli::command().try_get_matches_from(args).and_then(|m| {
        let mut cli = Cli::from_arg_matches(&m)?;
        if let (Command::Run(a), Some(run)) = (&mut cli.command, m.subcommand_matches("run")) {
            a.as_config = dbrace::config::from_matches(run);
        }
        Ok(cli)
    });
    let cli = match parsed {
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
