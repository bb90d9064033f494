//! Commands about `squad` itself: shell completions, the man page and the manifest JSON Schema.

use clap::CommandFactory;

use super::{Cli, ExitStatus};
use crate::output::Printer;

/// Print a shell completion script.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad completions bash > ~/.local/share/bash-completion/completions/squad
  squad completions zsh > \"${fpath[1]}/_squad\"
  squad completions fish > ~/.config/fish/completions/squad.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn completions(args: &CompletionsArgs, printer: &Printer) -> ExitStatus {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "squad", &mut out);
    printer.data(&String::from_utf8_lossy(&out));
    ExitStatus::Success
}

/// Print the man page (roff) of squad and its subcommands.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  squad man > squad.1 && man ./squad.1")]
pub struct ManArgs {}

pub fn man(_args: &ManArgs, printer: &Printer) -> ExitStatus {
    let command = Cli::command();
    let mut out = Vec::new();
    if clap_mangen::Man::new(command.clone())
        .render(&mut out)
        .is_err()
    {
        printer.error("cannot render the man page", None);
        return ExitStatus::Error;
    }
    // One page: the subcommands follow as sections of their own.
    for sub in command.get_subcommands() {
        let name = format!("squad-{}", sub.get_name());
        let sub = sub.clone().name(name.clone());
        let mut page = Vec::new();
        if clap_mangen::Man::new(sub)
            .title(name)
            .render(&mut page)
            .is_ok()
        {
            out.extend_from_slice(b"\n");
            out.extend_from_slice(&page);
        }
    }
    printer.data(&String::from_utf8_lossy(&out));
    ExitStatus::Success
}

/// Print a JSON Schema (draft 2020-12) of expert-squad.jsonc, for editor completion.
///
/// The schema is generated from the same tables the validator uses. It describes the shape
/// (keys, types, enums, patterns); rules that need the package's files (refs, prompts, tools)
/// are checked only by `squad validate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  squad schema > expert-squad.schema.json   then map it to expert-squad.jsonc in the editor")]
pub struct SchemaArgs {}

pub fn schema(_args: &SchemaArgs, printer: &Printer) -> ExitStatus {
    let schema = crate::manifest::schema::json_schema();
    printer.data(&(serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"));
    ExitStatus::Success
}
