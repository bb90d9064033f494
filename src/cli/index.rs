//! `squad index build`: a static index of what registries, folders of archives and trees of
//! squads hold, for any web server to serve.

use std::path::PathBuf;

use super::args::NetworkArgs;
use super::documents::{self, IndexBuilt};
use super::{DataFormat, ExitStatus};
use crate::index::build::{Options, Source};
use crate::output::Printer;

/// Work with static squad indexes (docs/index.md).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad index build oci://ghcr.io/acme/squads -o site/index
  squad index build dist/ -o site/index --sign index.key")]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum IndexCommand {
    Build(BuildArgs),
}

/// Build (or rebuild) a static index: one small file per `namespace/id` with every version's
/// digests, archive location, size, signatures' key ids, publish time, capability summary and
/// yanked flag; search shards; and a root (`index.json`) naming every file's SHA-256, with a
/// version one above the last build's and an expiry, signed with minisign when --sign is
/// given. Any static web server serves the output folder.
///
/// SOURCE is a registry base `oci://HOST/BASE` (every `BASE/<namespace>/<id>` its catalog
/// lists), a file listing repositories (`oci://HOST/BASE/<namespace>/<id>` per line) for a
/// registry whose catalog is closed, a folder of `squad pack` archives, or a package folder or
/// tree of squads (packed here). Archives of folders and trees are copied into the output's
/// `archives/` folder; registry squads are pointed at by pinned reference.
///
/// A rebuild rewrites only the files whose bytes change, and keeps what the last build found
/// of a version whose location and digests are unchanged (without reading its archive again;
/// --full reads every archive).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad index build oci://ghcr.io/acme/squads -o site/index --sign index.key
  squad index build repositories.txt -o site/index      a registry without a public catalog
  squad index build dist/ squads/ -o site/index          archives, and a tree packed here
  squad index build oci://127.0.0.1:5000/squads -o site/index --yank acme/review@2026.12.01.1

Exit status: 0 built, 1 refused (two sources with one version of different bytes, a
previous root that cannot be read, a key that cannot sign), 2 usage, network or I/O error.")]
pub struct BuildArgs {
    /// Registries, folders of archives, trees of squads, or lists of repositories.
    #[arg(value_name = "SOURCE", required = true)]
    pub sources: Vec<String>,

    /// The index's folder (created if needed; a previous build there is rebuilt).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,

    /// Sign the root with this minisign secret key (`index.json.minisig`).
    #[arg(long, value_name = "KEY")]
    pub sign: Option<PathBuf>,

    /// Read the --sign key's password from standard input instead of the terminal.
    #[arg(long, requires = "sign")]
    pub password_stdin: bool,

    /// Days until the root expires: clients refuse an expired root, so rebuild (or re-sign)
    /// before then.
    #[arg(long, value_name = "DAYS", default_value_t = 30)]
    pub expires_in: u32,

    /// Mark a version yanked (`namespace/id@version`): still listed, never chosen by
    /// `squad add`. Yanked flags are kept from build to build.
    #[arg(long, value_name = "NAME@VERSION")]
    pub yank: Vec<String>,

    /// Clear a version's yanked flag.
    #[arg(long, value_name = "NAME@VERSION")]
    pub unyank: Vec<String>,

    /// Read every archive again, keeping nothing of the last build but its root's version.
    #[arg(long)]
    pub full: bool,

    /// Repositories or archives read at once.
    #[arg(long, default_value_t = super::args::DEFAULT_JOBS, value_name = "N")]
    pub jobs: usize,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &IndexArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        IndexCommand::Build(args) => build(args, printer),
    }
}

fn build(args: &BuildArgs, printer: &Printer) -> ExitStatus {
    let mut sources = Vec::new();
    for text in &args.sources {
        match Source::parse(text) {
            Ok(source) => sources.push(source),
            Err(error) => {
                printer.failure(&error, error.hint().as_deref());
                return ExitStatus::Error.max(error.class().into());
            }
        }
    }
    let signer = match &args.sign {
        Some(path) => match crate::sign::keys::unlock(path, args.password_stdin) {
            Ok(key) => Some(key),
            Err(error) => return super::failures::key_error(printer, &error),
        },
        None => None,
    };
    let client = args.network.client();
    let options = Options {
        output: args.output.clone(),
        client: &client,
        signer: signer.as_ref(),
        expires_in_days: args.expires_in,
        yank: args.yank.clone(),
        unyank: args.unyank.clone(),
        full: args.full,
        jobs: args.jobs.max(1),
        now: crate::env::now_utc(),
    };
    let built = match crate::index::build::build(&sources, &options) {
        Ok(built) => built,
        Err(error) => {
            printer.failure(&error, error.hint().as_deref());
            return error.class().into();
        }
    };
    for skipped in &built.skipped {
        printer.warning(&format!("left out of the index: {skipped}"));
    }
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "index-build",
            IndexBuilt {
                output: built.output.display().to_string(),
                sources: sources.iter().map(Source::shown).collect(),
                version: built.version,
                expires: &built.expires,
                squads: built.squads,
                versions: built.versions,
                written: &built.written,
                removed: &built.removed,
                unchanged: built.unchanged,
                read: built.read,
                reused: built.reused,
                skipped: &built.skipped,
                signed_by: built.signed_by.as_deref(),
            },
        ),
        DataFormat::Human => {
            for file in &built.written {
                printer.detail(&format!("wrote {file}"));
            }
            for file in &built.removed {
                printer.detail(&format!("removed {file}"));
            }
            printer.status(
                "Indexed",
                &format!(
                    "{} squads ({} versions) into {}: root version {}, expires {}{}",
                    built.squads,
                    built.versions,
                    built.output.display(),
                    built.version,
                    built.expires,
                    match &built.signed_by {
                        Some(key) => format!(", signed by key {key}"),
                        None => ", unsigned".to_owned(),
                    }
                ),
            );
            printer.status(
                "",
                &format!(
                    "{} files written, {} unchanged, {} removed; {} archives read, {} versions kept from the last build",
                    built.written.len(),
                    built.unchanged,
                    built.removed.len(),
                    built.read,
                    built.reused
                ),
            );
        }
    }
    ExitStatus::Success
}
