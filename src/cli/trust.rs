//! `squad trust add`, `remove` and `revoke`: the keys a project trusts to sign its squads, in
//! `.opencorvus/squads.jsonc` (docs/signatures.md).

use std::path::Path;

use super::args::{ProjectArgs, project_of};
use super::documents::{self, Revoked, Trusted, Untrusted};
use super::failures::project_error as report_error;
use super::report::waiting;
use super::{DataFormat, ExitStatus};
use crate::output::Printer;

/// Manage the keys a project trusts to sign its squads.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad trust add acme.pub --namespace acme
  squad trust add RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3 --namespace '*' --require-signatures
  squad trust remove acme-2025.pub
  squad trust revoke 0A5B0BCCC0DEA6EC")]
pub struct TrustArgs {
    #[command(subcommand)]
    pub command: TrustCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum TrustCommand {
    Add(TrustAddArgs),
    Remove(TrustRemoveArgs),
    Revoke(TrustRevokeArgs),
}

/// Stop trusting a key in this project (for one namespace, or all).
///
/// Removes the key's entries from the `trust` lists of `.opencorvus/squads.jsonc` in place
/// (comments kept). Squads it signed are refused at the next sync unless another trusted key
/// signed them too. To refuse its signatures whatever `trust` says, use `squad trust revoke`.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust remove acme-2025.pub
  squad trust remove RWQ… --namespace acme --format json", signing_exit_help!()))]
pub struct TrustRemoveArgs {
    /// A minisign public key: the `RW…` string, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    /// Only this namespace's list (default: every list that names the key).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Refuse a key's signatures in this project, whatever `trust` says.
///
/// Adds the key's id to `revoked` in `.opencorvus/squads.jsonc` (comments kept; created if
/// absent). From then on `squad sync`, `add` and `install` into the project refuse squads
/// signed only by that key, including squads the lock already records as signed by it.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust revoke 0A5B0BCCC0DEA6EC
  squad trust revoke acme-2025.pub --format json", signing_exit_help!()))]
pub struct TrustRevokeArgs {
    /// The key: its id (16 hex digits, as `squad verify` and refusals print it), the `RW…`
    /// public key, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Trust a public key to sign a namespace's squads in this project.
///
/// Edits `.opencorvus/squads.jsonc` in place (comments kept; created if absent): the key is
/// added to `trust.<NAMESPACE>`. Once `require_signatures` is true (--require-signatures sets
/// it), `squad sync`, `add` and `install` into the project refuse squads not signed by a key
/// trusted for their namespace. --expires gives the last day (UTC) the key is trusted.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad trust add acme.pub --namespace acme
  squad trust add RWQ… --namespace '*' --expires 2027-12-31
  squad trust add acme.pub --namespace acme --require-signatures --format json", signing_exit_help!()))]
pub struct TrustAddArgs {
    /// A minisign public key: the `RW…` string, or a `.pub` file.
    #[arg(value_name = "KEY")]
    pub key: String,

    /// The namespace whose squads the key may sign (`*`: every namespace).
    #[arg(long, value_name = "NS")]
    pub namespace: String,

    /// The last day (YYYY-MM-DD, UTC) signatures by this key are accepted.
    #[arg(long, value_name = "DATE")]
    pub expires: Option<String>,

