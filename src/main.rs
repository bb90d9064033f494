use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = squad::cli::parse();
    ExitCode::from(squad::cli::run(cli).code())
}
