use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = squad::cli::Cli::parse();
    ExitCode::from(squad::cli::run(cli).code())
}
