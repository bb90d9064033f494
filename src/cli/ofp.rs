//! `squad ofp manifests`: publish a squad on an Open Floor (seed-formats §3.7).

use std::path::{Path, PathBuf};

use super::ExitStatus;
use super::report::{load_squad, print_diagnostics};
use crate::interop::ofp::publish::{Request, publish};
use crate::interop::ofp::{PUBLISH, PUBLISH_DOCS};
use crate::output::Printer;

/// Work with the Open Floor Protocol (OFP): check envelopes, manifests and dialog events, and
/// publish a squad's agents as assistant manifests.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad ofp manifests pkg --service-url https://agents.example.com/ofp --organization Acme
  squad ofp validate envelope.json manifest.json
  squad ofp validate --kind envelope --schema-variant docs --level schema sample.json")]
pub struct OfpArgs {
    #[command(subcommand)]
    pub command: OfpCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum OfpCommand {
    Manifests(ManifestsArgs),
    Validate(OfpValidateArgs),
}

/// What an Open Floor document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OfpKind {
    Envelope,
    Manifest,
    DialogEvent,
}

/// Check Open Floor documents: the vendored schemas (draft 2020-12, offline) and, from
/// `--level spec` on, the prose rules of the specification (seed-formats §3.6). The same as
/// `squad validate --kind ofp-…`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad ofp validate envelope.json
  squad ofp validate --kind dialog-event --level lenient event.json
  squad ofp validate --schema-variant docs --format json samples/*.json")]
pub struct OfpValidateArgs {
    /// The documents.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// What the documents are; by default told from each one's content.
    #[arg(long, value_enum)]
    pub kind: Option<OfpKind>,

    /// How strictly to check.
    #[arg(long, value_enum, default_value_t = crate::interop::Level::Spec)]
    pub level: crate::interop::Level,

    /// The envelope schema: js (publishManifests, the seed's) or docs (publishManifest).
    #[arg(long, value_enum, default_value_t = crate::interop::SchemaVariant::Js)]
    pub schema_variant: crate::interop::SchemaVariant,

    /// Exit 1 when there are warnings, too.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = super::Format::Human)]
    pub format: super::Format,
}

/// The event name of the manifests reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EventName {
    /// The spec's and openfloor-js's spelling.
    #[value(name = "publishManifests")]
    PublishManifests,
    /// The docs repository schema's spelling.
    #[value(name = "publishManifest")]
    PublishManifest,
}

/// Print an Open Floor conversation envelope whose publishManifests event carries one assistant
/// manifest per agent of a valid package, so a convener or discovery agent can find and invite
/// the squad's experts.
///
/// Each manifest's speakerUri is `tag:<authority>,<YYYY>:<namespace>/<squad-id>/<agent-id>`
/// (YYYY from the package version), its serviceUrl `<service-url>/<namespace>/<squad-id>/<agent-id>`,
/// its synopsis the agent's description. An agent without a description is an error (the
/// synopsis is mandatory); a description over 75 characters is a warning. The output passes
/// `squad validate` as it is.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad ofp manifests pkg --service-url https://agents.example.com/ofp --organization Acme
  squad ofp manifests pkg --service-url https://agents.example.com/ofp --organization Acme \\
      --language en --language de --include-scheduler -o manifests.json
  squad ofp manifests pkg --service-url https://a.example --organization Acme --bare
  squad ofp manifests pkg --service-url https://a.example --organization Acme \\
      --event-name publishManifest     the spelling of the docs repository's schema")]
pub struct ManifestsArgs {
    /// The package folder. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// The base endpoint; agent paths are appended to it.
    #[arg(long, value_name = "URL")]
    pub service_url: String,

    /// The organization administering the agents.
    #[arg(long, value_name = "ORG")]
    pub organization: String,

    /// The RFC 4151 tagging authority (a DNS name or an email address) [default: the host of
    /// --service-url].
    #[arg(long, value_name = "A")]
    pub authority: Option<String>,

    /// A BCP 47 language the agents speak (repeatable); none by default.
    #[arg(long = "language", value_name = "L")]
    pub languages: Vec<String>,

    /// Publish the Orchestrator too, as `<squad-id>` with the squad's label and description.
    #[arg(long)]
    pub include_scheduler: bool,

    /// The conversation id [default: squad:<namespace>/<id>@<version>].
    #[arg(long, value_name = "ID")]
    pub conversation_id: Option<String>,

    /// The envelope's sender [default: tag:<authority>,<YYYY>:<namespace>/<squad-id>].
    #[arg(long, value_name = "URI")]
    pub sender: Option<String>,

    /// The event's name.
    #[arg(long, value_enum, default_value_t = EventName::PublishManifests)]
    pub event_name: EventName,

    /// Print only the array of manifests, not the envelope. The array is no Open Floor
    /// document, but `squad validate` checks it as manifests, each at its index.
    #[arg(long)]
    pub bare: bool,

    /// Write to FILE (replaced atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: &OfpArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        OfpCommand::Manifests(args) => manifests(args, printer),
        OfpCommand::Validate(args) => {
            let kind = args.kind.map(|kind| match kind {
                OfpKind::Envelope => crate::interop::Kind::OfpEnvelope,
                OfpKind::Manifest => crate::interop::Kind::OfpManifest,
                OfpKind::DialogEvent => crate::interop::Kind::OfpDialogEvent,
            });
            let options = crate::interop::Options {
                level: args.level,
                schema_variant: args.schema_variant,
            };
            super::inputs::validate(
                &args.files,
                kind,
                &options,
                None,
                args.deny_warnings,
                args.format,
                printer,
            )
        }
    }
}

fn manifests(args: &ManifestsArgs, printer: &Printer) -> ExitStatus {
    let shown = args.path.display().to_string();
    let (squad, report) = match load_squad(
        &args.path,
        printer,
        &format!("package `{shown}` is invalid; run `squad validate {shown}`"),
        None,
    ) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let request = Request {
        service_url: &args.service_url,
        organization: &args.organization,
        authority: args.authority.as_deref(),
        languages: &args.languages,
        include_scheduler: args.include_scheduler,
        conversation_id: args.conversation_id.as_deref(),
        sender: args.sender.as_deref(),
        event_name: match args.event_name {
            EventName::PublishManifests => PUBLISH,
            EventName::PublishManifest => PUBLISH_DOCS,
        },
    };
    let published = match publish(&squad, &request) {
        Ok(published) => published,
        Err(message) => {
            printer.error(
                &message,
                Some("`squad ofp manifests --help` describes the flags"),
            );
            return ExitStatus::Error;
        }
    };
    let diagnostics = published.diagnostics;
    print_diagnostics(printer, &shown, &diagnostics, &report.sources);
    if crate::diag::has_errors(&diagnostics) {
        printer.error(
            &format!("`{shown}` cannot be published on an Open Floor; nothing was written"),
            None,
        );
        return ExitStatus::Failure;
    }
    let json = if args.bare {
        serde_json::to_string_pretty(published.envelope.manifests())
    } else {
        serde_json::to_string_pretty(&published.envelope)
    };
    let text = match json {
        Ok(json) => json + "\n",
        Err(error) => {
            printer.error(&format!("cannot serialise the manifests: {error}"), None);
            return ExitStatus::Error;
        }
    };
    let count = published.envelope.manifests().len();
    match &args.output {
        None => printer.data(&text),
        Some(path) => {
            if let Err(status) = write(path, &text, printer) {
                return status;
            }
            printer.status(
                "Wrote",
                &format!(
                    "{} ({count} manifest{})",
                    path.display(),
                    crate::text::plural(count)
                ),
            );
        }
    }
    ExitStatus::Success
}

/// A temporary file beside `path`, renamed over it: readers never see half a document.
fn write(path: &Path, text: &str, printer: &Printer) -> Result<(), ExitStatus> {
    crate::fs::replace_file(path, text.as_bytes()).map_err(|error| {
        printer.error(&format!("cannot write `{}`: {error}", path.display()), None);
        ExitStatus::Error
    })
}
