//! `squad lsp`: the language server, over stdin and stdout.

use super::ExitStatus;
use crate::output::Printer;

/// Run the language server: every rule of `squad validate` as you type, in any editor.
///
/// Speaks the Language Server Protocol over stdin and stdout; editors start it themselves
/// (README.md, "In your editor", has the settings for Neovim, VS Code, Helix and Zed). Each
/// open document is checked with the package it belongs to (the nearest folder above it that
/// holds expert-squad.jsonc), unsaved text included; documents of the neighbouring formats
/// outside a package are checked on their own. It offers diagnostics with the codes and
/// messages of `squad validate`, go to definition, find references, completion, hover, code
/// actions (the fixes of `squad fix`, and creating a missing file a ref or prompt names) and
/// rename of agents and workflow nodes. Log lines go to stderr. It exits when its input closes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad lsp                 started by the editor, which talks to it over stdin and stdout
  squad lsp --stdio         the same (the flag editors' clients add)

Exit status: 0 after the client's `shutdown` and `exit`, 1 when the input closes (or `exit`
comes) without `shutdown`.")]
pub struct LspArgs {
    /// Speak over stdin and stdout (the only transport; accepted because editors pass it).
    #[arg(long)]
    pub stdio: bool,
}

pub fn run(_args: &LspArgs, printer: &Printer) -> ExitStatus {
    let (input, mut output, mut log) = printer.protocol_streams();
    match crate::lsp::serve(input, &mut output, &mut log) {
        0 => ExitStatus::Success,
        _ => ExitStatus::Failure,
    }
}