    /// Also set `require_signatures: true`.
    #[arg(long)]
    pub require_signatures: bool,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// The project a trust command edits, and the edit itself under the project lock; a failure is
/// reported in the command's format (a document of type `kind`) and becomes the exit status.
fn edit_policy<T>(
    args: &ProjectArgs,
    format: DataFormat,
    kind: &'static str,
    printer: &Printer,
    edit: impl FnOnce(
        &crate::project::Project,
        &mut dyn FnMut(&Path),
    ) -> Result<T, crate::project::ProjectError>,
) -> Result<(crate::project::Project, T), ExitStatus> {
    let project = project_of(args, printer)?;
    match edit(&project, &mut waiting(printer)) {
        Ok(done) => Ok((project, done)),
        Err(error) => Err(report_error(printer, format.into(), kind, &project, error)),
    }
}

pub fn run_trust(args: &TrustArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        TrustCommand::Add(args) => run_trust_add(args, printer),
        TrustCommand::Remove(args) => run_trust_remove(args, printer),
        TrustCommand::Revoke(args) => run_trust_revoke(args, printer),
    }
}

fn run_trust_remove(args: &TrustRemoveArgs, printer: &Printer) -> ExitStatus {
    let key = match crate::sign::keys::public_key(&args.key) {
        Ok(key) => key,
        Err(error) => return super::failures::key_error(printer, &error),
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "untrust",
        printer,
        |project, wait| {
            crate::project::change::untrust(project, key.id, args.namespace.as_deref(), wait)
        },
    );
    let (project, untrusted) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    let removed = untrusted.removed;
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "untrust",
            Untrusted {
                project: &project.shown,
                key_id: key.id.to_string(),
                namespace: args.namespace.as_deref(),
                removed,
                still_trusted_in: &untrusted.still_trusted_in,
            },
        ),
        DataFormat::Human if removed == 0 => printer.status(
            "Unchanged",
            &format!(
                "key {} is not trusted{} in {}",
                key.id,
                args.namespace
                    .as_deref()
                    .map(|namespace| format!(" for `{namespace}`"))
                    .unwrap_or_default(),
                project.display(crate::project::declared::FILE)
            ),
        ),
        DataFormat::Human => printer.status(
            "Removed",
            &format!(
                "key {} ({removed} entr{}) from {}",
                key.id,
                if removed == 1 { "y" } else { "ies" },
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    // What the file says now: a key removed for one namespace may still vouch for it.
    if args.format == DataFormat::Human && !untrusted.still_trusted_in.is_empty() {
        let lists: Vec<String> = untrusted
            .still_trusted_in
            .iter()
            .map(|namespace| format!("`trust.\"{namespace}\"`"))
            .collect();
        let vouches = match args.namespace.as_deref() {
            Some(namespace) if untrusted.still_trusted_in.iter().any(|n| n == "*") => {
                format!(" and still vouches for `{namespace}` through `*`")
            }
            _ => String::new(),
        };
        printer.warning(&format!(
            "key {} is still trusted in {}{vouches}; `squad trust remove {}` without --namespace removes it everywhere, `squad trust revoke` refuses it whatever `trust` says",
            key.id,
            lists.join(", "),
            args.key
        ));
    }
    ExitStatus::Success
}

fn run_trust_revoke(args: &TrustRevokeArgs, printer: &Printer) -> ExitStatus {
    let key_id = match crate::sign::KeyId::parse(&args.key) {
        Some(id) => id,
        None => match crate::sign::keys::public_key(&args.key) {
            Ok(key) => key.id,
            Err(error) => {
                printer.failure(
                    &error,
                    Some("a key id is 16 hex digits, as refusals and `squad verify` print it"),
                );
                return error.class().into();
            }
        },
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "revoke",
        printer,
        |project, wait| crate::project::change::revoke(project, key_id, wait),
    );
    let (project, changed) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "revoke",
            Revoked {
                project: &project.shown,
                key_id: key_id.to_string(),
                changed,
            },
        ),
        DataFormat::Human => printer.status(
            if changed { "Revoked" } else { "Unchanged" },
            &format!(
                "key {key_id} in {}",
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    ExitStatus::Success
}

fn run_trust_add(args: &TrustAddArgs, printer: &Printer) -> ExitStatus {
    let key = match crate::sign::keys::public_key(&args.key) {
        Ok(key) => key,
        Err(error) => return super::failures::key_error(printer, &error),
    };
    let expires = match args.expires.as_deref() {
        None => None,
        Some(text) => match crate::version::Date::parse(text) {
            Some(date) => Some(date),
            None => {
                printer.error(
                    &format!("--expires `{text}` is not a YYYY-MM-DD date"),
                    None,
                );
                return ExitStatus::Error;
            }
        },
    };
    let edited = edit_policy(
        &args.project,
        args.format,
        "trust",
        printer,
        |project, wait| {
            crate::project::change::trust(
                project,
                &args.namespace,
                &key,
                expires,
                args.require_signatures,
                wait,
            )
        },
    );
    let (project, added) = match edited {
        Ok(edited) => edited,
        Err(status) => return status,
    };
    let changed = added.changed;
    if added.revoked && args.format == DataFormat::Human {
        printer.warning(&format!(
            "key {} is also in `revoked`, which wins: it vouches for no squad until it is taken out of `revoked`",
            key.id
        ));
    }
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "trust",
            Trusted {
                revoked: added.revoked,
                project: &project.shown,
                namespace: &args.namespace,
                key_id: key.id.to_string(),
                public_key: &key.base64,
                expires: expires.map(|date| date.to_string()),
                require_signatures: args.require_signatures,
                changed,
            },
        ),
        DataFormat::Human => printer.status(
            if changed { "Trusted" } else { "Unchanged" },
            &format!(
                "key {} for {} in {}",
                key.id,
                if args.namespace == "*" {
                    "every namespace".to_owned()
                } else {
                    format!("namespace `{}`", args.namespace)
                },
                project.display(crate::project::declared::FILE)
            ),
        ),
    }
    ExitStatus::Success
}
