//! Commands about `squad` itself: shell completions, the man page and the manifest JSON Schema.

use super::ExitStatus;
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
    let mut command = super::command();
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
    let command = super::command();
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

/// Print a JSON Schema (draft 2020-12) of expert-squad.jsonc, an MCP declaration or a skill's
/// frontmatter, for editor completion and hover text.
///
/// The schemas are generated from the same tables the validator uses and describe every field.
/// They cover shapes (keys, types, enums, patterns); rules that need the package's files
/// (refs, prompts, tools) are checked only by `squad validate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad schema > expert-squad.schema.json      map it to expert-squad.jsonc in the editor
  squad schema mcp > mcp.schema.json           map it to mcp/*.jsonc and agents/*/mcp/*.jsonc
  squad schema skill > skill.schema.json       the YAML frontmatter of SKILL.md
docs/authoring.md shows the VS Code settings that map them.")]
pub struct SchemaArgs {
    /// Which file the schema describes.
    #[arg(value_enum, default_value_t = SchemaKind::Manifest)]
    pub kind: SchemaKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaKind {
    /// expert-squad.jsonc.
    Manifest,
    /// An MCP server declaration, mcp/<server>.jsonc.
    Mcp,
    /// The YAML frontmatter of a skill's SKILL.md.
    Skill,
}

pub fn schema(args: &SchemaArgs, printer: &Printer) -> ExitStatus {
    let schema = match args.kind {
        SchemaKind::Manifest => crate::manifest::schema::json_schema(),
        SchemaKind::Mcp => crate::manifest::schema::mcp_schema(),
        SchemaKind::Skill => crate::manifest::schema::skill_schema(),
    };
    printer.data(&crate::output::json_text(&schema));
    ExitStatus::Success
}
